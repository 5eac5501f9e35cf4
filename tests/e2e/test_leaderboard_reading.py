"""Issue 38, item 6, in Chromium: the leaderboard's plots read at 1400 px and on a phone (390 px). Every
text of a plot is at least 10 px high on the screen and none overlaps another; each legend is in the
page's type after its picture, with whole names; and while the test can be taken, accuracy by position
is drawn as steps over the bins it is pooled in (a test of 24 streams), or says why it is not drawn (a
test of 3 streams, the scored world's)."""

from __future__ import annotations

import pytest

from accounts.roles import Role
from evaluation.services.scores import score_store
from evaluation.services.sessions import answer_submit, session_enrol
from evaluation.services.systems import system_create
from tests.e2e.conftest import login, shot
from tests.evaluation.conftest import build_test, shown_positions
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1400, "height": 900}

# Streams of 3 to 10 questions: all 24 reach positions 1 to 3, 21 reach position 4 and fewer each one
# after, so under a minimum of 20 the plot has four bins: 1, 2, 3 and 4 to 10.
STREAMS = [[("exist", "no" if (i + j) % 3 == 0 else "yes") for j in range(3 + i % 8)] for i in range(24)]

# Per plot on the page: the screen height of its smallest text, whether two of its texts overlap, and
# whether one runs out of the picture.
TEXT_SIZES = """() => [...document.querySelectorAll("figure svg.plot")].map(svg => {
    const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
    const texts = [...svg.querySelectorAll(":scope > text")];
    const boxes = texts.map(t => t.getBoundingClientRect());
    const overlap = boxes.some((a, i) => boxes.some((b, j) => j > i &&
        a.left < b.right - 1 && b.left < a.right - 1 && a.top < b.bottom - 1 && b.top < a.bottom - 1));
    const frame = svg.getBoundingClientRect();
    const outside = boxes.some(b => b.left < frame.left - 1 || b.right > frame.right + 1);
    return {
        plot: svg.getAttribute("aria-label"),
        outside,
        smallest: Math.min(...texts.map(t => parseFloat(getComputedStyle(t).fontSize) * scale)),
        overlap,
    };
})"""


def take(system, test, answer_of) -> None:
    session = session_enrol(system=system, test_id=test.pk)
    for stream, step in shown_positions(STREAMS):
        answer_submit(session_id=session.pk, stream=stream, step=step, answer=answer_of(stream, step))
    score_store(session_id=session.pk)


def truth(stream: int, step: int) -> bool:
    return STREAMS[stream][step][1] == "yes"


@pytest.fixture
def long_board():
    test = build_test(STREAMS, name="long street test")
    owner = UserFactory(role=Role.VISION_SYSTEM_OWNER)
    always = system_create(owner=owner, name="baseline: always-yes (a long name)", baseline="always-yes")
    take(always, test, lambda stream, step: True)
    # Right on the first three questions of each stream, wrong after: accuracy falls at position 4.
    tiring = system_create(owner=owner, name="tires after three")
    take(tiring, test, lambda stream, step: truth(stream, step) == (step < 3))
    return test


def read_plots(page) -> None:
    for plot in page.evaluate(TEXT_SIZES):
        assert plot["smallest"] >= 10, plot
        assert not plot["overlap"] and not plot["outside"], plot
    legend = page.get_by_test_id("plot-position").locator("ul.plot-legend li")
    assert legend.all_inner_texts() == ["baseline: always-yes (a long name)", "tires after three"]
    assert float(legend.first.evaluate("li => parseFloat(getComputedStyle(li).fontSize)")) >= 12


def open_board(new_page, user, test):
    page = new_page()
    login(page, user)
    page.goto(f"/leaderboards/{test.pk}/")
    return page


def test_the_plots_read_on_a_desktop_and_on_a_phone_and_positions_step_over_their_bins(
    new_page, users, long_board
):
    page = open_board(new_page, users[Role.ANNOTATOR], long_board)
    lines = page.locator("[data-testid=plot-position] svg polyline")
    assert lines.count() == 2
    # Four bins, two ends each: a flat step over every bin, never a point per position.
    points = [len(lines.nth(i).get_attribute("points").split()) for i in range(2)]
    assert points == [8, 8]
    read_plots(page)
    shot(page, "leaderboard-reading-1400")

    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    read_plots(page)
    shot(page, "leaderboard-reading-390")


def test_an_open_test_too_small_to_pool_positions_says_why_instead_of_flat_lines(
    new_page, scored_world, users
):
    page = open_board(new_page, users[Role.ANNOTATOR], scored_world["published"])
    position = page.get_by_test_id("plot-position")
    assert position.locator("polyline").count() == 0
    note = position.locator("[data-figure=positions-pooled]").inner_text()
    assert "at least 20 streams" in note and "has 3 streams" in note
    page.set_viewport_size(PHONE)
    plots = page.evaluate(TEXT_SIZES)
    assert all(p["smallest"] >= 10 and not p["overlap"] and not p["outside"] for p in plots), plots
    shot(page, "leaderboard-open-small-390")
