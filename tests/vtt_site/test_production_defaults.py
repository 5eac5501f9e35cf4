"""Issue 11, item 9: production defaults are safe. Every page carries a Content-Security-Policy the
pages satisfy (the browser tests fail on any violation: tests/e2e/conftest.py turns console errors into
failures); `make serve` and docker-compose turn on Secure cookies and HSTS; `make run` stays plain HTTP."""

from __future__ import annotations

from pathlib import Path

import pytest

from accounts.roles import Role

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/login/", "/", "/api/v1/me/", "/admin/login/"])
def test_every_response_has_a_strict_content_security_policy(client, users, path):
    client.force_login(users[Role.ANNOTATOR])
    policy = client.get(path)["Content-Security-Policy"]
    assert "script-src 'self';" in policy
    assert "'unsafe-inline'" not in policy.split("style-src-attr")[0]
    assert "frame-ancestors 'none'" in policy


@pytest.mark.django_db
def test_hsts_and_secure_cookies_when_set(client, settings, users):
    settings.SECURE_HSTS_SECONDS = 31536000
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = True
    response = client.get("/login/", secure=True)
    assert response["Strict-Transport-Security"].startswith("max-age=31536000")
    assert response.cookies["csrftoken"]["secure"] is True
    assert "Strict-Transport-Security" not in client.get("/login/")  # never on plain HTTP


def test_make_serve_and_docker_compose_turn_on_secure_cookies_and_hsts():
    serve = (ROOT / "scripts/serve.sh").read_text()
    compose = (ROOT / "docker-compose.yml").read_text()
    assert (
        "SECURE_COOKIES=${SECURE_COOKIES:-1}" in serve and "HSTS_SECONDS=${HSTS_SECONDS:-31536000}" in serve
    )
    assert 'SECURE_COOKIES: "1"' in compose and 'HSTS_SECONDS: "31536000"' in compose
    makefile = (ROOT / "Makefile").read_text()
    run_recipe = makefile.split("\nrun:")[1].split("\n\n")[0]
    assert "SECURE_COOKIES" not in run_recipe  # make run: plain HTTP on localhost keeps working
