"""Issue 11, item 5: guessing is slowed down. Failed password logins (web and admin) and failed token
authentications are limited per address and per account; a user's live tokens are capped; an inactive
user's token is answered exactly like an unknown one."""

from __future__ import annotations

import secrets

import pytest

from accounts.roles import Role
from accounts.services import token_create

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("url", ["/login/", "/admin/login/"])
def test_many_wrong_passwords_lock_the_login_even_for_the_right_one(client, make_user, settings, url):
    user = make_user(Role.ADMIN, username="boss", password="right-password-1")
    statuses = [
        client.post(url, {"username": "boss", "password": f"wrong-{n}"}).status_code for n in range(15)
    ]
    assert statuses[: settings.AXES_FAILURE_LIMIT - 1] == [200] * (settings.AXES_FAILURE_LIMIT - 1)
    assert statuses[-1] == 429
    right = client.post(url, {"username": user.username, "password": "right-password-1"})
    assert right.status_code == 429
    assert "_auth_user_id" not in client.session


def test_wrong_passwords_for_many_accounts_from_one_address_are_limited_too(client, make_user, settings):
    make_user(Role.ANNOTATOR, username="victim", password="right-password-1")
    for n in range(settings.AXES_FAILURE_LIMIT):
        client.post("/login/", {"username": f"guess-{n}", "password": "x"})
    response = client.post("/login/", {"username": "victim", "password": "right-password-1"})
    assert response.status_code == 429


def test_random_tokens_are_throttled_per_address_and_the_answer_says_when_to_retry(api, settings):
    settings.AUTH_FAILURE_LIMIT = 30
    statuses = []
    for _ in range(60):
        response = api.get("/api/v1/me/", HTTP_AUTHORIZATION=f"Token vtt_{secrets.token_urlsafe(32)}")
        statuses.append(response.status_code)
    assert statuses[:30] == [401] * 30
    assert set(statuses[30:]) == {429}
    assert response.json()["code"] == "throttled"
    assert int(response["Retry-After"]) > 0
    other = api.get("/api/v1/me/", HTTP_AUTHORIZATION="Token vtt_x", REMOTE_ADDR="10.0.0.9")
    assert other.status_code == 401  # per address: another address is not blocked


def test_an_inactive_users_token_is_answered_like_an_unknown_token(api, make_user):
    user = make_user(Role.ANNOTATOR)
    _, secret = token_create(user=user, name="ci")
    user.is_active = False
    user.save()
    inactive = api.get("/api/v1/me/", HTTP_AUTHORIZATION=f"Token {secret}")
    unknown = api.get("/api/v1/me/", HTTP_AUTHORIZATION=f"Token vtt_{secrets.token_urlsafe(32)}")
    assert inactive.status_code == unknown.status_code == 401
    assert inactive.json() == unknown.json()


def test_a_user_holds_a_limited_number_of_live_tokens(api, make_user, settings):
    settings.TOKENS_MAX_PER_USER = 3
    client = api.as_user(make_user(Role.ANNOTATOR))
    created = [client.post("/api/v1/tokens/", {"name": f"t{n}"}) for n in range(3)]
    assert [r.status_code for r in created] == [201] * 3
    refused = client.post("/api/v1/tokens/", {"name": "t3"})
    assert refused.status_code == 409
    assert refused.json()["code"] == "token_limit_reached"
    assert client.delete(f"/api/v1/tokens/{created[0].json()['id']}/").status_code == 204
    assert client.post("/api/v1/tokens/", {"name": "t3"}).status_code == 201


@pytest.mark.parametrize("name", ["bad\x00name", "line\nbreak", "tab\tname"])
def test_token_names_refuse_control_characters(api, make_user, name):
    response = api.as_user(make_user(Role.ANNOTATOR)).post("/api/v1/tokens/", {"name": name})
    assert response.status_code == 400
    assert "name" in response.json()["fields"]
