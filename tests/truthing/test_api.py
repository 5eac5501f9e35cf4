"""The truthing API's refusals, as a client sees them: a clear 4xx in the error shape, and nothing changed."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts.roles import Role
from annotations.models import Split
from truthing.models import Step, Stream, Test
from truthing.services import lifecycle

pytestmark = pytest.mark.django_db(transaction=True)


def client_of(user) -> APIClient:
    """A client of its own per user (the `api` fixture is one client that switches users)."""
    client = APIClient()
    client.force_authenticate(user)
    return client


def snapshot(stream):
    return list(
        Step.objects.filter(stream=stream).order_by("index").values_list("index", "answer", "question")
    )


def test_answers_out_of_turn_out_of_lease_unknown_or_in_a_published_test_are_refused(
    api, make_test, unannotated_test_images, operators
):
    lifecycle.start_test(test=make_test(unannotated_test_images[:2]))
    first, second = (client_of(user) for user in operators[:2])
    mine = first.post("/api/v1/truthing/queue/next/").json()
    theirs = second.post("/api/v1/truthing/queue/next/").json()
    stream = Stream.objects.get(pk=mine["id"])
    before = snapshot(stream)
    url = f"/api/v1/truthing/streams/{mine['id']}/answer/"

    response = first.post(url, {"step": mine["pending"]["step"] + 1, "answer": "yes"}, format="json")
    assert response.status_code == 409 and response.json()["code"] == "step_not_pending"
    response = first.post(
        f"/api/v1/truthing/streams/{theirs['id']}/answer/", {"step": 0, "answer": "yes"}, format="json"
    )
    assert response.status_code == 409 and response.json()["code"] == "lease_not_held"
    response = first.post(url, {"step": 0, "answer": "maybe"}, format="json")
    assert response.status_code == 400 and list(response.json()["fields"]) == ["answer"]
    assert snapshot(stream) == before

    # Reading a stream one does not hold is refused too: its labels say how it was answered.
    response = second.get(f"/api/v1/truthing/streams/{mine['id']}/")
    assert response.status_code == 404

    answered = first.post(url, {"step": 0, "answer": "no", "seconds": 2.5}, format="json")
    assert answered.status_code == 200 and answered.json()["progress"]["answered"] == 1


def test_publishing_an_unfinished_test_and_answering_a_published_one_are_409s(
    api, users, make_test, unannotated_test_images, operators
):
    test = lifecycle.start_test(test=make_test(unannotated_test_images[:1]))
    admin = client_of(users[Role.ADMIN])
    response = admin.post(f"/api/v1/truthing/tests/{test.pk}/publish/")
    assert response.status_code == 409 and response.json()["code"] == "test_unfinished"
    assert "1 stream has not ended" in response.json()["message"]
    operator = client_of(operators[0])
    work = operator.post("/api/v1/truthing/queue/next/").json()
    while work["state"] != "ended":
        if work["pending"] is None:
            work = operator.get(f"/api/v1/truthing/streams/{work['id']}/").json()
            continue
        work = operator.post(
            f"/api/v1/truthing/streams/{work['id']}/answer/",
            {"step": work["pending"]["step"], "answer": "no"},
            format="json",
        ).json()
        if work["state"] == "proposing":
            work = operator.get(f"/api/v1/truthing/streams/{work['id']}/").json()
    assert admin.post(f"/api/v1/truthing/tests/{test.pk}/publish/").status_code == 200
    stream = Stream.objects.get(test_image__test=test)
    before = snapshot(stream)
    last = stream.steps.order_by("-index").first()
    response = operator.post(f"/api/v1/truthing/streams/{stream.pk}/undo/")
    assert response.status_code == 409 and response.json()["code"] == "test_frozen"
    response = operator.post(
        f"/api/v1/truthing/streams/{stream.pk}/answer/", {"step": last.index, "answer": "yes"}, format="json"
    )
    assert response.status_code == 409
    assert snapshot(stream) == before
    card = admin.get(f"/api/v1/truthing/tests/{test.pk}/").json()
    assert card["test"]["state"] == "published" and card["card"]["streams_ended"] == 1


def test_a_test_image_that_trained_the_statistics_is_a_400(api, users, statistics, trained_collection):
    trained = trained_collection.images.filter(split=Split.TRAIN).first()
    trained.split = Split.TEST  # moved to the test role after the fit: still refused
    trained.save(update_fields=["split"])
    response = api.as_user(users[Role.ADMIN]).post(
        "/api/v1/truthing/tests/",
        {"name": "leaky", "statistics": statistics.pk, "images": [trained.pk]},
        format="json",
    )
    assert response.status_code == 400 and response.json()["code"] == "training_image"
    assert trained.original_name in response.json()["message"]
    assert not Test.objects.exists()
