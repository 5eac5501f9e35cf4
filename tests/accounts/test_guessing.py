"""Issue 11, item 5: guessing is slowed down. Failed password logins (web and admin) and failed token
authentications are limited per address and per account; a user's live tokens are capped; an inactive
user's token is answered exactly like an unknown one."""

from __future__ import annotations

import ipaddress
import secrets

import pytest

from accounts.roles import Role
from accounts.services import token_create
from accounts.throttling import TokenRateThrottle

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


def test_a_valid_token_is_served_from_an_address_that_failed_too_often(api, make_user, settings):
    """Issue 22, item 2: after 31 made-up tokens from one address, every valid token from there (an
    admin's too) got 429 for minutes. Failures slow only further failures."""
    settings.AUTH_FAILURE_LIMIT = 30
    _, admin_secret = token_create(user=make_user(Role.ADMIN), name="admin")
    _, own_secret = token_create(user=make_user(Role.ANNOTATOR), name="own")
    for _ in range(35):
        api.get("/api/v1/me/", HTTP_AUTHORIZATION=f"Token vtt_{secrets.token_urlsafe(32)}")
    made_up = api.get("/api/v1/me/", HTTP_AUTHORIZATION=f"Token vtt_{secrets.token_urlsafe(32)}")
    assert made_up.status_code == 429
    for secret in (admin_secret, own_secret):
        assert api.get("/api/v1/me/", HTTP_AUTHORIZATION=f"Token {secret}").status_code == 200
    again = api.get("/api/v1/me/", HTTP_AUTHORIZATION=f"Token vtt_{secrets.token_urlsafe(32)}")
    assert again.status_code == 429  # a success does not reset the count of failures


def test_a_valid_token_is_still_subject_to_its_own_rate_limit(api, make_user, settings, monkeypatch):
    settings.AUTH_FAILURE_LIMIT = 2
    monkeypatch.setitem(TokenRateThrottle.THROTTLE_RATES, "token", "3/min")
    _, secret = token_create(user=make_user(Role.ANNOTATOR), name="own")
    for _ in range(5):
        api.get("/api/v1/me/", HTTP_AUTHORIZATION="Token vtt_nope")
    statuses = [api.get("/api/v1/me/", HTTP_AUTHORIZATION=f"Token {secret}").status_code for _ in range(5)]
    assert statuses == [200, 200, 200, 429, 429]


FORWARDED = {"REMOTE_ADDR": "10.1.0.5"}  # the proxy


@pytest.mark.parametrize("trusted", [["10.1.0.0/16"], []])
def test_behind_a_trusted_proxy_each_client_is_counted_by_its_own_address(api, settings, trusted):
    """Behind a proxy every client had the proxy's address, so one guesser slowed all of them; from a
    peer that is not a trusted proxy, X-Forwarded-For is the client's own word and ignored."""
    from django.test import override_settings

    settings.AUTH_FAILURE_LIMIT = 3
    networks = [ipaddress.ip_network(n) for n in trusted]
    with override_settings(TRUSTED_PROXIES=networks):
        for n in range(6):  # a guesser that forges a new X-Forwarded-For each time
            api.get(
                "/api/v1/me/",
                HTTP_AUTHORIZATION="Token vtt_nope",
                HTTP_X_FORWARDED_FOR=f"203.0.113.{n}, 198.51.100.7",
                **FORWARDED,
            )
        other = api.get(
            "/api/v1/me/", HTTP_AUTHORIZATION="Token vtt_typo", HTTP_X_FORWARDED_FOR="192.0.2.44", **FORWARDED
        )
    # Trusted: the guesser is 198.51.100.7 (the address the proxy saw), the other client is not slowed.
    # Not trusted: both are the proxy's address, and the forged headers did not spread the guesses out.
    assert other.status_code == (401 if trusted else 429)


def test_password_logins_behind_a_trusted_proxy_lock_out_the_guesser_only(client, make_user, settings):
    settings.TRUSTED_PROXIES = [ipaddress.ip_network("10.1.0.0/16")]
    user = make_user(Role.ANNOTATOR, username="someone", password="right-password-1")
    for n in range(settings.AXES_FAILURE_LIMIT + 1):
        client.post(
            "/login/",
            {"username": f"guess-{n}", "password": "x"},
            HTTP_X_FORWARDED_FOR="198.51.100.7",
            **FORWARDED,
        )
    right = client.post(
        "/login/",
        {"username": user.username, "password": "right-password-1"},
        HTTP_X_FORWARDED_FOR="192.0.2.44",
        **FORWARDED,
    )
    assert right.status_code == 302
    assert client.session["_auth_user_id"] == str(user.pk)


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
