"""The API's documentation page works under the site's Content-Security-Policy (issue 20: it was blank,
its inline start-up script refused by the policy)."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_api_docs_list_the_operations(page):
    violations = []
    page.on(
        "console", lambda msg: violations.append(msg.text) if "Content Security Policy" in msg.text else None
    )
    response = page.goto("/api/v1/docs/")
    assert response.status == 200 and "script-src 'self'" in response.headers["content-security-policy"]
    operations = page.locator(".opblock")
    operations.first.wait_for()
    assert operations.count() > 50
    assert page.get_by_text("/api/v1/evaluation/sessions/{session_id}/question/").count() >= 1
    assert not violations, violations
