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
    assert page.locator("[data-testid=plot-position] svg polyline").count() == 1
    assert page.locator("[data-testid=plot-position] svg polygon").count() == 1  # the band
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
