"""Plots as inline SVG written by hand: no CDN, no JavaScript, no plotting library. Every text is
escaped; colours are presentation attributes (no inline style), so a strict Content-Security-Policy
allows them."""

from __future__ import annotations

from html import escape
from typing import Any

COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"]
W, H, LEFT, RIGHT, TOP, BOTTOM = 640, 280, 48, 150, 16, 36


def _frame(title: str, x_label: str) -> list[str]:
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {W} {H}" width="{W}" height="{H}" '
        f'role="img" aria-label="{escape(title)}" class="plot">',
        f"<title>{escape(title)}</title>",
        f'<rect x="{LEFT}" y="{TOP}" width="{W - LEFT - RIGHT}" height="{H - TOP - BOTTOM}" fill="#fff" stroke="#999"/>',
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = _y(tick)
        dash = ' stroke-dasharray="4 3"' if tick == 0.5 else ""
        parts.append(f'<line x1="{LEFT}" x2="{W - RIGHT}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"{dash}/>')
        parts.append(
            f'<text x="{LEFT - 6}" y="{y + 4:.1f}" font-size="11" text-anchor="end">{tick:.2f}</text>'
        )
    parts.append(
        f'<text x="{(LEFT + W - RIGHT) / 2}" y="{H - 6}" font-size="12" text-anchor="middle">{escape(x_label)}</text>'
    )
    return parts


def _y(value: float) -> float:
    return TOP + (1 - value) * (H - TOP - BOTTOM)


def _legend(parts: list[str], names: list[str]) -> None:
    for i, name in enumerate(names):
        y = TOP + 14 + 16 * i
        colour = COLOURS[i % len(COLOURS)]
        parts.append(f'<rect x="{W - RIGHT + 10}" y="{y - 9}" width="10" height="10" fill="{colour}"/>')
        parts.append(f'<text x="{W - RIGHT + 24}" y="{y}" font-size="11">{escape(name[:20])}</text>')


def accuracy_by_position(series: list[tuple[str, list[dict[str, Any]]]]) -> str:
    """One line per system: accuracy at each position in the stream, its 95% Wilson band shaded."""
    parts = _frame("Accuracy by position in the stream", "position in the stream (1 = first question)")
    longest = max((len(points) for _, points in series), default=0)
    span = max(longest - 1, 1)

    def x(i: int) -> float:
        return LEFT + 10 + i * (W - LEFT - RIGHT - 20) / span

    for i in range(0, longest, max(1, longest // 10)):
        parts.append(
            f'<text x="{x(i):.1f}" y="{H - BOTTOM + 14}" font-size="11" text-anchor="middle">{i + 1}</text>'
        )
    for n, (_, points) in enumerate(series):
        colour = COLOURS[n % len(COLOURS)]
        known = [(i, p) for i, p in enumerate(points) if p.get("value") is not None]
        if not known:
            continue
        upper = " ".join(f"{x(i):.1f},{_y(p['high']):.1f}" for i, p in known)
        lower = " ".join(f"{x(i):.1f},{_y(p['low']):.1f}" for i, p in reversed(known))
        parts.append(f'<polygon points="{upper} {lower}" fill="{colour}" fill-opacity="0.15" stroke="none"/>')
        line = " ".join(f"{x(i):.1f},{_y(p['value']):.1f}" for i, p in known)
        parts.append(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2"/>')
    _legend(parts, [name for name, _ in series])
    parts.append("</svg>")
    return "\n".join(parts)


def accuracy_by_kind(series: list[tuple[str, dict[str, dict[str, Any]]]], kinds: tuple[str, ...]) -> str:
    """Grouped bars: accuracy per question kind for each system, with its 95% Wilson interval."""
    parts = _frame("Accuracy by question kind", "question kind")
    present = [k for k in kinds if any(k in by_kind for _, by_kind in series)]
    group = (W - LEFT - RIGHT) / max(len(present), 1)
    bar = (group - 12) / max(len(series), 1)
    for g, kind in enumerate(present):
        gx = LEFT + g * group + 6
        parts.append(
            f'<text x="{gx + (group - 12) / 2:.1f}" y="{H - BOTTOM + 14}" font-size="11" text-anchor="middle">{escape(kind)}</text>'
        )
        for n, (_, by_kind) in enumerate(series):
            p = by_kind.get(kind)
            if not p or p.get("value") is None:
                continue
            colour = COLOURS[n % len(COLOURS)]
            bx = gx + n * bar
            parts.append(
                f'<rect x="{bx:.1f}" y="{_y(p["value"]):.1f}" width="{max(bar - 2, 1):.1f}" '
                f'height="{_y(0) - _y(p["value"]):.1f}" fill="{colour}" fill-opacity="0.8"/>'
            )
            cx = bx + (bar - 2) / 2
            parts.append(
                f'<line x1="{cx:.1f}" x2="{cx:.1f}" y1="{_y(p["low"]):.1f}" y2="{_y(p["high"]):.1f}" stroke="#222"/>'
            )
    _legend(parts, [name for name, _ in series])
    parts.append("</svg>")
    return "\n".join(parts)
