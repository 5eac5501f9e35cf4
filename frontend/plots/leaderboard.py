"""The leaderboard's plots: accuracy by position in the stream and by question kind, one colour per
system, each with its 95% Wilson interval."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils.safestring import SafeString

from frontend.plots.svg import joined, svg, svg_html

COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]
W, H, LEFT, RIGHT, TOP, BOTTOM = 640, 280, 48, 150, 16, 36

Series = Sequence[tuple[str, Any]]


def _y(value: float) -> float:
    return TOP + (1 - value) * (H - TOP - BOTTOM)


def _frame(x_label: str) -> list[SafeString]:
    """The plot area, the accuracy axis (0 to 1, a dashed line at one half) and the x axis' name."""
    parts = [
        svg_html(
            '<rect x="{}" y="{}" width="{}" height="{}" fill="#fff" stroke="#999"></rect>',
            LEFT,
            TOP,
            W - LEFT - RIGHT,
            H - TOP - BOTTOM,
        )
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        dash = "4 3" if tick == 0.5 else "none"
        parts.append(
            svg_html(
                '<line x1="{}" x2="{}" y1="{:.1f}" y2="{:.1f}" stroke="#ddd" stroke-dasharray="{}"></line>'
                '<text class="plot-label" x="{}" y="{:.1f}" text-anchor="end">{}</text>',
                LEFT,
                W - RIGHT,
                _y(tick),
                _y(tick),
                dash,
                LEFT - 6,
                _y(tick) + 4,
                f"{tick:.2f}",
            )
        )
    parts.append(
        svg_html(
            '<text class="plot-label" x="{:.1f}" y="{}" text-anchor="middle">{}</text>',
            (LEFT + W - RIGHT) / 2,
            H - 6,
            x_label,
        )
    )
    return parts


LEGEND_CHARACTERS = 19  # what fits the legend's column in its small type


def legend_name(name: str) -> str:
    """A system's name as the legend has room for it: cut with an ellipsis, never mid-letter at the edge."""
    return name if len(name) <= LEGEND_CHARACTERS else name[: LEGEND_CHARACTERS - 1] + "…"


def _legend(names: Sequence[str]) -> list[SafeString]:
    return [
        svg_html(
            '<rect x="{}" y="{}" width="10" height="10" fill="{}"></rect>'
            '<text class="plot-legend" x="{}" y="{}"><title>{}</title>{}</text>',
            W - RIGHT + 10,
            TOP + 5 + 16 * i,
            COLOURS[i % len(COLOURS)],
            W - RIGHT + 24,
            TOP + 14 + 16 * i,
            name,
            legend_name(name),
        )
        for i, name in enumerate(names)
    ]


def accuracy_by_position(series: Series) -> SafeString:
    """One line per system: accuracy at each position in the stream, its 95% Wilson band shaded."""
    parts = _frame("position in the stream (1 = first question)")
    longest = max((len(points) for _, points in series), default=0)
    span = max(longest - 1, 1)

    def x(i: int) -> float:
        return LEFT + 10 + i * (W - LEFT - RIGHT - 20) / span

    for i in range(0, longest, max(1, longest // 10)):
        parts.append(
            svg_html(
                '<text class="plot-label" x="{:.1f}" y="{}" text-anchor="middle">{}</text>',
                x(i),
                H - BOTTOM + 14,
                i + 1,
            )
        )
    for n, (_, points) in enumerate(series):
        colour = COLOURS[n % len(COLOURS)]
        known = [(i, p) for i, p in enumerate(points) if p.get("value") is not None]
        if not known:
            continue
        upper = " ".join(f"{x(i):.1f},{_y(p['high']):.1f}" for i, p in known)
        lower = " ".join(f"{x(i):.1f},{_y(p['low']):.1f}" for i, p in reversed(known))
        line = " ".join(f"{x(i):.1f},{_y(p['value']):.1f}" for i, p in known)
        parts.append(
            svg_html(
                '<polygon points="{} {}" fill="{}" fill-opacity="0.15" stroke="none"></polygon>'
                '<polyline points="{}" fill="none" stroke="{}" stroke-width="2"></polyline>',
                upper,
                lower,
                colour,
                line,
                colour,
            )
        )
    parts.extend(_legend([name for name, _ in series]))
    return svg(H, "Accuracy by position in the stream", joined(parts), width=W)


def accuracy_by_kind(
    series: Series,
    kinds: Sequence[str],
    *,
    x_label: str = "question kind",
    title: str = "Accuracy by question kind",
) -> SafeString:
    """Grouped bars: accuracy per question kind (or any other group: `kinds` are the keys of each
    system's dict) for each system, with its 95% Wilson interval."""
    parts = _frame(x_label)
    present = [k for k in kinds if any(k in by_kind for _, by_kind in series)]
    group = (W - LEFT - RIGHT) / max(len(present), 1)
    bar = (group - 12) / max(len(series), 1)
    for g, kind in enumerate(present):
        gx = LEFT + g * group + 6
        parts.append(
            svg_html(
                '<text class="plot-label" x="{:.1f}" y="{}" text-anchor="middle">{}</text>',
                gx + (group - 12) / 2,
                H - BOTTOM + 14,
                kind,
            )
        )
        for n, (_, by_kind) in enumerate(series):
            p = by_kind.get(kind)
            if not p or p.get("value") is None:
                continue
            bx = gx + n * bar
            cx = bx + (bar - 2) / 2
            parts.append(
                svg_html(
                    '<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}" fill-opacity="0.8">'
                    "</rect>"
                    '<line x1="{:.1f}" x2="{:.1f}" y1="{:.1f}" y2="{:.1f}" stroke="#222"></line>',
                    bx,
                    _y(p["value"]),
                    max(bar - 2, 1.0),
                    _y(0) - _y(p["value"]),
                    COLOURS[n % len(COLOURS)],
                    cx,
                    cx,
                    _y(p["low"]),
                    _y(p["high"]),
                )
            )
    parts.extend(_legend([name for name, _ in series]))
    return svg(H, title, joined(parts), width=W)


def reliability_by_system(series: Series) -> SafeString:
    """The reliability diagram of the systems that gave probabilities (p_yes), one colour per system:
    per bin of p_yes, the share of yes truths (with its 95% Wilson interval) against the bin's mean p,
    on the diagonal of perfect calibration. `series`: (name, the score's `forecasts`.reliability)."""
    parts = _frame("p_yes given (the bin's mean)")

    def x(value: float) -> float:
        return LEFT + value * (W - LEFT - RIGHT)

    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        parts.append(
            svg_html(
                '<text class="plot-label" x="{:.1f}" y="{}" text-anchor="middle">{}</text>',
                x(tick),
                H - BOTTOM + 14,
                f"{tick:.2f}",
            )
        )
    parts.append(
        svg_html(
            '<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="#999" '
            'stroke-dasharray="4 3"></line>',
            x(0),
            _y(0),
            x(1),
            _y(1),
        )
    )
    for n, (name, bins) in enumerate(series):
        colour = COLOURS[n % len(COLOURS)]
        for row in bins:
            parts.append(
                svg_html(
                    '<line x1="{:.1f}" x2="{:.1f}" y1="{:.1f}" y2="{:.1f}" stroke="{}"></line>'
                    '<circle cx="{:.1f}" cy="{:.1f}" r="4" fill="{}"><title>{}: {} answers with p_yes in '
                    "[{}, {}): mean p {}, yes {}</title></circle>",
                    x(row["mean_p"]),
                    x(row["mean_p"]),
                    _y(row["low"]),
                    _y(row["high"]),
                    colour,
                    x(row["mean_p"]),
                    _y(row["observed"]),
                    colour,
                    name,
                    row["n"],
                    f"{row['bin'][0]:g}",
                    f"{row['bin'][1]:g}",
                    f"{row['mean_p']:.3f}",
                    f"{row['observed']:.3f}",
                )
            )
    parts.extend(_legend([name for name, _ in series]))
    return svg(
        H, "Reliability of the probabilities given: share of yes truths against p_yes", joined(parts), width=W
    )
