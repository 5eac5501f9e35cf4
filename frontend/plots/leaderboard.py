"""The leaderboard's plots: accuracy by position in the stream and by question kind, one colour per
system, each with its 95% Wilson interval.

The picture is narrow (360 units) so that its type stays readable when a phone shrinks it to the
screen (about 330 px of 390: 0.9 px a unit) and a desktop shows three side by side; its legend is
HTML after it, in the page's own type, so that it never shrinks with the picture (issue 38: at 390 px
the legend drawn inside the picture was 3 px high)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils.safestring import SafeString

from frontend.plots.svg import joined, svg, svg_html

COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]
W, H, LEFT, RIGHT, TOP, BOTTOM = 360, 256, 52, 18, 12, 56
TICK_Y = H - BOTTOM + 16  # the tick labels under the x axis; a second row 14 lower when they crowd
TICK_ROW = 14
CHARACTER = 7.5  # about the width of a character of the plots' 13-unit type

Series = Sequence[tuple[str, Any]]


def series_colour(n: int) -> str:
    """The colour of a page's n-th series. Every plot of a page takes its series in the page's one
    order (the leaderboard's rows shown) and leaves a series it cannot draw out by its place, never by
    renumbering, so that a system has one colour in all of them (issue 46)."""
    return COLOURS[n % len(COLOURS)]


def _y(value: float) -> float:
    return TOP + (1 - value) * (H - TOP - BOTTOM)


def _frame(x_label: str, y_label: str = "accuracy", *, width: int = W) -> list[SafeString]:
    """The plot area, the y axis (0 to 1, a dashed line at one half) and both axes' names, on a picture
    `width` units wide (the leaderboard's W, or the test card's plots' width)."""
    parts = [
        svg_html(
            '<rect x="{}" y="{}" width="{}" height="{}" fill="#fff" stroke="#999"></rect>',
            LEFT,
            TOP,
            width - LEFT - RIGHT,
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
                width - RIGHT,
                _y(tick),
                _y(tick),
                dash,
                LEFT - 6,
                _y(tick) + 4,
                f"{tick:.2f}",
            )
        )
    middle = (TOP + H - BOTTOM) / 2
    parts.append(
        svg_html(
            '<text class="plot-axis-name" x="{:.1f}" y="{}" text-anchor="middle">{}</text>'
            '<text class="plot-axis-name" x="12" y="{:.1f}" text-anchor="middle" '
            'transform="rotate(-90 12 {:.1f})">{}</text>',
            (LEFT + width - RIGHT) / 2,
            H - 6,
            x_label,
            middle,
            middle,
            y_label,
        )
    )
    return parts


def _tick(x: float, label: Any, row: int = 0) -> SafeString:
    return svg_html(
        '<text class="plot-label" x="{:.1f}" y="{}" text-anchor="middle">{}</text>',
        x,
        TICK_Y + row * TICK_ROW,
        label,
    )


def legend_html(series: Sequence[tuple[int, str]]) -> SafeString:
    """The legend as an HTML list, each name whole beside a swatch of its colour: (colour index, name)."""
    items = [
        svg_html(
            '<li data-series="{}"><svg class="plot-swatch" viewBox="0 0 10 10" aria-hidden="true">'
            '<rect width="10" height="10" fill="{}"></rect></svg><span>{}</span></li>',
            n,
            series_colour(n),
            name,
        )
        for n, name in series
    ]
    return svg_html('<ul class="plot-legend">{}</ul>', joined(items))


def with_legend(picture: SafeString, names: Sequence[str]) -> SafeString:
    """A picture and, after it, the legend of its series in their order."""
    return joined([picture, legend_html(list(enumerate(names)))])


def position_bins(points: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each bin of positions once, in order, with its `first` and `last` position: while a test can
    be taken every position carries its bin's figures (scoring.scores.positions_binned); a position
    without them (a session's own score, a test archived) is a bin of its own."""
    bins: list[dict[str, Any]] = []
    for i, point in enumerate(points):
        first, last = point.get("first", i), point.get("last", i)
        if not bins or bins[-1]["first"] != first:
            bins.append({**point, "first": first, "last": last})
    return bins


def _one_pool(points: Sequence[dict[str, Any]]) -> bool:
    """Every position pooled into one bin: its line would be flat at the overall accuracy."""
    bins = position_bins(points)
    return len(bins) == 1 and bins[0]["last"] > bins[0]["first"]


def positions_pooled_note(minimum: int | None, streams: int | None) -> SafeString:
    """Why accuracy by position is not drawn while every row is one bin."""
    enough = f"at least {minimum} streams" if minimum else "enough streams"
    have = f"a session of this test has {streams} streams" if streams else "its sessions have fewer"
    return svg_html(
        '<p class="plot-empty" data-figure="positions-pooled"><strong>Accuracy by position is not drawn '
        "yet.</strong> While a test can be taken, the positions of a stream are pooled until {} reach "
        "them, so that no figure tells anything about one image; {}, so each row would be one flat line "
        "at its overall accuracy. It is drawn position by position once the test is archived.</p>",
        enough,
        have,
    )


def _steps(bins: Sequence[dict[str, Any]], x: Any) -> tuple[str, str, str]:
    """The points of a step line over the bins (flat over each bin, a riser between two), and of its
    band's upper and lower edges."""

    def edge(key: str, backwards: bool = False) -> str:
        points: list[tuple[float, float]] = []
        for b in reversed(bins) if backwards else bins:
            ends = (x(b["first"]), x(b["last"] + 1))
            points.extend((end, b[key]) for end in (reversed(ends) if backwards else ends))
        return " ".join(f"{px:.1f},{_y(v):.1f}" for px, v in points)

    return edge("value"), edge("high"), edge("low", backwards=True)


def accuracy_by_position(
    series: Series, *, minimum: int | None = None, streams: int | None = None
) -> SafeString:
    """One step line per system: accuracy over each bin of positions in the stream (one position a bin
    once the test is archived), its 95% Wilson band shaded. A row whose positions are all one bin says
    nothing about position and is left out (named under the legend); when every row is, a sentence
    says why instead of the plot (`minimum`, `streams`: the pooling's minimum and a session's streams)."""
    drawn = [(n, name, points) for n, (name, points) in enumerate(series) if not _one_pool(points)]
    if series and not drawn:
        return positions_pooled_note(minimum, streams)
    parts = _frame("position in the stream (1 = first question)")
    longest = max((len(points) for _, _, points in drawn), default=1)

    def x(position: float) -> float:
        return LEFT + position * (W - LEFT - RIGHT) / longest

    for i in range(0, longest, max(1, (longest + 7) // 8)):
        parts.append(_tick(x(i + 0.5), i + 1))
    for n, _, points in drawn:
        known = [b for b in position_bins(points) if b.get("value") is not None]
        if not known:
            continue
        colour = series_colour(n)
        line, upper, lower = _steps(known, x)
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
    picture = svg(H, "Accuracy by position in the stream", joined(parts), width=W)
    shown = [picture, legend_html([(n, name) for n, name, _ in drawn])]
    left_out = [name for name, points in series if _one_pool(points)]
    if left_out:
        shown.append(
            svg_html(
                '<p class="muted small">Not drawn, each pooled into one bin (a flat line): {}.</p>',
                ", ".join(left_out),
            )
        )
    return joined(shown)


def _group_ticks(labels: Sequence[str], x_of: Any, width: float) -> list[SafeString]:
    """The groups' names under the axis, on two alternating rows when one row would crowd them."""
    crowded = max((len(label) for label in labels), default=0) * CHARACTER > width - 4
    return [_tick(x_of(g), label, g % 2 if crowded else 0) for g, label in enumerate(labels)]


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
    bar = (group - 8) / max(len(series), 1)
    parts.extend(_group_ticks(present, lambda g: LEFT + g * group + group / 2, group))
    for g, kind in enumerate(present):
        gx = LEFT + g * group + 4
        for n, (_, by_kind) in enumerate(series):
            p = by_kind.get(kind)
            if not p or p.get("value") is None:
                continue
            bx = gx + n * bar
            cx = bx + (bar - 1) / 2
            parts.append(
                svg_html(
                    '<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}" fill-opacity="0.8">'
                    "</rect>"
                    '<line x1="{:.1f}" x2="{:.1f}" y1="{:.1f}" y2="{:.1f}" stroke="#222"></line>',
                    bx,
                    _y(p["value"]),
                    max(bar - 1, 1.0),
                    _y(0) - _y(p["value"]),
                    series_colour(n),
                    cx,
                    cx,
                    _y(p["low"]),
                    _y(p["high"]),
                )
            )
    return with_legend(svg(H, title, joined(parts), width=W), [name for name, _ in series])


def reliability_by_system(series: Series) -> SafeString:
    """The reliability diagram of the systems that gave probabilities (p_yes), one colour per system:
    per bin of p_yes, the share of yes truths (with its 95% Wilson interval) against the bin's mean p,
    on the diagonal of perfect calibration. `series`: (name, the score's `forecasts`.reliability, or
    None for a system that gave none: it keeps its place, and so every other system its colour)."""
    parts = _frame("p_yes given (the bin's mean)", "share of yes truths")

    def x(value: float) -> float:
        return LEFT + value * (W - LEFT - RIGHT)

    parts.extend(_tick(x(tick), f"{tick:.2f}") for tick in (0.0, 0.25, 0.5, 0.75, 1.0))
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
    drawn = [(n, name, bins) for n, (name, bins) in enumerate(series) if bins is not None]
    for n, name, bins in drawn:
        colour = series_colour(n)
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
    picture = svg(
        H, "Reliability of the probabilities given: share of yes truths against p_yes", joined(parts), width=W
    )
    return joined([picture, legend_html([(n, name) for n, name, _ in drawn])])
