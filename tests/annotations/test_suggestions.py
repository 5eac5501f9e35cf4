"""A model's suggestions on the annotator's side (decision 0078): accepting is saving an object that names
one, `suggestion_edited` is worked out by the server, a deleted box's suggestion goes back to rejected,
and a rejection is the lease holder's, twice the same, and refused for a suggestion a saved box comes from.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from annotations.models import ObjectAnnotation, PredictionStatus, Stage
from tests.factories import ImageFactory, PredictionFactory, model_backend

pytestmark = pytest.mark.django_db

WALKER = ["female", "adult", "walking", "on sidewalk"]


def url(image) -> str:
    return f"/api/v1/images/{image.pk}/annotation/"


def accepted(prediction, **changes) -> dict:
    """An object as the page makes it when the annotator accepts the suggestion, with `changes`."""
    obj = {
        "id": f"s{prediction.pk}",
        "type": prediction.object_type.name,
        "bbox": [prediction.x, prediction.y, prediction.w, prediction.h],
        "attributes": list(prediction.attributes),
        "suggestion": prediction.pk,
    }
    return obj | changes


def save(api, user, image, *objects):
    return api.as_user(user).put(url(image), {"objects": list(objects), "relationships": []}, format="json")


@pytest.fixture
def predictions(leased_image):
    walker = PredictionFactory(image=leased_image, bbox=[10, 20, 30, 60], attributes=WALKER, score=0.95)
    car = PredictionFactory(
        image=leased_image, type="vehicle", bbox=[200, 100, 150, 80], attributes=["car"], score=0.6
    )
    return walker, car


def test_an_accepted_suggestion_is_stored_with_its_object_and_not_edited(
    api, annotator, leased_image, predictions
):
    walker, car = predictions
    # Moved by half a pixel (the page rounds): still the suggestion's box.
    response = save(api, annotator, leased_image, accepted(walker, bbox=[10.5, 20, 30, 60]))
    assert response.status_code == 200, response.content
    row = ObjectAnnotation.objects.get(image=leased_image)
    assert (row.suggestion_id, row.suggestion_edited) == (walker.pk, False)
    walker.refresh_from_db()
    assert (walker.status, walker.decided_by) == (PredictionStatus.ACCEPTED, annotator)
    assert walker.decided_at is not None
    car.refresh_from_db()
    assert car.status == PredictionStatus.PENDING
    assert response.json()["objects"][0]["suggestion"] == {
        "id": walker.pk,
        "model_version": "v3",
        "score": 0.95,
        "edited": False,
    }


@pytest.mark.parametrize(
    "change",
    [
        {"bbox": [13, 20, 30, 60]},  # moved 3 px
        {"bbox": [10, 20, 30, 70]},  # taller
        {"type": "vehicle", "attributes": []},
        {"attributes": ["male", "adult", "walking", "on sidewalk"]},
    ],
    ids=["moved", "resized", "retyped", "attribute changed"],
)
def test_edited_is_worked_out_by_the_server(api, annotator, leased_image, predictions, change):
    walker, _ = predictions
    response = save(api, annotator, leased_image, accepted(walker, **change))
    assert response.status_code == 200, response.content
    assert ObjectAnnotation.objects.get(image=leased_image).suggestion_edited is True
    assert response.json()["objects"][0]["suggestion"]["edited"] is True


def test_the_client_cannot_say_edited(api, annotator, leased_image, predictions):
    walker, _ = predictions
    obj = accepted(walker, suggestion={"id": walker.pk, "edited": True}, bbox=[10, 20, 30, 60])
    assert save(api, annotator, leased_image, obj).status_code == 200
    assert ObjectAnnotation.objects.get(image=leased_image).suggestion_edited is False


def test_a_record_read_back_saves_again_unchanged(api, annotator, leased_image, predictions):
    walker, _ = predictions
    record = save(api, annotator, leased_image, accepted(walker)).json()
    record.pop("lease_expires_at")
    again = api.as_user(annotator).put(url(leased_image), record, format="json")
    assert again.status_code == 200, again.content
    assert ObjectAnnotation.objects.get(image=leased_image).suggestion_id == walker.pk


def test_another_images_suggestion_is_refused_naming_the_object(api, annotator, leased_image, predictions):
    walker, _ = predictions
    elsewhere = PredictionFactory(image=ImageFactory(collection=leased_image.collection))
    drawn = {"id": "a", "type": "person", "bbox": [300, 20, 30, 60], "attributes": []}
    response = save(api, annotator, leased_image, accepted(walker), drawn, accepted(elsewhere))
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "suggestion_not_of_image"
    assert list(body["fields"]) == ["objects[2].suggestion"]
    assert body["message"].startswith("objects[2].suggestion:")
    assert str(elsewhere.pk) not in body["message"]  # never an internal id in a message
    assert not ObjectAnnotation.objects.filter(image=leased_image).exists()  # all or nothing
    walker.refresh_from_db()
    assert walker.status == PredictionStatus.PENDING


def test_one_suggestion_named_by_two_objects_is_refused(api, annotator, leased_image, predictions):
    walker, _ = predictions
    response = save(api, annotator, leased_image, accepted(walker), accepted(walker, id="again"))
    assert response.status_code == 400
    assert list(response.json()["fields"]) == ["objects[1].suggestion"]


@pytest.mark.parametrize("value", ["7", True, -1, {"model_version": "v3"}])
def test_a_malformed_suggestion_is_a_400(api, annotator, leased_image, value):
    drawn = {"id": "a", "type": "person", "bbox": [300, 20, 30, 60], "suggestion": value}
    response = save(api, annotator, leased_image, drawn)
    assert response.status_code == 400
    assert list(response.json()["fields"]) == ["objects[0].suggestion"]


def test_a_removed_box_sends_its_suggestion_back_to_rejected(api, annotator, leased_image, predictions):
    walker, car = predictions
    assert save(api, annotator, leased_image, accepted(walker), accepted(car)).status_code == 200
    assert save(api, annotator, leased_image, accepted(car)).status_code == 200
    walker.refresh_from_db()
    car.refresh_from_db()
    assert (walker.status, walker.decided_by) == (PredictionStatus.REJECTED, annotator)
    assert car.status == PredictionStatus.ACCEPTED


def test_a_reviewers_correction_records_suggestions_too(api, annotator, reviewer, leased_image, predictions):
    walker, car = predictions
    assert save(api, annotator, leased_image, accepted(walker)).status_code == 200
    leased_image.refresh_from_db()
    leased_image.stage = Stage.REVIEW
    leased_image.lease_holder = reviewer
    leased_image.lease_expires_at = timezone.now() + timedelta(minutes=30)
    leased_image.save()
    response = api.as_user(reviewer).put(
        f"/api/v1/images/{leased_image.pk}/review/annotation/",
        {"objects": [accepted(walker, bbox=[10, 20, 40, 60]), accepted(car)], "relationships": []},
        format="json",
    )
    assert response.status_code == 200, response.content
    rows = list(ObjectAnnotation.objects.filter(image=leased_image).order_by("position"))
    assert [(r.suggestion_id, r.suggestion_edited) for r in rows] == [(walker.pk, True), (car.pk, False)]


def test_an_import_stores_no_suggestion(leased_image):
    from annotations.selectors.vocabularies import vocabulary_index
    from annotations.services.annotation import annotation_insert, parse_annotation

    index = vocabulary_index(leased_image.collection.vocabulary)
    document = {"objects": [{"id": "a", "type": "person", "bbox": [1, 1, 10, 20], "suggestion": 1}]}
    annotation_insert(
        images=[leased_image], scenes=[parse_annotation(leased_image, document, index.core)], index=index
    )
    row = ObjectAnnotation.objects.get(image=leased_image)
    assert (row.suggestion_id, row.suggestion_edited) == (None, False)


# --- rejecting ---------------------------------------------------------------------------------------------


def reject(api, user, prediction, action="reject"):
    return api.as_user(user).post(f"/api/v1/suggestions/{prediction.pk}/{action}/")


def test_a_rejection_is_idempotent_and_can_be_taken_back(api, annotator, predictions):
    walker, _ = predictions
    first = reject(api, annotator, walker)
    assert first.status_code == 200, first.content
    assert first.json()["status"] == "rejected"
    walker.refresh_from_db()
    decided_at = walker.decided_at
    assert (walker.status, walker.decided_by) == (PredictionStatus.REJECTED, annotator)
    assert reject(api, annotator, walker).status_code == 200
    walker.refresh_from_db()
    assert walker.decided_at == decided_at  # the second time changed nothing
    restored = reject(api, annotator, walker, "restore")
    assert restored.status_code == 200
    walker.refresh_from_db()
    assert (walker.status, walker.decided_by, walker.decided_at) == (PredictionStatus.PENDING, None, None)


@pytest.mark.parametrize("action", ["reject", "restore"])
def test_only_the_lease_holder_decides(api, other_annotator, predictions, action):
    walker, _ = predictions
    response = reject(api, other_annotator, walker, action)
    assert response.status_code == 409
    assert response.json()["code"] == "lease_not_held"
    walker.refresh_from_db()
    assert walker.status == PredictionStatus.PENDING


def test_an_outsider_does_not_see_the_suggestion(api, outsider, predictions):
    response = reject(api, outsider, predictions[0])
    assert response.status_code == 404
    assert response.json()["code"] == "suggestion_not_found"


def test_a_suggestion_a_saved_box_comes_from_is_not_rejected(api, annotator, leased_image, predictions):
    walker, _ = predictions
    assert save(api, annotator, leased_image, accepted(walker)).status_code == 200
    response = reject(api, annotator, walker)
    assert response.status_code == 409
    assert response.json()["code"] == "suggestion_accepted"
    walker.refresh_from_db()
    assert walker.status == PredictionStatus.ACCEPTED


# --- reading ------------------------------------------------------------------------------------------------


def suggestions(api, user, image):
    return api.as_user(user).get(f"/api/v1/images/{image.pk}/suggestions/")


def test_without_a_model_server_suggestions_are_off(api, annotator, predictions, leased_image):
    body = suggestions(api, annotator, leased_image).json()
    assert (body["state"], body["suggestions"]) == ("off", [])
    model_backend(leased_image.collection, enabled=False)
    assert suggestions(api, annotator, leased_image).json()["state"] == "off"


def test_suggestions_are_listed_pending_first_best_first(api, annotator, predictions, leased_image):
    walker, car = predictions
    model_backend(leased_image.collection)
    assert reject(api, annotator, walker).status_code == 200
    body = suggestions(api, annotator, leased_image).json()
    assert (body["state"], body["model_version"]) == ("ready", "v3")
    assert [(s["id"], s["status"]) for s in body["suggestions"]] == [
        (car.pk, "pending"),
        (walker.pk, "rejected"),
    ]
    assert body["suggestions"][0] | {"id": 0} == {
        "id": 0,
        "type": "vehicle",
        "bbox": [200.0, 100.0, 150.0, 80.0],
        "attributes": ["car"],
        "score": 0.6,
        "status": "pending",
        "model_version": "v3",
    }


# --- asking ahead ---------------------------------------------------------------------------------------------


def test_taking_an_image_asks_ahead_for_the_next_ones_suggestions(
    collection, annotator, other_annotator, monkeypatch, django_capture_on_commit_callbacks
):
    from annotations.services import queues

    asked: list[list[int]] = []
    monkeypatch.setattr(queues, "suggestions_fetch_ahead", lambda *, image_ids: asked.append(image_ids))
    others, mine, after = (ImageFactory(collection=collection) for _ in range(3))
    assert queues.annotation_next(collection=collection, user=other_annotator) == others
    with django_capture_on_commit_callbacks(execute=True):
        assert queues.annotation_next(collection=collection, user=annotator) == mine
    assert asked == []  # no model server: nothing is asked
    model_backend(collection)
    queues.image_leave(image=mine, user=annotator)
    with django_capture_on_commit_callbacks(execute=True):
        assert queues.annotation_next(collection=collection, user=annotator) == mine
    # The image taken, and the one they will take next: not the one someone else holds.
    assert asked == [[mine.pk, after.pk]]


def test_ids_beyond_the_databases_range_are_a_clean_answer(api, annotator, leased_image):
    drawn = {"id": "a", "type": "person", "bbox": [300, 20, 30, 60], "suggestion": 10**20}
    assert save(api, annotator, leased_image, drawn).status_code == 400
    assert api.as_user(annotator).post(f"/api/v1/suggestions/{10**20}/reject/").status_code == 404
