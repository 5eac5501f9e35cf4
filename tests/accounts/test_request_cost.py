"""What every API request with a token pays, made cheap without changing what it decides (decision
0033): the token, its user and roles in one query; rate limits counted in sliding windows, one round trip
to Redis."""

from __future__ import annotations

import os
import uuid

import pytest
from django.contrib.auth.models import Group
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.roles import Role, roles_of
from accounts.selectors import token_with_roles
from accounts.services import token_create
from accounts.throttling import TokenRateThrottle, seconds_until_allowed, window_estimate
from accounts.tokens import digest_of
from vtt_site.cache import RedisCache

pytestmark = pytest.mark.django_db


def test_the_token_its_user_and_roles_come_in_one_query(make_user):
    user = make_user(Role.OPERATOR)
    user.groups.add(Group.objects.get(name=Role.REVIEWER.value))
    token, secret = token_create(user=user, name="ci")
    with CaptureQueriesContext(connection) as queries:
        found = token_with_roles(digest=digest_of(secret))
        assert found is not None and found.pk == token.pk and found.user.username == user.username
        assert found.expires_at is None and found.created_at == token.created_at
        assert roles_of(found.user) == {Role.OPERATOR, Role.REVIEWER}
    assert len(queries) == 1
    assert token_with_roles(digest=digest_of(secret + "x")) is None


def test_a_user_without_a_role_has_none(make_user):
    user = make_user(None, is_active=False)
    _, secret = token_create(user=user, name="ci")
    found = token_with_roles(digest=digest_of(secret))
    assert found is not None and found.user.is_active is False and roles_of(found.user) == frozenset()


def test_a_revoked_role_is_refused_at_once(api, make_user):
    user = make_user(Role.VISION_SYSTEM_OWNER)
    _, secret = token_create(user=user, name="ci")
    headers = {"HTTP_AUTHORIZATION": f"Token {secret}"}
    assert api.get("/api/v1/evaluation/systems/", **headers).status_code == 200
    user.groups.clear()
    assert api.get("/api/v1/evaluation/systems/", **headers).status_code == 403


@pytest.mark.parametrize(
    ("current", "previous", "elapsed", "wait"),
    [
        (2, 0, 10.0, 50.0),  # this window is full: wait for the next, which starts empty
        (0, 3, 0.0, 20.0),  # the previous window's 3 slide out: one more fits once a third has gone
        (1, 3, 30.0, 10.0),  # 3 * (1 - 40/60) + 1 + 1 = 3
        (0, 1, 30.0, 0.0),  # fits already
        (3, 3, 0.0, 60.0 + 20.0),  # next window, then a third of this one's three must slide out
    ],
)
def test_the_wait_is_until_one_more_request_fits(current, previous, elapsed, wait):
    assert seconds_until_allowed(
        limit=3, duration=60, elapsed=elapsed, current=current, previous=previous
    ) == pytest.approx(wait)
    later = elapsed + wait
    window_now = (
        window_estimate(duration=60, elapsed=later, current=current, previous=previous)
        if later < 60
        else window_estimate(duration=60, elapsed=later - 60, current=0, previous=current)
    )
    assert window_now + 1 <= 3 + 1e-9


def test_the_limit_slides_instead_of_resetting_at_the_window(api, make_user, monkeypatch):
    monkeypatch.setitem(TokenRateThrottle.THROTTLE_RATES, "token", "3/min")
    now = [60 * 1000 + 50.0]  # 50 s into a window
    monkeypatch.setattr(TokenRateThrottle, "timer", lambda self: now[0])
    _, secret = token_create(user=make_user(Role.ANNOTATOR), name="ci")

    def status() -> int:
        return api.get("/api/v1/me/", HTTP_AUTHORIZATION=f"Token {secret}").status_code

    assert [status() for _ in range(4)] == [200, 200, 200, 429]
    now[0] += 20  # 10 s into the next window: the three are still within the last minute
    refused = api.get("/api/v1/me/", HTTP_AUTHORIZATION=f"Token {secret}")
    assert refused.status_code == 429 and int(refused["Retry-After"]) == 10  # at 20 s, a third is out
    now[0] += 40  # 50 s in: five sixths of them have slid out
    assert [status() for _ in range(3)] == [200, 200, 429]


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs Redis (make test sets REDIS_URL)")
def test_a_window_hit_is_one_script_on_redis():
    cache = RedisCache(os.environ["REDIS_URL"], {})
    key, previous = f"test-window:{uuid.uuid4()}", f"test-window:{uuid.uuid4()}"
    try:
        assert cache.window_hit(key, previous, 30) == (1, 0)
        cache.set(previous, 7, 30)
        assert cache.window_hit(key, previous, 30) == (2, 7)
        client = cache._cache.get_client(cache.make_and_validate_key(key), write=True)
        assert 0 < client.ttl(cache.make_and_validate_key(key)) <= 30
        assert cache.get(key) == 2  # an ordinary counter for the rest of Django's cache API
    finally:
        cache.delete_many([key, previous])
