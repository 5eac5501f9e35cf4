"""The engine API: list (with summary figures), ask for a fit, read, estimate."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.roles import Role
from engine import services
from engine.models import FittedStatistics

pytestmark = pytest.mark.django_db


@pytest.fixture
def ready(trained_collection):
    statistics = services.statistics_fit_start(user=None, collections=[trained_collection])
    return services.statistics_fit_run(statistics_id=statistics.pk)


def test_an_admin_asks_for_a_fit_and_follows_it(
    api, users, trained_collection, django_capture_on_commit_callbacks
):
    client = api.as_user(users[Role.ADMIN])
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/api/v1/statistics/", {"collections": [trained_collection.pk]})
    assert response.status_code == 202
    detail = client.get(f"/api/v1/statistics/{response.json()['id']}/").json()
    assert detail["status"] == "ready" and detail["images"] == 60
    assert detail["collections"] == [{"id": trained_collection.pk, "name": trained_collection.name}]
    assert set(detail["summary"]["types"]) == {"person", "vehicle"}


def test_bad_fit_requests_are_400s(api, users, trained_collection):
    client = api.as_user(users[Role.ADMIN])
    assert client.post("/api/v1/statistics/", {"collections": []}).json()["code"] == "invalid"
    missing = client.post("/api/v1/statistics/", {"collections": [999999]})
    assert missing.status_code == 404 and missing.json()["code"] == "collection_not_found"
    assert not FittedStatistics.objects.exists()


def test_the_list_has_summary_figures_in_a_fixed_number_of_queries(api, users, trained_collection):
    client = api.as_user(users[Role.VISION_SYSTEM_OWNER])
    first = services.statistics_fit_start(user=None, collections=[trained_collection])
    services.statistics_fit_run(statistics_id=first.pk)
    client.get("/api/v1/statistics/")  # warm the per-request caches (the user's roles)
    with CaptureQueriesContext(connection) as one:
        assert client.get("/api/v1/statistics/").json()["count"] == 1
    for _ in range(4):
        services.statistics_fit_start(user=None, collections=[trained_collection])
    with CaptureQueriesContext(connection) as five:
        page = client.get("/api/v1/statistics/").json()
    assert page["count"] == 5
    assert len(five.captured_queries) == len(one.captured_queries) <= 4
    assert page["results"][-1]["images"] == 60


def test_estimate(api, users, ready):
    client = api.as_user(users[Role.OPERATOR])
    history = [
        {
            "question": {
                "kind": "unique",
                "type": "person",
                "attributes": ["female"],
                "region": {"id": "whole"},
            },
            "answer": "yes",
        }
    ]
    body = {
        "history": history,
        "question": {"kind": "attr", "label": "person 1", "attributes": ["female"]},
        "width": 640,
        "height": 480,
    }
    response = client.post(f"/api/v1/statistics/{ready.pk}/estimate/", body, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["p"] == 1.0 and response.json()["text"] == "Is person 1 female?"
    # A region given by its pixel box is the same question.
    body["question"] = {
        "kind": "exist",
        "type": "vehicle",
        "attributes": [],
        "region": {"box": [0, 0, 320, 480]},
    }
    assert (
        client.post(f"/api/v1/statistics/{ready.pk}/estimate/", body, format="json").json()["population"] > 0
    )


@pytest.mark.parametrize(
    ("question", "code", "where"),
    [
        ({"kind": "attr", "label": "person 2", "attributes": ["male"]}, "label_not_instantiated", "question"),
        (
            {"kind": "attr", "label": "person 1", "attributes": ["purple"]},
            "unknown_attribute",
            "question.attributes",
        ),
        (
            {"kind": "exist", "type": "person", "region": {"box": [1, 2, 3, 4]}},
            "unknown_region",
            "question.region.box",
        ),
    ],
)
def test_estimate_refuses_bad_questions_with_the_place(api, users, ready, question, code, where):
    history = [
        {
            "question": {"kind": "unique", "type": "person", "attributes": [], "region": "whole"},
            "answer": "yes",
        }
    ]
    response = api.as_user(users[Role.OPERATOR]).post(
        f"/api/v1/statistics/{ready.pk}/estimate/",
        {"history": history, "question": question, "width": 640, "height": 480},
        format="json",
    )
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == code and list(body["fields"]) == [where], body


def test_estimate_on_statistics_that_are_not_ready_is_a_409(api, users, trained_collection):
    statistics = services.statistics_fit_start(user=None, collections=[trained_collection])
    response = api.as_user(users[Role.OPERATOR]).post(
        f"/api/v1/statistics/{statistics.pk}/estimate/",
        {
            "history": [],
            "question": {"kind": "exist", "type": "person", "region": "whole"},
            "width": 640,
            "height": 480,
        },
        format="json",
    )
    assert response.status_code == 409 and response.json()["code"] == "statistics_not_ready"
