"""Suggestions fetched from a real HTTP server speaking Label Studio's ML backend protocol
(tests/fake_ml_backend.py), which fetches the demo's rendered pictures through the signed URLs it is
sent: the boxes it answers, and every way it can misbehave, changing nothing (decision 0078)."""

from __future__ import annotations

import pytest

from annotations.models import ModelBackend, Prediction, PredictionStatus
from annotations.selectors.vocabularies import core_vocabulary
from annotations.services.suggestion_check import model_backend_check
from annotations.services.suggestions import SuggestionsUnavailable, suggestions_fetch
from annotations.suggestions.config import labeling_config

pytestmark = pytest.mark.django_db(transaction=True)


def stored(image) -> list[tuple]:
    """The image's predictions as comparable rows (ids included: replaced rows get new ones)."""
    return list(
        Prediction.objects.filter(image=image)
        .order_by("pk")
        .values_list("pk", "object_type__name", "x", "y", "w", "h", "attributes", "score", "status")
    )


def test_the_scenes_boxes_come_back_in_pixels_with_their_attributes(
    site, scene_images, connect, fake_backend
):
    connect()
    [(image, scene, _)] = scene_images(1)
    fetched = suggestions_fetch(image_id=image.pk)
    assert fetched.written == len(scene["objects"]) and fetched.refused == []
    assert fetched.model_version == "fake-detector-1"
    predictions = {
        (p.object_type.name, round(p.x), round(p.y)): p for p in Prediction.objects.filter(image=image)
    }
    vocabulary = core_vocabulary(image.collection.vocabulary)
    for obj in scene["objects"]:
        x, y, w, h = obj["bbox"]
        prediction = predictions[(obj["type"], round(x), round(y))]
        assert (prediction.w, prediction.h) == pytest.approx((w, h))
        order = vocabulary.object_type(obj["type"]).bit_of
        assert prediction.attributes == sorted(obj["attributes"], key=order.__getitem__)
        assert 0.5 <= prediction.score <= 1 and prediction.status == PredictionStatus.PENDING
        assert prediction.model_version == "fake-detector-1"


def test_the_backend_is_sent_one_task_whose_only_url_is_the_signed_one_and_fetches_only_that(
    site, scene_images, connect, fake_backend
):
    connect()
    [(image, _, _)] = scene_images(1)
    suggestions_fetch(image_id=image.pk)
    [request] = fake_backend.seen("/predict")
    body = request.body
    [task] = body["tasks"]
    assert task["id"] == image.pk and list(task["data"]) == ["image"]
    assert task["data"]["image"].startswith(f"{site.url}/api/v1/signed/images/")
    assert fake_backend.fetched == [task["data"]["image"]]
    assert body["label_config"] == labeling_config(core_vocabulary(image.collection.vocabulary))
    assert body["project"].startswith(f"{image.collection_id}.")
    # No other address of the site in what it was sent: the pixels' URL is the only one.
    assert str(body).count("http") == 1


def test_recall_and_box_error_are_what_the_fake_was_told_and_the_same_each_time(
    site, scene_images, connect, fake_backend
):
    connect()
    images = scene_images(4)
    fake_backend.set_quality(recall=0.5, box_error=0.2)
    objects = sum(len(scene["objects"]) for _, scene, _ in images)
    first = sum(suggestions_fetch(image_id=image.pk).written for image, _, _ in images)
    assert 0.25 * objects < first < 0.75 * objects
    again = [[row[1:] for row in stored(image)] for image, _, _ in images]
    assert sum(suggestions_fetch(image_id=image.pk).written for image, _, _ in images) == first
    assert [[row[1:] for row in stored(image)] for image, _, _ in images] == again


def test_a_new_fetch_replaces_the_pending_suggestions_and_keeps_the_decided_ones(
    site, scene_images, connect, fake_backend
):
    connect()
    [(image, scene, _)] = scene_images(1)
    suggestions_fetch(image_id=image.pk)
    first, second, *_ = Prediction.objects.filter(image=image).order_by("pk")
    Prediction.objects.filter(pk=first.pk).update(status=PredictionStatus.ACCEPTED)
    Prediction.objects.filter(pk=second.pk).update(status=PredictionStatus.REJECTED)
    decided = [row for row in stored(image) if row[0] in (first.pk, second.pk)]
    suggestions_fetch(image_id=image.pk)
    after = stored(image)
    assert [row for row in after if row[0] in (first.pk, second.pk)] == decided
    pending = [row for row in after if row[-1] == PredictionStatus.PENDING]
    assert len(pending) == len(scene["objects"]) and all(row[0] > second.pk for row in pending)


FAULTS = {
    "error": "answered /predict with HTTP 500",
    "garbage": "answer to /predict is not JSON",
    "garbage_json": "has no list of results",
    "wrong_task": "for another task than the one sent",
    "wrong_count": "holds 2 predictions for the 1 task sent",
    "redirect": "with a redirect, which is not followed",
    "outside": "every region of the answer was refused",
    "unknown_label": "every region of the answer was refused",
    "slow": "did not answer /predict within 2 s",
}


@pytest.mark.parametrize("mode", sorted(FAULTS))
def test_every_fault_changes_nothing_and_says_why(mode, site, scene_images, connect, fake_backend):
    connect()
    [(image, _, _)] = scene_images(1)
    suggestions_fetch(image_id=image.pk)
    before = stored(image)
    fake_backend.set_mode(mode, delay=4)
    with pytest.raises(SuggestionsUnavailable) as failure:
        suggestions_fetch(image_id=image.pk)
    assert FAULTS[mode] in failure.value.reason.lower() or FAULTS[mode] in failure.value.reason
    assert stored(image) == before
    assert ModelBackend.objects.get().last_error == failure.value.reason or mode in (
        "outside",
        "unknown_label",
    )


def test_a_backend_that_is_down_changes_nothing(site, scene_images, connect, fake_backend):
    connect()
    [(image, _, _)] = scene_images(1)
    suggestions_fetch(image_id=image.pk)
    before = stored(image)
    fake_backend.down()
    with pytest.raises(SuggestionsUnavailable, match="could not be reached"):
        suggestions_fetch(image_id=image.pk)
    assert stored(image) == before


def test_a_url_the_backend_names_is_never_fetched(site, scene_images, connect, fake_backend):
    connect()
    [(image, _, _)] = scene_images(1)
    fake_backend.set_mode("names_url")
    assert suggestions_fetch(image_id=image.pk).written > 0
    fake_backend.set_mode("redirect")
    with pytest.raises(SuggestionsUnavailable):
        suggestions_fetch(image_id=image.pk)
    assert fake_backend.seen("/elsewhere") == []


def test_a_picture_the_model_knows_nothing_of_is_an_answer_with_no_boxes_not_a_fault(
    site, scene_images, connect, fake_backend
):
    connect()
    [(image, _, digest)] = scene_images(1)
    del fake_backend.state.scenes[digest]
    fetched = suggestions_fetch(image_id=image.pk)
    assert (fetched.written, fetched.refused) == (0, [])
    assert ModelBackend.objects.get().last_error == ""


def test_a_fault_for_one_region_refuses_that_region_only(site, scene_images, connect, fake_backend):
    connect()
    [(image, _, digest)] = scene_images(1)
    fake_backend.state.scenes[digest] = {**fake_backend.state.scenes[digest]}
    scene = fake_backend.state.scenes[digest]
    scene["objects"] = [*scene["objects"], {**scene["objects"][0], "type": "unicorn", "bbox": [1, 1, 5, 5]}]
    fetched = suggestions_fetch(image_id=image.pk)
    assert fetched.written == len(scene["objects"]) - 1
    assert [r.reason for r in fetched.refused] == [
        "the label 'unicorn' is not an object type of the vocabulary"
    ]


@pytest.mark.parametrize("auth", ["basic", "header"])
def test_the_credential_is_sent_as_set_and_a_wrong_one_is_a_clear_fault(
    auth, site, scene_images, connect, fake_backend
):
    [(image, _, _)] = scene_images(1)
    if auth == "basic":
        fake_backend.require_basic("model-user", "right-password")
        connect(auth="basic", username="model-user", secret="wrong-password")
    else:
        fake_backend.require_header("X-Api-Key", "right-password")
        connect(auth="header", header_name="X-Api-Key", secret="wrong-password")
    with pytest.raises(SuggestionsUnavailable, match="refused the credential"):
        suggestions_fetch(image_id=image.pk)
    assert Prediction.objects.filter(image=image).count() == 0
    connect(
        auth=auth,
        username="model-user" if auth == "basic" else "",
        header_name="X-Api-Key" if auth == "header" else "",
        secret="right-password",
    )
    assert suggestions_fetch(image_id=image.pk).written > 0


def test_a_check_asks_health_then_setup_with_the_labeling_config_and_keeps_the_model_version(
    site, collection, connect, fake_backend
):
    fake_backend.set_model_version("yolo-7")
    backend = model_backend_check(backend=connect())
    assert backend.model_version == "yolo-7" and backend.last_error == "" and backend.checked_at
    assert [r.path for r in fake_backend.requests] == ["/health", "/setup"]
    setup = fake_backend.seen("/setup")[0].body
    assert setup == {
        "project": f"{collection.pk}.{int(collection.created_at.timestamp())}",
        "schema": labeling_config(core_vocabulary(collection.vocabulary)),
    }
    fake_backend.down()
    backend = model_backend_check(backend=backend)
    assert "could not be reached" in ModelBackend.objects.get().last_error
    assert ModelBackend.objects.get().model_version == "yolo-7"  # what it said last time


def test_an_answer_after_a_fault_clears_the_servers_last_error(site, scene_images, connect, fake_backend):
    connect()
    [(image, _, _)] = scene_images(1)
    fake_backend.set_mode("error")
    with pytest.raises(SuggestionsUnavailable):
        suggestions_fetch(image_id=image.pk)
    assert "HTTP 500" in ModelBackend.objects.get().last_error
    fake_backend.set_mode("ok")
    suggestions_fetch(image_id=image.pk)
    assert ModelBackend.objects.get().last_error == ""


def test_an_admin_checks_the_server_from_the_admin_list(site, users, connect, fake_backend):
    from django.test import Client
    from django.urls import reverse

    from accounts.roles import Role

    backend = connect()
    browser = Client()
    browser.force_login(users[Role.ADMIN])
    page = browser.post(
        reverse("admin:annotations_modelbackend_changelist"),
        {"action": "check_servers", "_selected_action": [backend.pk]},
        follow=True,
    )
    assert "answers (fake-detector-1)" in page.content.decode()
    fake_backend.down()
    page = browser.post(
        reverse("admin:annotations_modelbackend_changelist"),
        {"action": "check_servers", "_selected_action": [backend.pk]},
        follow=True,
    )
    assert "could not be reached" in page.content.decode()


def test_a_check_predicts_one_picture_and_says_when_site_url_is_not_where_the_site_serves_it(
    site, scene_images, connect, fake_backend, settings
):
    """Issue 46, item 2: a check that sent no image passed while every pre-annotation failed, the
    signed URLs pointing at a port where nothing answered. It sends one picture, as a fetch does, and
    says whether the fault is the address the URLs are made from."""
    backend = connect()
    [(image, _, _)] = scene_images(1)
    fake_backend.forget()
    assert model_backend_check(backend=backend).last_error == ""
    assert [r.path for r in fake_backend.requests] == ["/health", "/setup", "/predict"]
    assert fake_backend.fetched == [fake_backend.seen("/predict")[0].body["tasks"][0]["data"]["image"]]
    assert not Prediction.objects.filter(image=image).exists()  # a check stores nothing

    from tests.serving import free_port

    nowhere = f"http://127.0.0.1:{free_port()}/"
    settings.SITE_URL = nowhere
    error = model_backend_check(backend=backend).last_error
    assert error.startswith("/predict on one picture failed:")
    assert f"SITE_URL ({nowhere}), where this site itself does not serve it" in error
    assert ModelBackend.objects.get().last_error == error

    settings.SITE_URL = site.url + "/"
    fake_backend.set_mode("error")
    error = model_backend_check(backend=backend).last_error
    assert "HTTP 500" in error and f"This site serves the picture at {site.url}/ (SITE_URL)" in error
