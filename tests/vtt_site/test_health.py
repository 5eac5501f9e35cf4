from __future__ import annotations

import pytest


def test_healthz_answers_without_the_database(client):
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


@pytest.mark.django_db
def test_readyz_checks_the_database(client, settings):
    settings.REDIS_URL = ""
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json()["checks"]["database"]["ok"] is True
    assert "broker" not in response.json()["checks"]


@pytest.mark.django_db
def test_readyz_reports_an_unreachable_broker_as_503(client, settings, monkeypatch):
    from vtt_site.celery import app

    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    monkeypatch.setattr(app.conf, "broker_url", "redis://127.0.0.1:1/0")
    response = client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "unavailable"
    assert body["checks"]["broker"]["ok"] is False


def test_a_browser_asking_for_the_favicon_gets_no_content_not_a_404(client):
    """The admin's pages cannot name an icon: the browser asks /favicon.ico, and gets an empty answer."""
    response = client.get("/favicon.ico")
    assert response.status_code == 204 and response.content == b""
    assert client.post("/favicon.ico").status_code == 405
