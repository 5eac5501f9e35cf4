"""Which regions an object is "partially visible in" (docs/method.md section 3).

An object is visible in a region when the part of its box inside the region is more than `min_overlap`
of the box's area (default 0: any positive overlap). This one function serves fitting (all training
objects at once) and the oracle (one scene), so the two can never disagree by a rounding difference.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from kernel.regions import Region

CHUNK = 200_000  # objects per pass: bounds the temporary arrays to a few hundred MB at 64 regions


def region_fractions(regions: tuple[Region, ...]) -> npt.NDArray[np.float64]:
    return np.array([region.box for region in regions], dtype=np.float64).reshape(-1, 4)


def visibility_masks(
    boxes: npt.NDArray[np.float64],
    widths: npt.NDArray[np.float64],
    heights: npt.NDArray[np.float64],
    regions: tuple[Region, ...],
    min_overlap: float,
) -> npt.NDArray[np.uint64]:
    """Per object, a bit mask of the regions it is visible in (bit i = regions[i]).

    `boxes` is (n, 4) `[x, y, w, h]` in pixels; `widths`/`heights` are each object's image size.
    """
    n = len(boxes)
    masks = np.zeros(n, dtype=np.uint64)
    fractions = region_fractions(regions)
    bits = np.left_shift(np.uint64(1), np.arange(len(regions), dtype=np.uint64))
    for start in range(0, n, CHUNK):
        stop = min(n, start + CHUNK)
        visible = _visible(boxes[start:stop], widths[start:stop], heights[start:stop], fractions, min_overlap)
        masks[start:stop] = np.bitwise_or.reduce(np.where(visible, bits, np.uint64(0)), axis=1)
    return masks


def _visible(
    boxes: npt.NDArray[np.float64],
    widths: npt.NDArray[np.float64],
    heights: npt.NDArray[np.float64],
    fractions: npt.NDArray[np.float64],
    min_overlap: float,
) -> npt.NDArray[np.bool_]:
    x, y, w, h = (boxes[:, i : i + 1] for i in range(4))
    region_x0 = fractions[None, :, 0] * widths[:, None]
    region_y0 = fractions[None, :, 1] * heights[:, None]
    region_x1 = fractions[None, :, 2] * widths[:, None]
    region_y1 = fractions[None, :, 3] * heights[:, None]
    overlap_w = np.clip(np.minimum(x + w, region_x1) - np.maximum(x, region_x0), 0.0, None)
    overlap_h = np.clip(np.minimum(y + h, region_y1) - np.maximum(y, region_y0), 0.0, None)
    overlap: npt.NDArray[np.bool_] = overlap_w * overlap_h > min_overlap * (w * h)
    return overlap
