"""A system's page: its accuracy by position in the stream and by question kind on one test (and the
reliability of its probabilities, where it gave them), drawn with
the leaderboard's plots (one series: this system), each with its 95% Wilson interval. Kept apart from
the leaderboard's module so the system page's plots can grow on their own."""

from __future__ import annotations

from typing import Any

from django.utils.safestring import SafeString

from evaluation.leaderboard_row import positions_pooled_under
from frontend.plots.leaderboard import accuracy_by_kind, accuracy_by_position, reliability_by_system
from kernel.kinds import KINDS


def system_plots(entry: dict[str, Any]) -> dict[str, SafeString]:
    """The plots of one scored session of `evaluation.selectors.leaderboard.system_scores`."""
    name = "this system"
    plots = {
        "by_position": accuracy_by_position(
            [(name, entry.get("by_position") or [])], minimum=positions_pooled_under(entry["test"]["state"])
        ),
        "by_kind": accuracy_by_kind([(name, entry["by_kind"])], KINDS),
    }
    if entry.get("forecasts"):
        plots["reliability"] = reliability_by_system([(name, entry["forecasts"]["reliability"])])
    return plots
