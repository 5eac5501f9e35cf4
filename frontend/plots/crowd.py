"""The crowd's drawings: an annotator's version (or the merge) over the image, the boxes some
disagreement is about marked; and the quality page's chart of each annotator's gold accuracy with its
95% interval beside their agreement with the merge. Hand-written SVG as every plot (decision 0031)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.urls import reverse
from django.utils.safestring import SafeString

from annotations.models import Image
from frontend.plots.svg import TOP, WIDTH, joined, svg, svg_html

DRAWING = 320  # the longer side of a version's drawing


def version_drawing(image: Image, version: Mapping[str, Any], marked: Iterable[str]) -> SafeString:
    """The version's boxes over the image (its pixels when it has some), each named by its id; the ids
    in `marked` drawn as disagreements."""
    scale = DRAWING / max(image.width, image.height)
    width, height = round(image.width * scale), round(image.height * scale)
    marked = set(marked)
    parts = []
    if image.file:
        parts.append(
            svg_html(
                '<image href="{}" x="0" y="0" width="{}" height="{}"></image>',
                reverse("api:image-file", args=[image.pk]),
                width,
                height,
            )
        )
    for obj in version.get("objects", []):
        x, y, w, h = (v * scale for v in obj["bbox"])
        kind = "crowd-box disagree" if obj["id"] in marked else "crowd-box"
        parts.append(
            svg_html(
                '<rect class="{}" x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}"></rect>'
                '<text class="plot-label" x="{:.1f}" y="{:.1f}">{}</text>',
                kind,
                x,
                y,
                w,
                h,
                x + 2,
                y + 12,
                f"{obj['id']} {obj['type']}",
            )
        )
    label = f"{version.get('annotator', '')}: {len(version.get('objects', []))} boxes"
    return svg(height, label, joined(parts), width=width)


ROW = 30
LEFT = 130


def quality_chart(rows: list[dict[str, Any]]) -> SafeString:
    """Per annotator, a dot at their gold accuracy with its 95% interval (blue), and a bar of their
    agreement with the merge (pale), on one 0 to 1 axis."""
    height = TOP + ROW * len(rows) + 30
    span = WIDTH - LEFT - 20
    parts = [
        svg_html(
            '<line class="plot-axis" x1="{}" y1="{}" x2="{}" y2="{}"></line>', LEFT, TOP, LEFT, height - 30
        )
    ]
    for tick in (0, 0.5, 1):
        parts.append(
            svg_html(
                '<text class="plot-label" x="{:.1f}" y="{}" text-anchor="middle">{}</text>',
                LEFT + tick * span,
                height - 12,
                f"{tick:.0%}",
            )
        )
    for n, row in enumerate(rows):
        y = TOP + n * ROW + ROW / 2
        parts.append(
            svg_html(
                '<text class="plot-label" x="{}" y="{:.1f}" text-anchor="end">{}</text>',
                LEFT - 8,
                y + 5,
                row["annotator"],
            )
        )
        if row.get("merge_agreement") is not None:
            parts.append(
                svg_html(
                    '<rect class="plot-count" x="{}" y="{:.1f}" width="{:.1f}" height="10"></rect>',
                    LEFT,
                    y - 5,
                    row["merge_agreement"] * span,
                )
            )
        if row.get("gold_accuracy") is not None:
            low, high = row["gold_low"], row["gold_high"]
            parts.append(
                svg_html(
                    '<line class="plot-interval" x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}"></line>'
                    '<circle class="plot-dot" cx="{:.1f}" cy="{:.1f}" r="5"></circle>',
                    LEFT + low * span,
                    y,
                    LEFT + high * span,
                    y,
                    LEFT + row["gold_accuracy"] * span,
                    y,
                )
            )
    label = "Each annotator's gold accuracy with its 95% interval (dot and line) and agreement with the merge (bar)"
    return svg(height, label, joined(parts))
