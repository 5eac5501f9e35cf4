"""The crowd queue on small worlds: who gets which image, and who sees what."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from annotations.models import Stage
from annotations.services.queues import annotation_next, review_next
from crowd.models import Copy, CopyState
from crowd.services.copies import copy_save, copy_submit
from crowd.services.queue import copy_next
from tests.crowd.conftest import drawing, person
from tests.factories import ImageFactory
from vtt_site.errors import ApplicationError

pytestmark = pytest.mark.django_db


def test_an_image_goes_to_overlap_different_annotators_and_never_twice_to_one(crowd, annotators):
    image = ImageFactory(collection=crowd)
    first, second, third, fourth = annotators
    copies = [copy_next(collection=crowd, user=user) for user in (first, second, third)]
    assert {c.image_id for c in copies} == {image.pk}
    assert copy_next(collection=crowd, user=fourth) is None  # three places, all taken
    copy_submit(copy=copies[0], user=first)
    # The first annotator asks again: the image is not handed to them twice.
    assert copy_next(collection=crowd, user=first) is None
    assert copy_next(collection=crowd, user=second).pk == copies[1].pk  # held work comes back


def test_an_expired_place_goes_to_someone_else_and_its_draft_with_it(crowd, annotators):
    ImageFactory(collection=crowd)
    first, second, third, fourth = annotators
    taken = [copy_next(collection=crowd, user=user) for user in (first, second, third)]
    Copy.objects.filter(pk=taken[0].pk).update(lease_expires_at=timezone.now() - timedelta(minutes=1))
    given = copy_next(collection=crowd, user=fourth)
    assert given is not None and given.image_id == taken[0].image_id
    assert not Copy.objects.filter(pk=taken[0].pk).exists()
    assert Copy.objects.filter(image_id=given.image_id).count() == 3


def test_the_annotation_queues_send_a_crowd_collection_to_the_crowd_queue(crowd, annotators, reviewer):
    """annotations.routing: the single-annotator queues ask the registry the crowd app fills."""
    ImageFactory(collection=crowd)
    ImageFactory(collection=crowd, stage=Stage.REVIEW)
    for take, user in ((annotation_next, annotators[0]), (review_next, reviewer)):
        with pytest.raises(ApplicationError) as refused:
            take(collection=crowd, user=user)
        assert refused.value.code == "queue_elsewhere"
        assert "crowd queue" in refused.value.message


def test_nobody_reads_another_annotators_copy(crowd, annotators, reviewer, api):
    ImageFactory(collection=crowd)
    mine = copy_next(collection=crowd, user=annotators[0])
    copy_save(copy=mine, user=annotators[0], document=drawing(person(5, 5)))
    other = api.as_user(annotators[1])
    for path in ("annotation/", "file/"):
        response = other.get(f"/api/v1/crowd/work/{mine.pk}/{path}")
        assert response.status_code == 404, path
        assert response.json()["code"] == "copy_not_found"
    assert other.put(f"/api/v1/crowd/work/{mine.pk}/annotation/", drawing(), format="json").status_code == 404
    # Nor does the image's own annotation show it before the merge: it is not written there.
    reviewer_view = api.as_user(reviewer).get(f"/api/v1/images/{mine.image_id}/annotation/")
    assert reviewer_view.json()["objects"] == []


def test_an_annotator_of_a_crowd_reads_no_image_of_it_through_the_annotation_api(
    crowd, annotators, reviewer, api
):
    """Not the accepted images either: they hold the merges and the hidden gold answers."""
    image = ImageFactory(collection=crowd, stage=Stage.ACCEPTED)
    client = api.as_user(annotators[0])
    for path in (f"/api/v1/images/{image.pk}/", f"/api/v1/images/{image.pk}/annotation/"):
        response = client.get(path)
        assert (response.status_code, response.json()["code"]) == (404, "image_not_found"), path
    for path in (f"/api/v1/collections/{crowd.pk}/images/", f"/api/v1/collections/{crowd.pk}/export/jsonl/"):
        response = client.get(path)
        assert response.status_code == 403, path
        assert "only their own work" in response.json()["message"]
    # Its reviewer reads them as before.
    assert api.as_user(reviewer).get(f"/api/v1/images/{image.pk}/annotation/").status_code == 200
    assert api.as_user(reviewer).get(f"/api/v1/collections/{crowd.pk}/images/").json()["count"] == 1


def test_what_an_annotator_is_given_names_no_image(crowd, annotators, api):
    image = ImageFactory(collection=crowd, original_name="secret-name.png")
    response = api.as_user(annotators[0]).post(f"/api/v1/collections/{crowd.pk}/crowd/queue/next/")
    body = response.json()
    assert set(body) == {"id", "width", "height", "file_url", "state", "lease_expires_at"}
    assert "secret-name" not in response.content.decode()
    assert f"/images/{image.pk}/" not in body["file_url"]


def test_a_submitted_copy_cannot_change(crowd, annotators, api):
    ImageFactory(collection=crowd)
    copy = copy_next(collection=crowd, user=annotators[0])
    copy_submit(copy=copy, user=annotators[0])
    response = api.as_user(annotators[0]).put(
        f"/api/v1/crowd/work/{copy.pk}/annotation/", drawing(person(1, 1)), format="json"
    )
    assert (response.status_code, response.json()["code"]) == (409, "copy_submitted")
    assert Copy.objects.get(pk=copy.pk).state == CopyState.SUBMITTED
    assert Copy.objects.get(pk=copy.pk).document == {}
