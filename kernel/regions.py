"""Regions: the rectangles of an image that questions are asked about (docs/method.md section 9), the
default set W and a vocabulary's own list, checked."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from kernel.errors import VocabularyError, at

MAX_REGIONS = 64  # one uint64 visibility mask per object
DEFAULT_GRID_SIZES = (2, 3, 4)


@dataclass(frozen=True)
class Region:
    """A rectangle in fractions of the image: (x0, y0, x1, y1)."""

    id: str
    box: tuple[float, float, float, float]

    def pixel_box(self, width: float, height: float) -> list[float]:
        """`[x, y, width, height]` in pixels of an image, unrounded (docs/method.md section 9)."""
        x0, y0, x1, y1 = self.box
        return [x0 * width, y0 * height, (x1 - x0) * width, (y1 - y0) * height]

    def contains(self, other: Region) -> bool:
        ax0, ay0, ax1, ay1 = self.box
        bx0, by0, bx1, by1 = other.box
        return ax0 <= bx0 + 1e-9 and ay0 <= by0 + 1e-9 and bx1 <= ax1 + 1e-9 and by1 <= ay1 + 1e-9

    def intersects(self, other: Region) -> bool:
        ax0, ay0, ax1, ay1 = self.box
        bx0, by0, bx1, by1 = other.box
        return min(ax1, bx1) - max(ax0, bx0) > 1e-9 and min(ay1, by1) - max(ay0, by0) > 1e-9


def default_regions(grid_sizes: Sequence[int] = DEFAULT_GRID_SIZES) -> tuple[Region, ...]:
    """The whole image; its left, right, top and bottom halves; the cells of 2x2, 3x3 and 4x4 grids."""
    regions = [
        Region("whole", (0.0, 0.0, 1.0, 1.0)),
        Region("left", (0.0, 0.0, 0.5, 1.0)),
        Region("right", (0.5, 0.0, 1.0, 1.0)),
        Region("top", (0.0, 0.0, 1.0, 0.5)),
        Region("bottom", (0.0, 0.5, 1.0, 1.0)),
    ]
    for n in grid_sizes:
        for row in range(n):
            for col in range(n):
                regions.append(
                    Region(f"{n}x{n}-r{row}c{col}", (col / n, row / n, (col + 1) / n, (row + 1) / n))
                )
    return tuple(regions)


def parse_regions(raw: Any) -> tuple[str | tuple[Region, ...], tuple[Region, ...]]:
    """A vocabulary's `regions`: "default" or a list of {id, box}; its spec as stored, and the regions."""
    if raw == "default":
        return "default", default_regions()
    if not (isinstance(raw, list) and len(raw) > 0):
        raise VocabularyError('regions is "default" or a non-empty list', where="regions")
    if len(raw) > MAX_REGIONS:
        raise VocabularyError(f"at most {MAX_REGIONS} regions", where="regions")
    regions = [_parse_region(spec, f"regions[{i}]") for i, spec in enumerate(raw)]
    seen: set[str] = set()
    for region in regions:
        if region.id in seen:
            raise VocabularyError(f"duplicate region id {region.id!r}", where="regions")
        seen.add(region.id)
    return tuple(regions), tuple(regions)


def _parse_region(spec: Any, where: str) -> Region:
    if not isinstance(spec, dict):
        raise VocabularyError("a region is {id, box}", where=where)
    region_id = spec.get("id")
    if not (isinstance(region_id, str) and region_id != ""):
        raise VocabularyError("a region needs an id", where=at(where, "id"))
    box = spec.get("box")
    if not (isinstance(box, list) and len(box) == 4 and all(isinstance(v, int | float) for v in box)):
        raise VocabularyError("box is [x0, y0, x1, y1] in fractions of the image", where=at(where, "box"))
    x0, y0, x1, y1 = (float(v) for v in box)
    if not (0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1):
        raise VocabularyError("need 0 <= x0 < x1 <= 1 and 0 <= y0 < y1 <= 1", where=at(where, "box"))
    return Region(region_id, (x0, y0, x1, y1))
