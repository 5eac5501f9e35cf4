from __future__ import annotations

import re

import pytest

from accounts.models import ApiToken
from accounts.roles import Role
from tests.factories import PASSWORD

pytestmark = pytest.mark.django_db


def test_pages_require_login(client):
    response = client.get("/")
    assert response.status_code == 302
    assert response["Location"].startswith("/login/")


def test_login_with_username_and_password_then_logout(client, make_user):
    make_user(Role.OPERATOR, username="olga")
    page = client.post("/login/", {"username": "olga", "password": "wrong"})
    assert page.status_code == 200 and b"did not match" in page.content
    # The user name stays; only the password is typed again (and has the focus).
    assert b'name="username" autocomplete="username" required value="olga">' in page.content
    assert b'autocomplete="current-password" required autofocus>' in page.content
    response = client.post("/login/", {"username": "olga", "password": PASSWORD}, follow=True)
    assert response.status_code == 200
    assert b"Welcome, olga" in response.content and b"operator" in response.content
    assert client.post("/logout/").status_code == 302
    assert client.get("/").status_code == 302


def test_password_change(client, make_user):
    user = make_user(Role.ANNOTATOR)
    client.force_login(user)
    response = client.post(
        "/password/",
        {
            "old_password": PASSWORD,
            "new_password1": "a much longer pass phrase",
            "new_password2": "a much longer pass phrase",
        },
    )
    assert response.status_code == 302
    user.refresh_from_db()
    assert user.check_password("a much longer pass phrase")


def test_token_page_shows_the_secret_once_and_revokes(client, make_user):
    user = make_user(Role.VISION_SYSTEM_OWNER)
    client.force_login(user)
    created = client.post("/tokens/", {"name": "robot"})
    secret = created.context["created_secret"]
    assert secret and secret.encode() in created.content
    listing = client.get("/tokens/")
    assert secret.encode() not in listing.content and b"robot" in listing.content
    token = ApiToken.objects.get(user=user)
    client.post(f"/tokens/{token.pk}/revoke/")
    token.refresh_from_db()
    assert token.revoked_at is not None


def test_the_token_page_says_what_each_token_acts_as_and_offers_to_copy_a_new_one(client, make_user):
    """Issue 38: the page did not say which system a token belongs to, and a personal token had no Copy
    button (a system's token had one)."""
    from evaluation.services.systems import system_create, system_token_create

    user = make_user(Role.VISION_SYSTEM_OWNER)
    system = system_create(owner=user, name="my detector")
    system_token_create(system=system, name="detector token")
    client.force_login(user)
    created = client.post("/tokens/", {"name": "personal"}).content.decode()
    assert re.search(r"<code data-copy-source>vtt_[^<]+</code> <button [^>]*data-copy>Copy</button>", created)
    rows = re.findall(r"<tr>\s*<td>([^<]+)</td>\s*<td data-testid=\"acts-as\">(.*?)</td>", created, re.S)
    acts = {name: re.sub(r"<[^>]+>", "", cell) for name, cell in rows}
    assert acts == {"personal": "you", "detector token": "the system my detector"}
    assert f'href="/systems/{system.pk}/"' in created
