"""The test card's plots (docs/decisions/0020-card-plots-hand-written-svg.md).

Three shapes cover the card: horizontal bars of counts (question kinds), a histogram (stream lengths)
and proportions with their 95% interval against a reference line (yes rate, rejected share, blind
accuracy, where 0.5 is the point of the test).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from django.utils.safestring import SafeString

from frontend.plots.svg import LEFT, RIGHT, ROW, TOP, WIDTH, joined, svg, svg_html
from kernel.kinds import KINDS
from scoring.stats import proportion


def count_bars(rows: Sequence[tuple[str, int]], *, label: str) -> SafeString:
    """One horizontal bar per row, its length the count; the count written after it."""
    top = max((count for _, count in rows), default=0) or 1
    span = WIDTH - LEFT - RIGHT
    parts = []
    for i, (name, count) in enumerate(rows):
        y = TOP + i * ROW
        length = span * count / top
        parts.append(
            svg_html(
                '<text class="plot-label" x="{}" y="{}" text-anchor="end">{}</text>'
                '<rect class="plot-bar" x="{}" y="{}" width="{:.1f}" height="{}"></rect>'
                '<text class="plot-value" x="{:.1f}" y="{}">{}</text>',
                LEFT - 8,
                y + 17,
                name,
                LEFT,
                y + 4,
                length,
                ROW - 8,
                LEFT + length + 6,
                y + 17,
                count,
            )
        )
    return svg(TOP * 2 + ROW * len(rows), label, joined(parts))


def histogram(values: Sequence[int], *, label: str, unit: str = "questions") -> SafeString:
    """How many values fall on each integer (in at most 20 equal bins), as vertical bars."""
    height, bottom, left = 196, 38, 36
    if not values:
        return svg(60, label, svg_html('<text class="plot-label" x="10" y="34">no {} yet</text>', unit))
    low, high = min(values), max(values)
    width = max(1, -(-(high - low + 1) // 20))  # ceil: at most 20 bins
    bins = Counter((v - low) // width for v in values)
    count = (high - low) // width + 1
    tallest = max(bins.values())
    span_x = WIDTH - left - 10
    bar = min(span_x / count, 48.0)  # one or two bins stay bars, not walls
    parts = [
        svg_html(
            '<line class="plot-axis" x1="{}" y1="{}" x2="{}" y2="{}"></line>',
            left,
            height - bottom,
            left + max(bar * count, 120.0),
            height - bottom,
        ),
        svg_html(
            '<text class="plot-label" x="{}" y="{}" text-anchor="end">{}</text>',
            left - 4,
            TOP + 10,
            tallest,
        ),
    ]
    for b in range(count):
        start = low + b * width
        parts.extend(
            _histogram_bar(b, start, width, bins.get(b, 0), tallest, bar, count, height, bottom, left)
        )
    parts.append(
        svg_html(
            '<text class="plot-label" x="{}" y="{}" text-anchor="middle">{}</text>',
            left + bar * count / 2,
            height - 4,
            unit,
        )
    )
    return svg(height, label, joined(parts))


def _histogram_bar(
    b: int,
    start: int,
    width: int,
    n: int,
    tallest: int,
    bar: float,
    count: int,
    height: int,
    bottom: int,
    left: int,
) -> list[SafeString]:
    """Bin `b` of the histogram (values `start` to `start + width - 1`, `n` of them) and its tick label,
    on every bin when there are few, else on about six and the last."""
    h = (height - bottom - TOP) * n / tallest
    x = left + b * bar
    name = str(start) if width == 1 else f"{start}\u2013{start + width - 1}"
    parts = [
        svg_html(
            '<rect class="plot-bar" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}"><title>{}: {}</title></rect>',
            x + 1,
            height - bottom - h,
            max(bar - 2, 1),
            h,
            name,
            n,
        )
    ]
    if count <= 12 or b % max(1, count // 6) == 0 or b == count - 1:
        parts.append(
            svg_html(
                '<text class="plot-label" x="{:.1f}" y="{}" text-anchor="middle">{}</text>',
                x + bar / 2,
                height - bottom + 16,
                start,
            )
        )
    return parts


def proportion_dots(
    rows: Sequence[tuple[str, dict[str, Any]]], *, label: str, reference: float | None = 0.5
) -> SafeString:
    """Each proportion as a dot with its 95% interval on a 0 to 1 axis, and a dashed reference line."""
    span = WIDTH - LEFT - RIGHT
    height = TOP + ROW * len(rows) + 22
    parts = [
        svg_html(
            '<line class="plot-axis" x1="{}" y1="{}" x2="{}" y2="{}"></line>',
            LEFT,
            height - 20,
            LEFT + span,
            height - 20,
        )
    ]
    for tick in (0, 0.25, 0.5, 0.75, 1):
        parts.append(
            svg_html(
                '<text class="plot-label" x="{:.1f}" y="{}" text-anchor="middle">{}</text>',
                LEFT + span * tick,
                height - 5,
                f"{tick:g}",
            )
        )
    if reference is not None:
        parts.append(
            svg_html(
                '<line class="plot-reference" x1="{:.1f}" y1="{}" x2="{:.1f}" y2="{}"></line>',
                LEFT + span * reference,
                TOP,
                LEFT + span * reference,
                height - 20,
            )
        )
    for i, (name, p) in enumerate(rows):
        parts.extend(_proportion_row(name, p, TOP + i * ROW + ROW / 2, span))
    return svg(height, label, joined(parts))


def _proportion_row(name: str, p: dict[str, Any], y: float, span: float) -> list[SafeString]:
    """One proportion's row at height `y`: its name, and its dot with its interval (or "no data")."""
    parts = [
        svg_html(
            '<text class="plot-label" x="{}" y="{:.1f}" text-anchor="end">{}</text>',
            LEFT - 8,
            y + 5,
            name,
        )
    ]
    if p.get("value") is None:
        parts.append(svg_html('<text class="plot-value" x="{}" y="{:.1f}">no data</text>', LEFT + 4, y + 5))
        return parts
    if p.get("low") is not None:
        parts.append(
            svg_html(
                '<line class="plot-interval" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"></line>',
                LEFT + span * p["low"],
                y,
                LEFT + span * p["high"],
                y,
            )
        )
    parts.append(
        svg_html(
            '<circle class="plot-dot" cx="{:.1f}" cy="{:.1f}" r="5"></circle>'
            '<text class="plot-value" x="{}" y="{:.1f}">{}</text>',
            LEFT + span * p["value"],
            y,
            LEFT + span + 8,
            y + 5,
            f"{p['value']:.0%}",
        )
    )
    return parts


def card_plots(card: dict[str, Any]) -> dict[str, SafeString]:
    """The card's plots, by figure."""
    blind = [("all questions", card["blind_accuracy"])]
    blind += [(kind, p) for kind, p in card["blind_accuracy_by_kind"].items()]
    asked = card["answered"] + card["rejected"]
    return {
        "kinds": count_bars(
            [(kind, card["kinds"][kind]) for kind in KINDS], label="Answered questions by kind"
        ),
        "lengths": histogram(
            card["stream_lengths"]["values"], label="Stream lengths (answered questions per stream)"
        ),
        "rates": proportion_dots(
            [
                ("yes rate", card["yes_rate"]),
                ("rejected share", proportion(card["rejected"], asked)),
            ],
            label="Yes rate and rejected share, with 95% intervals; the dashed line is one half",
        ),
        "blind": proportion_dots(
            blind,
            label="Accuracy of a blind guesser (yes when the engine's p > 0.5), with 95% intervals; "
            "the dashed line is one half, the point of the test",
        ),
    }
