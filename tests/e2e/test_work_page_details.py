"""What issue 20 found rough on the annotator's and the reviewer's pages, as a person would notice it:
Markdown descriptions, the refused submit naming every gap, the read-only look after submit, the link
form that chooses nothing by itself, labels and relationships on the image, and the reviewer's keys,
edits and pinned comments."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import login, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESCRIPTION = (
    "Street scenes from **Brooklyn**.\n\n"
    "- box every *person*\n- and every vehicle\n\n"
    "[Guide](https://example.org/guide) · [bad](javascript:alert(1)) <script>window.pwned = 1</script>"
)


def test_a_collections_description_is_rendered_markdown_without_scripts(team, page):
    collection, members = team
    collection.description = DESCRIPTION
    collection.save()
    login(page, members["alice"])
    for where in ("/", f"/collections/{collection.pk}/"):
        page.goto(where)
        description = page.get_by_test_id("collection-description").first
        assert description.locator("strong").inner_text() == "Brooklyn"
        assert description.locator("li").count() == 2
        assert description.locator("a").count() == 1
        assert description.locator("a").get_attribute("href") == "https://example.org/guide"
        assert "**" not in description.inner_text()
        assert page.evaluate("window.pwned") is None
        assert page.locator("main script").count() == 0
    shot(page, "collection-description-markdown")
