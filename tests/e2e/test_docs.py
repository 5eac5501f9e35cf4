"""An operator follows the Truthing page's link to the operator guide, a page of the site (issue 38),
and reads it on a desktop and on a phone; the guide's link to another guide leads to its page."""

from __future__ import annotations

import pytest

from accounts.roles import Role
from tests.e2e.conftest import login, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_operator_opens_the_guide_from_the_truthing_page(users, page):
    login(page, users[Role.OPERATOR])
    page.get_by_role("link", name="Truthing").first.click()
    page.get_by_role("link", name="operator guide").click()
    page.wait_for_url("**/docs/guides/operator/")
    doc = page.get_by_test_id("doc")
    assert doc.locator("h1").inner_text() == "Guide for operators"
    shot(page, "doc-operator-guide")
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot(page, "doc-operator-guide-phone")
    doc.get_by_role("link", name="reviewer guide").click()
    page.wait_for_url("**/docs/guides/reviewer/#adjudication")
    assert page.get_by_test_id("doc").locator("h1").is_visible()
