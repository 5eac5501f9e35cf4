"""Issue 19 in Chromium: the test card's "A test that ranks vision" once the ranking check has run, and
accuracy by reference distance on a system's page and on the leaderboard."""

from __future__ import annotations

import pytest

from accounts.roles import Role
from evaluation.models import RankingCheck
from evaluation.services import degradation
from tests.e2e.conftest import login, shot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


# The size on screen of a plot's tick labels: its font size in the picture's units, times the picture's
# screen pixels per unit.
SCREEN_TYPE = """sel => {
  const text = document.querySelector(`${sel} svg text.plot-label`);
  const svg = text.ownerSVGElement;
  return parseFloat(getComputedStyle(text).fontSize) * svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
}"""


def assert_type_as_on_the_card(page) -> None:
    """Issue 46, item 11: the ranking check's plot had type twice the size of the card's other plots."""
    card = page.evaluate(SCREEN_TYPE, "[data-testid=plot-blind]")
    ranking = page.evaluate(SCREEN_TYPE, "[data-testid=plot-degradation]")
    assert ranking == pytest.approx(card, rel=0.1), (ranking, card)


def test_the_card_shows_the_curves_and_the_system_page_its_reference_distances(
    new_page, scored_world, users, monkeypatch
):
    monkeypatch.setattr(degradation, "job_enqueue", lambda job: None)
    degradation.ranking_checks_due_queue()
    for check in RankingCheck.objects.all():
        degradation.ranking_check_run(job_id=check.pk)

    admin = new_page()
    login(admin, users[Role.ADMIN])
    admin.click("text=Tests")
    admin.get_by_role("link", name="street test").click()
    ranking = admin.get_by_test_id("ranking")
    ranking.scroll_into_view_if_needed()
    assert "100%" in ranking.locator("[data-figure=ranking-oracle]").inner_text()
    assert ranking.locator("[data-testid=plot-degradation] svg polyline").count() == 3
    assert ranking.locator("[data-testid=plot-degradation] svg polygon").count() == 3  # the bands
    assert "too small" in ranking.locator("[data-figure=streams-needed]").inner_text()
    shot(admin, "card-ranking")
    assert_type_as_on_the_card(admin)
    # On a phone the section's table scrolls inside the card; the page does not (the walk saw 612 px).
    admin.set_viewport_size({"width": 390, "height": 844})
    admin.reload()
    assert admin.evaluate("document.documentElement.scrollWidth") <= 390
    assert_type_as_on_the_card(admin)

    annotator = new_page()
    login(annotator, users[Role.ANNOTATOR])
    annotator.click("text=Leaderboards")
    annotator.get_by_role("link", name="street test").click()
    assert annotator.locator("[data-figure=seeing-minus-blind]").first.inner_text().startswith("0.273")
    assert annotator.locator("[data-testid=plot-reference] svg rect").count() > 2
    shot(annotator, "leaderboard-reference")
    annotator.get_by_test_id("leaderboard").get_by_role("link", name="alpha").click()
    street = annotator.locator('[data-testid="session-scores"][data-test="street test"]')
    table = street.get_by_test_id("reference-table")
    assert table.locator("tbody tr").count() == 2
    shot(annotator, "system-page-reference")
