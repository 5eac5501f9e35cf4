"""What issue 20 found rough for a vision-system owner, as they would notice it: a start page instead of
a dead end, a system page with plots, readable per-question results and its tokens, and a leaderboard
that fits a phone."""

from __future__ import annotations

import pytest

from accounts.roles import Role
from evaluation.services.systems import system_token_create
from tests.e2e.conftest import login, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}


def test_an_owners_home_lists_their_systems_the_published_tests_and_a_snippet_to_copy(
    new_page, scored_world, live_server
):
    page = new_page()
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    login(page, scored_world["owner"])
    assert page.get_by_text("not a member of any image collection").count() == 0
    systems = page.get_by_test_id("owner-systems")
    assert systems.get_by_role("link", name="alpha").count() == 1
    assert systems.get_by_role("link", name="hidden").count() == 1
    tests = page.get_by_test_id("owner-tests")
    assert (
        "street test" in tests.inner_text() and "old test" not in tests.inner_text()
    )  # archived: not takeable
    snippet = page.get_by_test_id("client-snippet")
    code = snippet.locator("code[data-copy-source]").inner_text()
    assert f'Client("{live_server.url}/"' in code
    assert f"test_id={scored_world['published'].pk}" in code
    assert 'token=os.environ["VTT_TOKEN"]' in code  # the token from the environment: the lines run as copied
    assert snippet.locator("mark").inner_text() == "Put your code here"  # what a person replaces, marked
    snippet.get_by_role("button", name="Copy").click()
    assert page.evaluate("navigator.clipboard.readText()") == code
    shot(page, "owner-home")


def test_the_system_page_has_plots_named_tests_one_based_positions_images_and_its_tokens(
    new_page, scored_world
):
    alpha = scored_world["alpha"]
    system_token_create(system=alpha, name="laptop")
    page = new_page()
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    login(page, scored_world["owner"])
    page.goto(f"/systems/{alpha.pk}/")

    # Plots: accuracy by position and by question kind, one per scored test.
    scores = page.locator('[data-testid="session-scores"][data-test="street test"]')
    assert scores.locator("[data-testid=system-plot-position] svg polyline").count() == 1
    assert scores.locator("[data-testid=system-plot-kind] svg rect").count() > 3

    # Tokens of this system: listed without their secret; a new one has a copy button.
    tokens = page.get_by_test_id("system-tokens")
    assert "laptop" in tokens.inner_text() and "vtt_" in tokens.inner_text()
    page.fill("[data-testid=system-tokens] input[name=name]", "cluster")
    page.get_by_role("button", name="Create scoped token").click()
    secret = page.get_by_test_id("new-system-token").locator("code").inner_text()
    page.get_by_test_id("new-system-token").get_by_role("button", name="Copy").click()
    assert page.evaluate("navigator.clipboard.readText()") == secret
    listed = page.get_by_test_id("system-tokens").locator("tbody tr")
    assert (
        listed.count() == 2
        and secret not in page.get_by_test_id("system-tokens").locator("table").inner_text()
    )

    # Sessions: the test's real name, positions counted from 1, each stream's image with its regions.
    sessions = page.get_by_test_id("system-sessions")
    headings = sessions.locator("h3").all_inner_texts()
    assert any(h.startswith("street test") for h in headings) and not any(
        h.startswith("Test ") for h in headings
    )
    first = sessions.locator("details").first
    first.locator("summary").click()
    assert first.locator("tbody tr td:first-child").first.inner_text() == "1"
    picture = first.locator("[data-testid=stream-image] image")
    assert picture.count() == 1
    assert page.evaluate("url => fetch(url).then(r => r.status)", picture.get_attribute("href")) == 200
    assert first.locator("[data-testid=stream-image] rect.region").count() >= 1
    assert first.locator("tbody tr td.region").first.inner_text() != ""
    shot(page, "system-page-owner")


def test_the_leaderboard_fits_a_phone(browser, live_server, scored_world, users):
    context = browser.new_context(base_url=live_server.url, viewport=PHONE)
    try:
        page = context.new_page()
        login(page, users[Role.ANNOTATOR])
        page.goto(f"/leaderboards/{scored_world['published'].pk}/")
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        shot(page, "leaderboard-phone")
        page.goto(f"/systems/{scored_world['alpha'].pk}/")
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        shot(page, "system-page-phone")
    finally:
        context.close()
