"""The audit's reliability diagram, drawn like the card's other plots (same classes, sizes and type):
the observed yes rate of each bin of the engine's p with its 95% interval, against the bin's mean p,
on the diagonal of perfect calibration, with the bins' question counts as pale bars along the bottom.

engine.audit draws its own stand-alone SVG for the command line; the card draws this one from the same
report (issue 20: the stored one looked unlike the rest of the card, with tiny text).
"""

from __future__ import annotations

from typing import Any

from django.utils.safestring import SafeString

from frontend.plots.svg import TOP, WIDTH, joined, svg, svg_html

SIDE = 300  # the square plot area
LEFT = 90
BOTTOM = 46


def _x(v: float) -> float:
    return LEFT + v * SIDE


def _y(v: float) -> float:
    return TOP + (1 - v) * SIDE


def reliability_plot(report: dict[str, Any]) -> SafeString:
    height = TOP + SIDE + BOTTOM
    parts = _frame(height)
    bins = report["reliability"]["bins"]
    most = max((row["n"] for row in bins), default=0) or 1
    for row in bins:
        parts.extend(_bin(row, most))
    label = "Reliability of the engine's p: observed yes rate against predicted, with 95% intervals"
    return svg(height, label, joined(parts), width=WIDTH)


def _frame(height: int) -> list[SafeString]:
    """The axes, the diagonal of perfect calibration, the ticks and the axis titles."""
    x, y = _x, _y
    parts = [
        svg_html(
            '<line class="plot-axis" x1="{}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"></line>'
            '<line class="plot-axis" x1="{}" y1="{}" x2="{}" y2="{:.1f}"></line>'
            '<line class="plot-reference" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"></line>',
            LEFT,
            y(0),
            x(1),
            y(0),
            LEFT,
            TOP,
            LEFT,
            y(0),
            x(0),
            y(0),
            x(1),
            y(1),
        )
    ]
    for tick in (0, 0.25, 0.5, 0.75, 1):
        parts.append(
            svg_html(
                '<text class="plot-label" x="{:.1f}" y="{:.1f}" text-anchor="middle">{}</text>'
                '<text class="plot-label" x="{}" y="{:.1f}" text-anchor="end">{}</text>',
                x(tick),
                y(0) + 18,
                f"{tick:g}",
                LEFT - 8,
                y(tick) + 5,
                f"{tick:g}",
            )
        )
    parts.append(
        svg_html(
            '<text class="plot-label" x="{:.1f}" y="{}" text-anchor="middle">engine p (bin mean)</text>'
            '<text class="plot-label" x="{}" y="{:.1f}" text-anchor="end">observed</text>'
            '<text class="plot-label" x="{}" y="{:.1f}" text-anchor="end">yes rate</text>',
            x(0.5),
            height - 4,
            LEFT - 8,
            y(0.5) - 30,
            LEFT - 8,
            y(0.5) - 14,
        )
    )
    return parts


def _bin(row: dict[str, Any], most: int) -> list[SafeString]:
    """One bin: its question count as a pale bar, and its observed yes rate with its interval."""
    x, y = _x, _y
    low, high = row["bin"]
    bar = row["n"] / most * SIDE * 0.25
    parts = [
        svg_html(
            '<rect class="plot-bar plot-count" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}">'
            "<title>{} questions</title></rect>",
            x(low) + 1,
            y(0) - bar,
            max(0.0, (high - low) * SIDE - 2),
            bar,
            row["n"],
        )
    ]
    if not row["n"]:
        return parts
    if row.get("low") is not None:
        parts.append(
            svg_html(
                '<line class="plot-interval" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"></line>',
                x(row["mean_p"]),
                y(row["low"]),
                x(row["mean_p"]),
                y(row["high"]),
            )
        )
    parts.append(
        svg_html(
            '<circle class="plot-dot" cx="{:.1f}" cy="{:.1f}" r="5"></circle>',
            x(row["mean_p"]),
            y(row["observed"]),
        )
    )
    return parts
