"""A model server's credential (decision 0078): stored sealed, sent to the server, never returned by
the API, shown by a page or logged; unreadable after a key change, which asks for it again and fails
nothing with a 500."""

from __future__ import annotations

import logging

import pytest
from django.urls import reverse

from accounts.roles import Role
from annotations.models import ModelBackend
from annotations.services.suggestions import SuggestionsUnavailable, suggestions_fetch
from annotations.suggestions.secrets import UNUSABLE

pytestmark = pytest.mark.django_db(transaction=True)

SECRET = "s3cret-Value-9f8e7d"


def test_the_credential_never_shows_in_a_response_a_page_the_row_or_the_log(
    api, users, collection, site, scene_images, fake_backend, caplog
):
    caplog.set_level(logging.DEBUG)  # every logger, httpx's and httpcore's request traces included
    fake_backend.require_header("X-Api-Key", SECRET)
    [(image, _, _)] = scene_images(1)
    reviewer, admin = api.as_user(users[Role.REVIEWER]), users[Role.ADMIN]
    path = f"/api/v1/collections/{collection.pk}/model-backend/"
    bodies = [
        reviewer.put(
            path, {"url": fake_backend.url, "auth": "header", "header_name": "X-Api-Key", "secret": SECRET}
        )
    ]
    bodies += [reviewer.get(path), reviewer.post(path + "check/")]
    assert bodies[-1].json()["last_error"] == "" and suggestions_fetch(image_id=image.pk).written > 0
    # The server was sent it; a wrong one is a fault whose reason does not repeat it either.
    assert fake_backend.seen("/predict")[0].headers["X-Api-Key"] == SECRET
    fake_backend.require_header("X-Api-Key", "another")
    with pytest.raises(SuggestionsUnavailable) as failure:
        suggestions_fetch(image_id=image.pk)
    bodies.append(reviewer.post(path + "check/"))
    api.logout()
    from django.test import Client

    browser = Client()
    browser.force_login(admin)
    backend = ModelBackend.objects.get()
    pages = [
        browser.get(reverse("admin:annotations_modelbackend_change", args=[backend.pk])),
        browser.get(reverse("admin:annotations_modelbackend_changelist")),
    ]
    assert all(page.status_code == 200 for page in pages)
    for text in [*(b.content.decode() for b in bodies), *(p.content.decode() for p in pages)]:
        assert SECRET not in text
    assert SECRET not in failure.value.reason and SECRET not in backend.last_error
    assert SECRET not in backend.secret and backend.secret  # sealed, not blank
    assert SECRET not in caplog.text
    assert "X-Api-Key" not in caplog.text or SECRET not in caplog.text


def test_a_changed_key_makes_the_credential_unusable_and_asks_for_it_again(
    api, users, collection, site, scene_images, fake_backend, settings, connect
):
    fake_backend.require_basic("model-user", SECRET)
    [(image, _, _)] = scene_images(1)
    connect(auth="basic", username="model-user", secret=SECRET)
    settings.SUGGESTIONS_CREDENTIALS_KEY = "a new key"
    reviewer = api.as_user(users[Role.REVIEWER])
    path = f"/api/v1/collections/{collection.pk}/model-backend/"
    shown = reviewer.get(path).json()
    assert shown["secret_set"] is True and shown["secret_problem"] == UNUSABLE
    assert "enter the credential again" in UNUSABLE
    checked = reviewer.post(path + "check/")
    assert checked.status_code == 200 and checked.json()["last_error"] == UNUSABLE
    image.lease_holder = users[Role.ANNOTATOR]
    image.save()
    page = api.as_user(users[Role.ANNOTATOR]).get(f"/api/v1/images/{image.pk}/suggestions/")
    assert page.status_code == 200 and page.json()["state"] == "unavailable"
    assert page.json()["note"].endswith(UNUSABLE)
    from django.test import Client

    browser = Client()
    browser.force_login(users[Role.ADMIN])
    listed = browser.get(reverse("admin:annotations_modelbackend_changelist"))
    assert listed.status_code == 200 and "unreadable: enter it again" in listed.content.decode()
    # Entered again, it works with the new key.
    reviewer = api.as_user(users[Role.REVIEWER])
    again = reviewer.put(
        path, {"url": fake_backend.url, "auth": "basic", "username": "model-user", "secret": SECRET}
    )
    assert again.json()["secret_problem"] == ""
    assert suggestions_fetch(image_id=image.pk).written > 0
