"""The leaderboard's legends: a system's name is cut to what the legend's column holds, with an
ellipsis, and given whole in the text's title (the walk saw 'baseline: blind-prio' cut at the edge)."""

import re

from frontend.plots.leaderboard import LEGEND_CHARACTERS, accuracy_by_position

POINT = {"value": 0.5, "low": 0.4, "high": 0.6}


def test_a_long_name_is_cut_with_an_ellipsis_and_given_whole_in_its_title():
    svg = str(accuracy_by_position([("baseline: blind-prior", [POINT, POINT]), ("short", [POINT])]))
    legends = re.findall(r'<text class="plot-legend"[^>]*><title>([^<]*)</title>([^<]*)</text>', svg)
    assert legends == [("baseline: blind-prior", "baseline: blind-pr…"), ("short", "short")]
    assert all(len(shown) <= LEGEND_CHARACTERS for _, shown in legends)
