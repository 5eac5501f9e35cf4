"""Issue 11, item 1: Redis unavailable is a degraded service, not an outage.

Redis is "down" by pointing the cache and the broker at a port where nothing listens (the shared Redis
server is left alone): reads still work with rate limits kept per process, the outage is logged once,
operations that queue a task answer 503 with Retry-After and change nothing, web pages work, and
/readyz names what is down."""

from __future__ import annotations

import logging

import pytest

from accounts.roles import Role
from accounts.services import token_create
from datasets.models import ImportJob
from tests.annotations.images import upload
from vtt_site import broker
from vtt_site.cache import resilient_cache

pytestmark = pytest.mark.django_db

DOWN = "redis://127.0.0.1:6390/0"


@pytest.fixture
def redis_down(settings):
    from vtt_site.celery import app

    settings.REDIS_URL = DOWN
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": DOWN,
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1},
        }
    }
    previous = app.conf.broker_url, app.conf.task_always_eager
    app.conf.broker_url, app.conf.task_always_eager = DOWN, False
    broker.forget()
    resilient_cache.reset()
    yield
    app.conf.broker_url, app.conf.task_always_eager = previous
    broker.forget()
    resilient_cache.reset()


def test_reads_work_with_a_token_and_the_outage_is_logged_once(api, make_user, redis_down, caplog):
    _, secret = token_create(user=make_user(Role.ANNOTATOR), name="ci")
    with caplog.at_level(logging.ERROR, logger="vtt_site.cache"):
        for _ in range(3):
            response = api.get("/api/v1/me/", HTTP_AUTHORIZATION=f"Token {secret}")
            assert response.status_code == 200, response.content
            assert api.get("/api/v1/vocabularies/", HTTP_AUTHORIZATION=f"Token {secret}").status_code == 200
    assert len([r for r in caplog.records if "cache is unavailable" in r.getMessage()]) == 1


def test_rate_limits_still_hold_per_process(api, make_user, redis_down, settings):
    settings.AUTH_FAILURE_LIMIT = 3
    statuses = [api.get("/api/v1/me/", HTTP_AUTHORIZATION="Token vtt_nope").status_code for _ in range(5)]
    assert statuses == [401, 401, 401, 429, 429]


def test_an_operation_that_queues_a_task_answers_503_with_retry_after(api, users, redis_down):
    from annotations.models import MemberRole
    from tests.factories import CollectionFactory, MembershipFactory

    collection = CollectionFactory()
    MembershipFactory(collection=collection, user=users[Role.REVIEWER], role=MemberRole.REVIEWER)
    response = api.as_user(users[Role.REVIEWER]).post(
        f"/api/v1/collections/{collection.pk}/imports/",
        {"file": upload("s.jsonl", b"{}\n"), "format": "jsonl"},
        format="multipart",
    )
    assert response.status_code == 503
    assert set(response.json()) == {"code", "message", "fields"}
    assert response.json()["code"] == "service_unavailable"
    assert int(response["Retry-After"]) > 0
    assert not ImportJob.objects.exists()
    fit = api.as_user(users[Role.ADMIN]).post(
        "/api/v1/statistics/", {"collection": collection.pk}, format="json"
    )
    assert fit.status_code == 503


def test_web_pages_work_and_readyz_says_what_is_down(client, users, redis_down):
    client.force_login(users[Role.ANNOTATOR])
    assert client.get("/").status_code == 200
    ready = client.get("/readyz")
    assert ready.status_code == 503
    checks = ready.json()["checks"]
    assert checks["database"]["ok"] is True
    assert checks["broker"]["ok"] is False and checks["cache"]["ok"] is False
