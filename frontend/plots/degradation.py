"""The ranking check's plots: accuracy against degradation, one curve per kind of degradation with its
95% band, the blind guessers as reference lines (the test card); and accuracy by reference distance
(the leaderboard). Hand-written SVG like every plot (docs/decisions/0020-card-plots-hand-written-svg.md),
on the leaderboard's frame and legend."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.safestring import SafeString

from frontend.plots.leaderboard import (
    LEFT,
    RIGHT,
    H,
    Series,
    _frame,
    _tick,
    _y,
    accuracy_by_kind,
    series_colour,
    with_legend,
)
from frontend.plots.svg import WIDTH, joined, svg, svg_html
from scoring.references import REFERENCE_BINS

# The names a person reads, in the order of scoring.simulation.FAMILIES.
FAMILY_NAMES = {
    "objects": "objects (x)",
    "attributes": "attributes (q)",
    "relationships": "relations (r)",
}


# The curves are a plot of the test card: drawn as wide as its other plots (frontend.plots.svg) and laid
# out in a cell of the same width, so that their type is the same size on screen (issue 46: on the
# leaderboard's narrower frame, shown as wide, it was twice the size).
CARD_W = WIDTH


def _x(level: float) -> float:
    return LEFT + 10 + level * (CARD_W - LEFT - RIGHT - 20)


def _reference_line(value: float, label: str, dash: str, *, right: bool = False) -> SafeString:
    """A dashed line across the plot, named at its left end (or its right: two close lines' names
    must not overlap)."""
    return svg_html(
        '<line x1="{}" x2="{}" y1="{:.1f}" y2="{:.1f}" stroke="#555" stroke-dasharray="{}"></line>'
        '<text class="plot-label" x="{}" y="{:.1f}" text-anchor="{}">{}</text>',
        LEFT,
        CARD_W - RIGHT,
        _y(value),
        _y(value),
        dash,
        CARD_W - RIGHT - 20 if right else LEFT + 4,
        _y(value) - 4,
        "end" if right else "start",
        label,
    )


def degradation_curves(report: Mapping[str, Any], *, learned: float | None = None) -> SafeString:
    """Accuracy against the share of the information destroyed (0: the oracle; 1: x = 1, q = r = 1/2),
    one line and band per kind of degradation on the questions it reaches; a dot at the end of each
    marks the blind prior on those questions. Dashed: the blind prior on the whole test, and the
    learned blind guesser's accuracy when the test was audited."""
    parts = _frame("degradation, from 0 (the oracle) to 1", width=CARD_W)
    parts.extend(_tick(_x(level), f"{level:g}") for level in (0.0, 0.25, 0.5, 0.75, 1.0))
    families = report.get("families", {})
    for n, family in enumerate(families.values()):
        colour = series_colour(n)
        known = [p for p in family["points"] if p.get("value") is not None]
        if not known:
            continue
        upper = " ".join(f"{_x(p['level']):.1f},{_y(p['high']):.1f}" for p in known)
        lower = " ".join(f"{_x(p['level']):.1f},{_y(p['low']):.1f}" for p in reversed(known))
        line = " ".join(f"{_x(p['level']):.1f},{_y(p['value']):.1f}" for p in known)
        parts.append(
            svg_html(
                '<polygon points="{} {}" fill="{}" fill-opacity="0.12" stroke="none"></polygon>'
                '<polyline points="{}" fill="none" stroke="{}" stroke-width="2"></polyline>',
                upper,
                lower,
                colour,
                line,
                colour,
            )
        )
        blind = family["blind_prior"].get("value")
        if blind is not None:
            parts.append(
                svg_html(
                    '<circle cx="{:.1f}" cy="{:.1f}" r="4" fill="#fff" stroke="{}" stroke-width="2"></circle>',
                    _x(1.0),
                    _y(blind),
                    colour,
                )
            )
    if report.get("blind_prior", {}).get("value") is not None:
        parts.append(_reference_line(report["blind_prior"]["value"], "blind prior", "6 3"))
    if learned is not None:
        parts.append(_reference_line(learned, "learned blind guesser", "2 2", right=True))
    picture = svg(H, "Accuracy against degradation", joined(parts), width=CARD_W)
    return with_legend(picture, [FAMILY_NAMES.get(name, name) for name in families])


def accuracy_by_reference(series: Series) -> SafeString:
    """Grouped bars: accuracy by reference distance (its bins) for each system, with 95% intervals.
    Each system's figure is its score's `by_reference` list."""
    by_bin = [(name, {row["distance"]: row for row in rows}) for name, rows in series]
    return accuracy_by_kind(
        by_bin,
        [name for _, _, name in REFERENCE_BINS],
        x_label="steps back the label was made",
        title="Accuracy by reference distance",
    )
