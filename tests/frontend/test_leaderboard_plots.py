"""The leaderboard's plots as a reader meets them (issue 38, item 6): legends in the page's own type
beside the picture, with whole names, so they do not shrink with it on a phone; both axes named; and
accuracy by position drawn as steps over the bins an open test pools, or, when every row is one bin, a
sentence saying why instead of flat lines."""

import re

import pytest

from frontend.plots.leaderboard import accuracy_by_kind, accuracy_by_position

POINT = {"value": 0.5, "low": 0.4, "high": 0.6}


def bin_of(value: float, first: int, last: int) -> dict:
    """A position's figures as the leaderboard gives them while a test can be taken (its bin's)."""
    return {"value": value, "low": value - 0.1, "high": value + 0.1, "first": first, "last": last}


def binned(*bins: tuple[float, int, int]) -> list[dict]:
    return [bin_of(value, first, last) for value, first, last in bins for _ in range(first, last + 1)]


def test_the_legend_is_html_after_the_picture_with_every_name_whole():
    html = str(accuracy_by_position([("baseline: blind-prior", [POINT, POINT]), ("short", [POINT, POINT])]))
    picture, after = html.split("</svg>", 1)
    assert "blind-prior" not in picture  # nothing of the legend is drawn in the picture, to shrink with it
    names = re.findall(r'<li data-series="\d+">.*?<span>([^<]*)</span></li>', after)
    assert names == ["baseline: blind-prior", "short"]
    # Each name's swatch has the colour of its line.
    swatches = re.findall(r'<rect width="10" height="10" fill="(#[0-9a-f]{6})"', after)
    lines = re.findall(r'<polyline [^>]*stroke="(#[0-9a-f]{6})"', picture)
    assert swatches == lines and len(set(lines)) == 2


def test_both_axes_are_named():
    for html in (
        str(accuracy_by_position([("a", [POINT, POINT])])),
        str(accuracy_by_kind([("a", {"exist": POINT})], ["exist"])),
    ):
        labels = re.findall(r'<text class="plot-axis-name"[^>]*>([^<]*)</text>', html)
        assert "accuracy" in labels and len(labels) == 2, labels


def test_positions_pooled_in_bins_are_drawn_as_steps_over_each_bin():
    """Positions 1-2 pooled at 0.8, positions 3-6 at 0.4: a flat step over each bin, a riser between."""
    html = str(accuracy_by_position([("a", binned((0.8, 0, 1), (0.4, 2, 5)))]))
    line = re.search(r'<polyline points="([^"]*)"', html)
    assert line is not None
    points = [tuple(map(float, p.split(","))) for p in line.group(1).split()]
    assert len(points) == 4  # two ends per bin, never one point per position
    (x0, y0), (x1, y1), (x2, y2), (x3, y3) = points
    assert y0 == y1 and y2 == y3 and y0 < y2  # flat over each bin; 0.8 is drawn above 0.4
    assert x1 == x2  # the riser at the bins' boundary
    assert x3 - x2 == pytest.approx(2 * (x1 - x0), abs=0.2)  # four positions, twice as wide as two


def test_when_every_row_is_one_bin_the_plot_says_why_instead_of_drawing_flat_lines():
    """A test taken by sessions of 6 streams, under a minimum of 20: each row is one bin."""
    one_bin = binned((0.55, 0, 39))
    html = str(accuracy_by_position([("a", one_bin), ("b", binned((0.6, 0, 45)))], minimum=20, streams=6))
    assert "<polyline" not in html and "<svg" not in html
    assert 'data-figure="positions-pooled"' in html
    text = re.sub(r"<[^>]+>", "", html)
    assert "at least 20 streams" in text and "6 streams" in text and "archived" in text


def test_a_row_of_one_bin_is_left_out_of_a_plot_that_has_others_and_named():
    html = str(
        accuracy_by_position([("steps", binned((0.8, 0, 1), (0.4, 2, 5))), ("flat", binned((0.5, 0, 5)))])
    )
    assert html.count("<polyline") == 1
    assert "flat" in re.sub(r"<[^>]+>", "", html.split("</svg>", 1)[1])
