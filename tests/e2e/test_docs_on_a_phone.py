"""The docs read on a phone (issue 46, item 6: at 390 px, 34 of the 83 pages scrolled sideways, one of
them 4,111 px wide). Every page of the docs, and their index, opened 390 px wide: the page itself never
scrolls sideways; a wide code block or table scrolls inside itself. The index and the top bar's Help link
are seen at 1400 and 390 px."""

from __future__ import annotations

import pytest

from accounts.roles import Role
from frontend.docs import doc_pages
from tests.e2e.conftest import login, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
SIDEWAYS = "document.scrollingElement.scrollWidth - document.scrollingElement.clientWidth"


def test_no_page_of_the_docs_scrolls_sideways_on_a_phone(page):
    page.set_viewport_size(PHONE)
    wide = {}
    for path in ["/docs/", *(f"/docs/{name}/" for name in sorted(doc_pages()))]:
        assert page.goto(path).status == 200, path
        overflow = page.evaluate(SIDEWAYS)
        if overflow > 0:
            wide[path] = overflow
    assert not wide, f"{len(wide)} pages scroll sideways by so many pixels: {wide}"
    page.goto("/docs/guides/vision-language-models/")
    shot(page, "docs-vlm-guide-390")
    # What scrolls is the block: its text is all there, inside a box no wider than the page.
    block = page.locator("article.doc pre").first
    assert block.evaluate("el => el.scrollWidth > el.clientWidth")
    assert block.evaluate("el => getComputedStyle(el).overflowX") == "auto"


@pytest.mark.parametrize("size", [{"width": 1400, "height": 900}, PHONE], ids=["1400", "390"])
def test_help_in_the_top_bar_leads_to_the_docs_index(new_page, users, size):
    visitor = new_page()
    visitor.set_viewport_size(size)
    visitor.goto("/login/")
    visitor.get_by_role("link", name="Help").click()
    visitor.wait_for_url("**/docs/")
    index = visitor.get_by_test_id("docs-index")
    headings = index.locator("h2").all_inner_texts()
    assert headings[:3] == ["Guides, by role", "How the platform works", "Decisions"], headings
    assert index.get_by_role("link", name="Guide for operators").count() == 1
    shot(visitor, f"docs-index-anonymous-{size['width']}")
    owner = new_page()
    owner.set_viewport_size(size)
    login(owner, users[Role.VISION_SYSTEM_OWNER])
    owner.get_by_role("link", name="Help").click()
    owner.wait_for_url("**/docs/")
    owner.get_by_role("link", name="Guide for vision-system owners: taking a test").click()
    owner.wait_for_url("**/docs/guides/vision-system/")
    assert owner.evaluate(SIDEWAYS) <= 0
    shot(owner, f"docs-vision-system-guide-{size['width']}")
