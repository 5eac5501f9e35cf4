"""Server-side SVG written by hand with format_html: every text escaped, no CDN, no JavaScript, no
plotting library (docs/decisions/0020-card-plots-hand-written-svg.md). Each plot is one <svg> whose
viewBox scales with the page, coloured by CSS classes or presentation attributes (never a style
attribute: the Content-Security-Policy), with a <title> and an aria-label that say what it shows; the
same figures are printed next to it for who would rather read."""

from __future__ import annotations

from typing import Any

from django.utils.html import format_html
from django.utils.safestring import SafeString

WIDTH = 480
ROW = 26
LEFT = 150  # room for the row labels
RIGHT = 70  # room for the value written after each bar
TOP = 8


def svg_html(template: str, *args: Any) -> SafeString:
    """format_html with numbers rounded first (format_html escapes its arguments into strings, so a
    format spec cannot apply); coordinates to a tenth of a unit are plenty for the eye."""
    rounded = [f"{a:.1f}" if isinstance(a, float) else a for a in args]
    return format_html(template.replace("{:.1f}", "{}"), *rounded)


def svg(height: int, label: str, body: SafeString, *, width: int = WIDTH) -> SafeString:
    return svg_html(
        '<svg class="plot" viewBox="0 0 {} {}" role="img" aria-label="{}"><title>{}</title>{}</svg>',
        width,
        height,
        label,
        label,
        body,
    )


def joined(parts: list[SafeString]) -> SafeString:
    """Pieces each made safe by svg_html, as one."""
    return SafeString("".join(parts))
