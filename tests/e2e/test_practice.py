"""A new vision-system owner is pointed to the practice test first (issue 38, item 9): on their home page
above everything else, in the client's lines to copy, first among the tests; and after two practice runs
their system's page shows both, marked practice, not as scores."""

from __future__ import annotations

import pytest

from accounts.roles import Role
from evaluation.services.systems import system_create
from tests.e2e.conftest import login, shot
from tests.evaluation.conftest import build_test, take_test
from truthing.services import lifecycle

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
WIDE = {"width": 1400, "height": 900}


@pytest.fixture
def practice_world(users):
    scored = build_test(name="Street test")
    practice = lifecycle.publish_test(
        test=build_test(name="Practice street", state="truthing"), practice=True
    )
    return {"owner": users[Role.VISION_SYSTEM_OWNER], "scored": scored, "practice": practice}


@pytest.mark.parametrize("size", [WIDE, PHONE], ids=["wide", "phone"])
def test_a_new_owners_home_points_to_the_practice_test_first(new_page, practice_world, live_server, size):
    practice = practice_world["practice"]
    page = new_page()
    page.set_viewport_size(size)
    login(page, practice_world["owner"])

    first = page.get_by_test_id("practice-first")
    assert first.locator("h2").inner_text() == "Start with the practice test"
    assert first.get_by_test_id("practice-name").inner_text() == "Practice street"
    assert first.get_by_test_id("practice-id").inner_text() == str(practice.pk)
    # Above the owner's systems and the list of tests: the first thing a new owner reads.
    cards = page.locator(
        "[data-testid=practice-first], [data-testid=owner-systems], [data-testid=owner-tests]"
    )
    assert [cards.nth(i).get_attribute("data-testid") for i in range(3)] == [
        "practice-first",
        "owner-systems",
        "owner-tests",
    ]
    rows = page.get_by_test_id("owner-tests").locator("tbody tr")
    assert rows.first.get_attribute("data-test") == str(practice.pk)
    assert "practice" in rows.first.inner_text() and rows.first.get_by_role("link").count() == 0
    assert rows.nth(1).get_by_role("link", name="leaderboard").count() == 1
    code = page.get_by_test_id("client-snippet").locator("code[data-copy-source]").inner_text()
    assert f"test_id={practice.pk}" in code
    # Nothing sticks out sideways on a phone.
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    shot(page, f"practice-owner-home-{size['width']}")


def test_the_owners_practice_runs_are_shown_as_practice(new_page, practice_world):
    owner = practice_world["owner"]
    system = system_create(owner=owner, name="first try")
    take_test(system, practice_world["practice"], answer=True)
    take_test(system, practice_world["practice"], answer=False)
    page = new_page()
    page.set_viewport_size(WIDE)
    login(page, owner)
    page.goto(f"/systems/{system.pk}/")
    scores = page.get_by_test_id("system-scores")
    assert scores.get_by_test_id("session-scores").count() == 0  # no score: practice is not ranked
    runs = page.get_by_test_id("system-sessions").locator("h3")
    assert runs.count() == 2
    for text in runs.all_inner_texts():
        assert text.startswith("Practice street practice") and "(practice: not a score, never ranked)" in text
    shot(page, "practice-system-page-1400")
    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    shot(page, "practice-system-page-390")


@pytest.mark.parametrize("size", [WIDE, PHONE], ids=["wide", "phone"])
def test_an_admin_publishes_a_test_as_practice_from_its_card(new_page, users, size):
    test = build_test(name="Rehearsal", state="truthing")
    page = new_page()
    page.set_viewport_size(size)
    login(page, users[Role.ADMIN])
    page.goto(f"/tests/{test.pk}/")
    box = page.get_by_test_id("publish-practice")
    assert box.is_visible() and not box.is_checked()
    shot(page, f"practice-card-before-{size['width']}")
    box.check()
    page.once("dialog", lambda dialog: dialog.accept())
    page.get_by_test_id("publish").click()
    page.wait_for_url(f"**/tests/{test.pk}/")
    assert page.get_by_test_id("practice").inner_text() == "practice test"
    assert "never on a leaderboard" in page.get_by_test_id("practice-note").inner_text()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    shot(page, f"practice-card-after-{size['width']}")
    page.goto("/tests/")
    assert page.get_by_test_id(f"test-{test.pk}").get_by_test_id("practice").inner_text() == "practice"
    shot(page, f"practice-tests-list-{size['width']}")
    page.goto("/tests/new/")
    practice_field = page.locator("[data-field=practice]")
    assert practice_field.get_by_label("Practice test").count() == 1
    practice_field.scroll_into_view_if_needed()
    shot(page, f"practice-new-test-{size['width']}")
