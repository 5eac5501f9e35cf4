"""API tokens: shown once, stored hashed, named, revocable, expiring, rate limited per token."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from accounts.models import ApiToken
from accounts.roles import Role
from accounts.throttling import TokenRateThrottle

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner(users):
    return users[Role.VISION_SYSTEM_OWNER]


def create_token(api, user, **data) -> dict:
    response = api.as_user(user).post("/api/v1/tokens/", {"name": "ci", **data})
    assert response.status_code == 201, response.content
    api.force_authenticate(user=None)
    return response.json()


def test_the_secret_is_shown_once_and_only_its_digest_is_stored(api, owner):
    created = create_token(api, owner)
    secret = created["token"]
    assert secret.startswith("vtt_") and len(secret) > 40
    stored = ApiToken.objects.get(pk=created["id"])
    assert secret not in {stored.digest, stored.prefix}
    assert stored.prefix == secret[:12]
    with connection.cursor() as cursor:
        cursor.execute("SELECT digest, prefix, name FROM accounts_apitoken")
        assert all(secret not in value for row in cursor.fetchall() for value in row)
    listing = api.as_user(owner).get("/api/v1/tokens/").json()["results"]
    assert listing[0]["name"] == "ci" and "token" not in listing[0]


def test_a_program_authenticates_with_its_token(api, owner):
    secret = create_token(api, owner)["token"]
    for scheme in ("Token", "Bearer"):
        response = api.get("/api/v1/me/", HTTP_AUTHORIZATION=f"{scheme} {secret}")
        assert response.status_code == 200
        assert response.json()["username"] == owner.username
        assert response.json()["roles"] == ["vision-system owner"]
    assert ApiToken.objects.get().last_used_at is not None


@pytest.mark.parametrize("header", ["Token nope", "Token", "Token a b", "Bearer vtt_wrong"])
def test_a_bad_token_is_401(api, header):
    response = api.get("/api/v1/me/", HTTP_AUTHORIZATION=header)
    assert response.status_code == 401
    assert response.json()["code"] == "authentication_failed"


def test_a_revoked_token_stops_working(api, owner):
    created = create_token(api, owner)
    assert api.as_user(owner).delete(f"/api/v1/tokens/{created['id']}/").status_code == 204
    api.force_authenticate(user=None)
    assert api.get("/api/v1/me/", HTTP_AUTHORIZATION=f"Token {created['token']}").status_code == 401
    again = api.as_user(owner).delete(f"/api/v1/tokens/{created['id']}/")
    assert again.status_code == 409 and again.json()["code"] == "token_already_revoked"


def test_an_expired_token_stops_working(api, owner):
    created = create_token(api, owner, expires_in_days=1)
    ApiToken.objects.filter(pk=created["id"]).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert api.get("/api/v1/me/", HTTP_AUTHORIZATION=f"Token {created['token']}").status_code == 401


def test_nobody_revokes_someone_elses_token(api, owner, users):
    created = create_token(api, owner)
    response = api.as_user(users[Role.ANNOTATOR]).delete(f"/api/v1/tokens/{created['id']}/")
    assert response.status_code == 404
    assert ApiToken.objects.get(pk=created["id"]).revoked_at is None


def test_token_names_are_unique_among_live_tokens(api, owner):
    first = create_token(api, owner)
    clash = api.as_user(owner).post("/api/v1/tokens/", {"name": "ci"})
    assert clash.status_code == 409 and clash.json()["code"] == "token_name_taken"
    api.delete(f"/api/v1/tokens/{first['id']}/")
    assert api.post("/api/v1/tokens/", {"name": "ci"}).status_code == 201


def test_requests_are_rate_limited_per_token(api, owner, monkeypatch):
    monkeypatch.setitem(TokenRateThrottle.THROTTLE_RATES, "token", "3/min")
    first = create_token(api, owner)["token"]
    api.force_authenticate(user=owner)
    second = api.post("/api/v1/tokens/", {"name": "other"}).json()["token"]
    api.force_authenticate(user=None)
    statuses = [api.get("/api/v1/me/", HTTP_AUTHORIZATION=f"Token {first}").status_code for _ in range(4)]
    assert statuses == [200, 200, 200, 429]
    throttled = api.get("/api/v1/me/", HTTP_AUTHORIZATION=f"Token {first}")
    assert throttled.json()["code"] == "throttled" and "Retry-After" in throttled
    # Another token of the same user has its own budget.
    assert api.get("/api/v1/me/", HTTP_AUTHORIZATION=f"Token {second}").status_code == 200
