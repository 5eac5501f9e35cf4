"""An owner registers a vision system, creates a token scoped to it, and sees a leaderboard with its
plots (inline SVG: nothing is loaded from another site)."""

from __future__ import annotations

import pytest

from accounts.roles import Role
from evaluation.services.sessions import answer_submit, session_enrol
from evaluation.services.systems import system_create
from tests.e2e.conftest import login
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
