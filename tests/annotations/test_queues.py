"""The annotation and review queues: leases, expiry, send-back to the annotator, no self-review, and
progress per collection."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.roles import Role
from annotations.conf import conf as annotations_conf
from annotations.models import Image, MemberRole, Stage
from annotations.selectors.collections import training_images
from tests.annotations.conftest import SCENE
from tests.factories import ImageFactory, MembershipFactory, UserFactory

pytestmark = pytest.mark.django_db


def take(api, user, collection, queue="annotation"):
    return api.as_user(user).post(f"/api/v1/collections/{collection.pk}/queue/{queue}/next/")


def taken_id(response) -> int:
    assert response.status_code == 200, response.content
    return response.json()["image"]["id"]


def annotate_and_submit(api, user, image_id):
    client = api.as_user(user)
    assert client.put(f"/api/v1/images/{image_id}/annotation/", SCENE, format="json").status_code == 200
    assert client.post(f"/api/v1/images/{image_id}/submit/").status_code == 200


def decide(api, user, image_id, decision, comment=""):
    return api.as_user(user).post(
        f"/api/v1/images/{image_id}/review/", {"decision": decision, "comment": comment}, format="json"
    )


def test_two_annotators_get_different_images_and_the_same_one_again_when_they_ask_again(
    api, annotator, other_annotator, collection
):
    first, second = ImageFactory(collection=collection), ImageFactory(collection=collection)
    response = take(api, annotator, collection)
    assert taken_id(response) == first.pk
    assert response.json()["lease_expires_at"] == response.json()["image"]["lease_expires_at"]
    assert taken_id(take(api, other_annotator, collection)) == second.pk
    assert taken_id(take(api, annotator, collection)) == first.pk
    assert take(api, UserFactory(role=Role.ANNOTATOR), collection).status_code == 404  # not a member


def test_nothing_waiting_is_a_204(api, annotator, reviewer, collection):
    assert take(api, annotator, collection).status_code == 204
    assert take(api, reviewer, collection, "review").status_code == 204


def test_an_expired_lease_returns_the_image_to_the_queue(
    api, annotator, other_annotator, collection, settings
):
    image = ImageFactory(collection=collection)
    assert taken_id(take(api, annotator, collection)) == image.pk
    assert take(api, other_annotator, collection).status_code == 204
    Image.objects.filter(pk=image.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    response = take(api, other_annotator, collection)
    assert taken_id(response) == image.pk
    expires = timezone.datetime.fromisoformat(response.json()["lease_expires_at"])
    assert expires > timezone.now() + timedelta(minutes=annotations_conf.LEASE_MINUTES - 1)
    saved = api.as_user(annotator).put(f"/api/v1/images/{image.pk}/annotation/", SCENE, format="json")
    assert saved.status_code == 409
    assert saved.json()["code"] == "lease_not_held"


def test_an_expired_lease_nobody_took_still_lets_its_holder_save(api, annotator, collection):
    image = ImageFactory(collection=collection)
    taken_id(take(api, annotator, collection))
    Image.objects.filter(pk=image.pk).update(lease_expires_at=timezone.now() - timedelta(seconds=1))
    saved = api.as_user(annotator).put(f"/api/v1/images/{image.pk}/annotation/", SCENE, format="json")
    assert saved.status_code == 200
    image.refresh_from_db()
    assert image.lease_expires_at > timezone.now()


def test_a_sent_back_image_returns_to_its_annotator_with_the_comment(
    api, annotator, other_annotator, reviewer, collection
):
    image = ImageFactory(collection=collection)
    annotate_and_submit(api, annotator, taken_id(take(api, annotator, collection)))
    assert taken_id(take(api, reviewer, collection, "review")) == image.pk

    refused = decide(api, reviewer, image.pk, "send_back")
    assert refused.status_code == 400
    assert refused.json()["code"] == "comment_required"
    assert Image.objects.get(pk=image.pk).stage == Stage.REVIEW

    sent_back = decide(api, reviewer, image.pk, "send_back", "The cyclist is not boxed.")
    assert sent_back.status_code == 200
    assert sent_back.json()["stage"] == "annotate"
    fresh = ImageFactory(collection=collection)
    assert taken_id(take(api, other_annotator, collection)) == fresh.pk  # never the returned one
    response = take(api, annotator, collection)
    assert taken_id(response) == image.pk
    assert response.json()["image"]["returned"] is True
    assert response.json()["image"]["review_comment"] == "The cyclist is not boxed."
    annotation = api.as_user(annotator).get(f"/api/v1/images/{image.pk}/annotation/").json()
    assert len(annotation["objects"]) == 3  # the work is still there to fix


def test_the_returned_image_comes_before_a_free_one(api, annotator, reviewer, collection):
    image = ImageFactory(collection=collection)
    annotate_and_submit(api, annotator, taken_id(take(api, annotator, collection)))
    ImageFactory(collection=collection)
    taken_id(take(api, reviewer, collection, "review"))
    decide(api, reviewer, image.pk, "send_back", "Fix the boxes.")
    assert taken_id(take(api, annotator, collection)) == image.pk


def test_an_annotator_cannot_review_their_own_work(api, users, collection):
    both = UserFactory(role=Role.ANNOTATOR, username="both")
    both.groups.add(users[Role.REVIEWER].groups.get())
    membership = MembershipFactory(collection=collection, user=both, role=MemberRole.ANNOTATOR)
    image = ImageFactory(collection=collection)
    annotate_and_submit(api, both, taken_id(take(api, both, collection)))
    # A membership grants one role (decision 0006): made a reviewer here after annotating.
    membership.role = MemberRole.REVIEWER
    membership.save()
    assert take(api, both, collection, "review").status_code == 204
    Image.objects.filter(pk=image.pk).update(
        lease_holder=both, lease_expires_at=timezone.now() + timedelta(hours=1)
    )
    response = decide(api, both, image.pk, "accept")
    assert response.status_code == 403
    assert response.json()["code"] == "self_review"
    assert Image.objects.get(pk=image.pk).stage == Stage.REVIEW


def test_only_the_review_lease_holder_decides(api, annotator, reviewer, other_reviewer, collection):
    image = ImageFactory(collection=collection)
    annotate_and_submit(api, annotator, taken_id(take(api, annotator, collection)))
    taken_id(take(api, reviewer, collection, "review"))
    assert take(api, other_reviewer, collection, "review").status_code == 204
    response = decide(api, other_reviewer, image.pk, "accept")
    assert response.status_code == 409
    assert response.json()["code"] == "lease_not_held"


def test_accept_puts_a_train_image_in_the_training_set(api, annotator, reviewer, collection):
    train = ImageFactory(collection=collection, split="train")
    test = ImageFactory(collection=collection, split="test")
    for _ in range(2):
        annotate_and_submit(api, annotator, taken_id(take(api, annotator, collection)))
    for _ in range(2):
        image_id = taken_id(take(api, reviewer, collection, "review"))
        accepted = decide(api, reviewer, image_id, "accept")
        assert accepted.json()["stage"] == "accepted"
        assert accepted.json()["reviewed_by"]["username"] == reviewer.username
    assert list(training_images(collection=collection)) == [train]
    assert Image.objects.get(pk=test.pk).stage == Stage.ACCEPTED


def test_release_gives_the_image_back(api, annotator, other_annotator, collection):
    image = ImageFactory(collection=collection)
    taken_id(take(api, annotator, collection))
    refused = api.as_user(other_annotator).delete(f"/api/v1/images/{image.pk}/lease/")
    assert refused.status_code == 409
    assert api.as_user(annotator).delete(f"/api/v1/images/{image.pk}/lease/").status_code == 204
    assert taken_id(take(api, other_annotator, collection)) == image.pk


def test_removing_a_member_frees_their_images(api, users, annotator, other_annotator, collection):
    image = ImageFactory(collection=collection)
    taken_id(take(api, annotator, collection))
    response = api.as_user(users[Role.ADMIN]).delete(
        f"/api/v1/collections/{collection.pk}/members/{annotator.pk}/"
    )
    assert response.status_code == 204
    assert taken_id(take(api, other_annotator, collection)) == image.pk
    assert take(api, annotator, collection).status_code == 404


def test_progress_counts_every_stage_per_split(api, annotator, reviewer, users, collection):
    images = [ImageFactory(collection=collection, split="train") for _ in range(5)]
    ImageFactory(collection=collection, split="test")
    annotate_and_submit(api, annotator, taken_id(take(api, annotator, collection)))  # images[0]: review
    annotate_and_submit(api, annotator, taken_id(take(api, annotator, collection)))  # images[1]: review
    decide(api, reviewer, taken_id(take(api, reviewer, collection, "review")), "accept")  # images[0]
    taken_id(take(api, annotator, collection))  # images[2]: leased, in annotation
    progress = (
        api.as_user(users[Role.OPERATOR]).get(f"/api/v1/collections/{collection.pk}/").json()["progress"]
    )
    assert {k: progress[k] for k in ("total", "new", "in_annotation", "in_review", "accepted")} == {
        "total": 6,
        "new": 3,
        "in_annotation": 1,
        "in_review": 1,
        "accepted": 1,
    }
    assert progress["by_split"]["train"] == {
        "total": 5,
        "new": 2,
        "in_annotation": 1,
        "in_review": 1,
        "accepted": 1,
    }
    assert progress["by_split"]["test"]["new"] == 1
    assert images[0].pk in {i.pk for i in training_images(collection=collection)}


def test_a_reviewer_corrects_the_annotation_then_pins_a_comment_to_a_box(
    api, collection, annotator, reviewer
):
    """Issue 20: the reviewer holding the image fixes a small mistake (recorded as theirs, the annotator
    unchanged), and a comment may point at one box; a box the annotation lacks is refused."""
    ImageFactory(collection=collection, width=640, height=480)
    image_id = taken_id(take(api, annotator, collection))
    annotate_and_submit(api, annotator, image_id)
    client = api.as_user(reviewer)
    moved = {**SCENE["objects"][0], "bbox": [12, 20, 30, 60]}
    corrected = {**SCENE, "objects": [moved, *SCENE["objects"][1:]]}
    url = f"/api/v1/images/{image_id}/review/annotation/"
    assert client.put(url, corrected, format="json").status_code == 409  # not before holding the image
    assert taken_id(take(api, reviewer, collection, "review")) == image_id
    saved = client.put(url, corrected, format="json")
    assert saved.status_code == 200 and saved.json()["objects"][0]["bbox"] == [12, 20, 30, 60]
    image = Image.objects.get(pk=image_id)
    assert (image.corrected_by, image.annotator, image.stage) == (reviewer, annotator, Stage.REVIEW)

    refused = client.post(
        f"/api/v1/images/{image_id}/review/", {"decision": "send_back", "comment": "x", "object": "o99"}
    )
    assert refused.status_code == 400
    assert refused.json()["fields"] == {"object": ["Not a box of this annotation."]}
    sent = client.post(
        f"/api/v1/images/{image_id}/review/",
        {"decision": "send_back", "comment": "Is this a child?", "object": "o2"},
    )
    assert sent.status_code == 200
    body = sent.json()
    assert (body["review_comment_object"], body["corrected_by"]["username"]) == ("o2", reviewer.username)
