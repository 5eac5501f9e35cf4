"""Suggestions fetched in the background (decision 0078): a pre-annotation job over a collection, with
progress and each failed image's reason, and the fetch ahead of the images the annotation queue gives."""

from __future__ import annotations

import pytest

from accounts.roles import Role
from annotations.models import Prediction
from annotations.services.preannotation import preannotation_create, preannotation_run
from annotations.services.queues import annotation_next
from vtt_site.job_model import JobStatus

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_pre_annotation_reports_progress_and_each_failed_image_with_its_reason(
    api, users, collection, site, scene_images, connect, fake_backend
):
    connect()
    images = scene_images(3)
    failing = images[1]
    fake_backend.set_mode("garbage", only=[failing[2]])
    client = api.as_user(users[Role.REVIEWER])
    started = client.post(f"/api/v1/collections/{collection.pk}/model-backend/preannotate/")
    assert started.status_code == 202, started.content
    job = client.get(f"/api/v1/preannotations/{started.json()['id']}/").json()  # ran eagerly
    assert job["status"] == "done" and job["progress"] == 1.0
    assert (job["images_total"], job["images_done"], job["images_failed"]) == (3, 3, 1)
    assert job["failures"] == [
        {
            "image": failing[0].pk,
            "name": failing[0].original_name,
            "reason": "The model server's answer to /predict is not JSON.",
        }
    ]
    good = [image for image in images if image is not failing]
    assert job["boxes"] == sum(len(scene["objects"]) for _, scene, _ in good)
    assert Prediction.objects.filter(image=failing[0]).count() == 0
    for image, scene, _ in good:
        assert Prediction.objects.filter(image=image).count() == len(scene["objects"])


def test_a_pre_annotation_whose_every_image_fails_fails_with_the_first_reason(
    collection, reviewer, site, scene_images, connect, fake_backend
):
    connect()
    images = scene_images(2)
    fake_backend.down()
    job = preannotation_run(job_id=preannotation_create(collection=collection, user=reviewer, start=False).pk)
    assert job.status == JobStatus.FAILED and job.images_failed == 2
    assert job.message.startswith("Every image failed; the first: The model server could not be reached")
    assert [failure["image"] for failure in job.failures] == [image.pk for image, _, _ in images]
    assert not Prediction.objects.exists()


def test_a_pre_annotation_keeps_the_suggestions_of_an_image_someone_holds(
    collection, reviewer, annotator, site, scene_images, connect, fake_backend
):
    connect()
    [(held, _, _), (free, _, _)] = scene_images(2)
    person = collection.vocabulary.types.get(name="person")
    mine = Prediction.objects.create(image=held, object_type=person, x=1, y=1, w=5, h=5, model_version="old")
    theirs = Prediction.objects.create(
        image=free, object_type=person, x=1, y=1, w=5, h=5, model_version="old"
    )
    held.lease_holder = annotator
    held.lease_expires_at = held.created_at.replace(year=2100)
    held.save()
    preannotation_run(job_id=preannotation_create(collection=collection, user=reviewer, start=False).pk)
    assert list(Prediction.objects.filter(image=held)) == [mine]
    assert not Prediction.objects.filter(pk=theirs.pk).exists()
    assert Prediction.objects.filter(image=free).count() > 0


def test_the_annotation_queue_fetches_ahead_the_image_it_gives_and_the_next(
    collection, annotator, site, scene_images, connect, fake_backend
):
    images = scene_images(3)
    connect()
    given = annotation_next(collection=collection, user=annotator)  # the fetches ran eagerly on commit
    assert given == images[0][0]
    with_suggestions = set(Prediction.objects.values_list("image", flat=True))
    assert with_suggestions == {images[0][0].pk, images[1][0].pk}
    asked = len(fake_backend.seen("/predict"))
    assert annotation_next(collection=collection, user=annotator) == given  # held: nothing new to fetch
    assert len(fake_backend.seen("/predict")) == asked


def test_the_page_finds_the_suggestions_fetched_ahead_without_asking_again(
    api, collection, annotator, site, scene_images, connect, fake_backend
):
    [(image, scene, _), _] = scene_images(2)
    connect()
    assert annotation_next(collection=collection, user=annotator) == image
    asked = len(fake_backend.seen("/predict"))
    body = api.as_user(annotator).get(f"/api/v1/images/{image.pk}/suggestions/").json()
    assert body["state"] == "ready" and len(body["suggestions"]) == len(scene["objects"])
    assert body["model_version"] == "fake-detector-1"
    assert len(fake_backend.seen("/predict")) == asked


def test_the_page_fetches_within_its_bound_when_nothing_was_fetched_ahead(
    api, collection, annotator, site, scene_images, connect, fake_backend
):
    [(image, scene, _)] = scene_images(1)
    image.lease_holder, image.lease_expires_at = annotator, image.created_at.replace(year=2100)
    image.save()
    connect()
    body = api.as_user(annotator).get(f"/api/v1/images/{image.pk}/suggestions/").json()
    assert body["state"] == "ready" and len(body["suggestions"]) == len(scene["objects"])
    fake_backend.set_mode("slow", delay=3)
    Prediction.objects.all().delete()
    body = api.as_user(annotator).get(f"/api/v1/images/{image.pk}/suggestions/").json()
    assert body["state"] == "unavailable" and "within 1.5 s" in body["note"]
