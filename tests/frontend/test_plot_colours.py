"""Issue 46, item 10: a system had one colour in the leaderboard's bar charts and another in its
reliability plot (the bars numbered the systems among the rows shown, the reliability plot among those
that gave probabilities). Every plot of the page now colours a system by its place among the page's
systems."""

from __future__ import annotations

import re

import pytest

from accounts.roles import Role
from evaluation.services.scores import score_store
from evaluation.services.sessions import answer_submit, session_enrol
from evaluation.services.systems import system_create
from tests.evaluation.conftest import build_test, shown_positions

pytestmark = pytest.mark.django_db


def swatches(figure_html: str) -> dict[str, str]:
    """Each legend entry's name and the fill of its swatch."""
    found = re.findall(
        r'<li data-series="\d+">.*?fill="(#[0-9a-f]{6})".*?<span>([^<]*)</span></li>', figure_html
    )
    return {name: colour for colour, name in found}


def figure(html: str, testid: str) -> str:
    found = re.search(rf'<figure data-testid="{testid}">(.*?)</figure>', html, re.S)
    assert found, testid
    return found.group(1)


def take(owner, test, name: str, *, p_yes: float | None) -> None:
    """Answer yes to every question (the same questions for every session: pools of one stream)."""
    session = session_enrol(system=system_create(owner=owner, name=name), test_id=test.pk)
    for stream, step in shown_positions():
        answer_submit(session_id=session.pk, stream=stream, step=step, answer=True, p_yes=p_yes)
    score_store(session_id=session.pk)


def test_a_system_has_one_colour_in_every_plot_of_the_leaderboard(client, users):
    test = build_test()
    owner = users[Role.VISION_SYSTEM_OWNER]
    # Equal accuracy, so the rows go by name: the first gives no probabilities, so it is in the bars
    # and not in the reliability plot.
    take(owner, test, "a sure one", p_yes=None)
    take(owner, test, "forecaster", p_yes=0.7)
    client.force_login(users[Role.ANNOTATOR])
    html = client.get(f"/leaderboards/{test.pk}/").content.decode()

    by_kind, reliability = swatches(figure(html, "plot-kind")), swatches(figure(html, "plot-reliability"))
    assert set(by_kind) == {"a sure one", "forecaster"} and set(reliability) == {"forecaster"}
    assert reliability["forecaster"] == by_kind["forecaster"]
