"""An owner registers a vision system, creates a token scoped to it, and sees a leaderboard with its
plots (inline SVG: nothing is loaded from another site). Someone who is not a system's owner follows a
leaderboard row to its page and sees its scores, stream by stream only where decision 0032 allows."""

from __future__ import annotations

import pytest

from accounts.roles import Role
from evaluation.services.sessions import answer_submit, session_enrol
from evaluation.services.systems import system_create
from tests.e2e.conftest import login, shot
from tests.evaluation.conftest import build_test
from tests.evaluation.test_scores import POSITIONS
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_owner_registers_a_system_makes_a_scoped_token_and_sees_the_leaderboard(page, live_server):
    owner = UserFactory(role=Role.VISION_SYSTEM_OWNER, username="vision-owner")
    test = build_test(name="street test")
    rival = system_create(
        owner=UserFactory(role=Role.VISION_SYSTEM_OWNER), name="always yes", baseline="always-yes"
    )
    session = session_enrol(system=rival, test_id=test.pk)
    for stream, step in POSITIONS:
        answer_submit(session_id=session.pk, stream=stream, step=step, answer=True)
    requests = []
    page.on("request", lambda request: requests.append(request.url))

    login(page, owner)
    page.click("text=Vision systems")
    form = page.get_by_test_id("register-system")
    form.locator("input[name=name]").fill("my detector")
    form.locator("input[name=url]").fill("https://example.org/paper")
    form.get_by_role("button", name="Register").click()
    assert page.get_by_test_id("system-name").inner_text() == "my detector"
    page.fill("input[name=name]", "laptop run")
    page.get_by_role("button", name="Create scoped token").click()
    secret = page.get_by_test_id("new-system-token").locator("code").inner_text()
    assert secret.startswith("vtt_")

    page.click("text=Leaderboards")
    page.click("text=street test")
    table = page.get_by_test_id("leaderboard")
    assert "always yes" in table.inner_text() and "(baseline)" in table.inner_text()
    assert "0.636" in table.inner_text()
    # Three streams cannot be pooled into bins of 20 while the test is open: the plot says why
    # (tests/e2e/test_leaderboard_reading.py draws one that can).
    assert page.locator("[data-testid=plot-position] svg").count() == 0
    assert page.locator("[data-testid=plot-position] [data-figure=positions-pooled]").count() == 1
    assert page.locator("[data-testid=plot-kind] svg rect").count() > 4
    assert all(url.startswith(live_server.url) for url in requests), requests
    shot(page, "leaderboard")

    # The token acts as the system through the API, and only as it.
    response = page.request.get(
        f"{live_server.url}/api/v1/evaluation/systems/", headers={"Authorization": f"Token {secret}"}
    )
    assert [s["name"] for s in response.json()["results"]] == ["my detector"]
    assert (
        page.request.get(
            f"{live_server.url}/api/v1/tokens/", headers={"Authorization": f"Token {secret}"}
        ).status
        == 403
    )


def follow_the_leaderboard_to(page, test_name: str, system_name: str):
    page.click("text=Leaderboards")
    page.get_by_role("link", name=test_name).click()
    page.get_by_test_id("leaderboard").get_by_role("link", name=system_name).click()
    assert page.get_by_test_id("system-name").inner_text() == system_name


def scores_on(page, test_name: str):
    return page.locator(f'[data-testid="session-scores"][data-test="{test_name}"]')


def test_someone_who_is_not_the_owner_follows_a_leaderboard_row_to_the_systems_scores(
    new_page, scored_world, users
):
    """alpha (tests/evaluation/conftest.py) finished the published street test and the archived old
    test. An annotator cannot enrol a system: every stream is shown. Another vision-system owner could
    enrol one in the street test: its streams are withheld, with the reason; the archived test's shown."""
    annotator = new_page()
    login(annotator, users[Role.ANNOTATOR])
    follow_the_leaderboard_to(annotator, "street test", "alpha")
    street = scores_on(annotator, "street test")
    assert "64%" in street.get_by_test_id("accuracy").inner_text()
    assert street.get_by_test_id("stream-table").locator("tbody tr").count() == 3
    assert annotator.get_by_text("Create scoped token").count() == 0
    shot(annotator, "system-page-annotator")

    owner = new_page()
    login(owner, scored_world["other_owner"])
    follow_the_leaderboard_to(owner, "street test", "alpha")
    street = scores_on(owner, "street test")
    assert "64%" in street.get_by_test_id("accuracy").inner_text()
    assert street.get_by_test_id("stream-table").count() == 0
    assert "once the test is archived" in street.get_by_test_id("streams-withheld").inner_text()
    old = scores_on(owner, "old test")
    assert old.get_by_test_id("stream-table").locator("tbody tr").count() == 3
    shot(owner, "system-page-other-owner")


def test_probabilities_given_show_on_the_leaderboard_and_the_system_page(new_page, live_server):
    """Issue 36: a text-only system that gave p_yes on every answer has its Brier score, log loss and
    calibration error in the Probabilities column and a reliability plot; a system without p has none;
    its page says what it is shown, with its figures and diagram; a partial coverage is said as such."""
    test = build_test(name="street test")
    owner = UserFactory(role=Role.VISION_SYSTEM_OWNER, username="vision-owner")
    blind = system_create(owner=owner, name="chat model, blind", shown="text")
    plain = system_create(owner=owner, name="yes-sayer")
    partial = system_create(owner=UserFactory(role=Role.VISION_SYSTEM_OWNER), name="sometimes sure")
    from evaluation.services.scores import score_store

    for system, p_of in (
        (blind, lambda i: 0.8),
        (plain, lambda i: None),
        (partial, lambda i: 0.9 if i < 3 else None),
    ):
        session = session_enrol(system=system, test_id=test.pk)
        for i, (stream, step) in enumerate(POSITIONS):
            answer_submit(session_id=session.pk, stream=stream, step=step, answer=True, p_yes=p_of(i))
        score_store(session_id=session.pk)

    page = new_page()
    login(page, owner)
    page.goto(f"/leaderboards/{test.pk}/")
    rows = page.get_by_test_id("leaderboard").locator("tbody tr")
    by_name = {rows.nth(i).locator("td").nth(1).inner_text(): rows.nth(i) for i in range(rows.count())}
    blind_row = by_name["chat model, blind (text only)"]
    # Eleven answers at p = 0.8, seven of them yes: Brier (7 * 0.04 + 4 * 0.64) / 11 = 0.258.
    assert blind_row.locator("[data-figure=brier]").inner_text() == "0.258"
    assert "log loss" in blind_row.inner_text() and "calibration error" in blind_row.inner_text()
    assert by_name["yes-sayer"].locator("[data-figure=forecasts]").count() == 0
    assert "p given on 3 of 11 questions" in by_name["sometimes sure"].inner_text()
    assert page.locator("[data-testid=plot-reliability] svg circle").count() == 2  # one bin each
    shot(page, "leaderboard-probabilities")
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot(page, "leaderboard-probabilities-390")
    page.set_viewport_size({"width": 1400, "height": 900})

    page.goto(f"/systems/{blind.pk}/")
    assert page.get_by_test_id("system-shown").inner_text() == "the text only"
    assert "Brier score 0.258" in page.get_by_test_id("forecasts").inner_text()
    assert page.locator("[data-testid=system-plot-reliability] svg circle").count() == 1
    shot(page, "system-page-probabilities")
