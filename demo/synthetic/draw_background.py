"""Drawing the street behind the objects: sky, facades, sidewalks, curbs, asphalt and lane markings.

Everything but the facades follows from the street layout, itself a function of the image name and size;
the facades (widths, floors, colours, doors) are drawn from the renderer's generator.
"""

from __future__ import annotations

import random

from PIL import ImageDraw

from demo.synthetic.layout import StreetLayout
from demo.synthetic.palette import (
    ASPHALT,
    BUILDINGS,
    CURB,
    FAR_SIDEWALK,
    LANE_WHITE,
    LANE_YELLOW,
    NEAR_SIDEWALK,
    SKY_HORIZON,
    SKY_TOP,
    WINDOW_GLASS,
    Colour,
)


def _blend(a: Colour, b: Colour, t: float) -> Colour:
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


def _draw_background(draw: ImageDraw.ImageDraw, layout: StreetLayout, rnd: random.Random) -> None:
    width, height = layout.width, layout.height
    horizon = layout.horizon
    bands = 12
    for k in range(bands):  # sky gradient
        top, bottom = horizon * k / bands, horizon * (k + 1) / bands
        draw.rectangle((0, top, width, bottom + 1), fill=_blend(SKY_TOP, SKY_HORIZON, k / (bands - 1)))
    facade_y = layout.ground_y(layout.facade)
    far_curb_y = layout.ground_y(layout.far_curb)
    near_curb_y = layout.ground_y(layout.near_curb)
    _draw_buildings(draw, layout, facade_y, rnd)
    draw.rectangle((0, facade_y, width, far_curb_y), fill=FAR_SIDEWALK)
    draw.rectangle((0, far_curb_y, width, near_curb_y), fill=ASPHALT)
    draw.rectangle((0, near_curb_y, width, height), fill=NEAR_SIDEWALK)
    _draw_paving(draw, layout, near_curb_y)
    for depth in (layout.far_curb, layout.near_curb):
        y = layout.ground_y(depth)
        draw.line((0, y, width, y), fill=CURB, width=max(1, round(0.15 * layout.focal / depth)))
    _draw_lane_markings(draw, layout)


def _draw_buildings(
    draw: ImageDraw.ImageDraw, layout: StreetLayout, base_y: float, rnd: random.Random
) -> None:
    """A row of facades with windows and doors standing on the far sidewalk."""
    scale = layout.focal / layout.facade
    x = -rnd.random() * 8 * scale
    while x < layout.width:
        block = (6 + 10 * rnd.random()) * scale
        floors = 2 + int(6 * rnd.random())
        top = base_y - floors * 3.2 * scale
        colour = rnd.choice(BUILDINGS)
        draw.rectangle((x, top, x + block, base_y), fill=colour, outline=_blend(colour, (0, 0, 0), 0.3))
        window_w, window_h = 1.1 * scale, 1.5 * scale
        for floor in range(1, floors):
            wy = base_y - floor * 3.2 * scale - 2.2 * scale
            wx = x + 1.0 * scale
            while wx + window_w < x + block - 0.5 * scale:
                draw.rectangle((wx, wy, wx + window_w, wy + window_h), fill=WINDOW_GLASS)
                wx += 2.6 * scale
        door_x = x + (1 + (block / scale - 3) * rnd.random()) * scale
        draw.rectangle((door_x, base_y - 2.3 * scale, door_x + 1.2 * scale, base_y), fill=(80, 60, 45))
        x += block


def _draw_paving(draw: ImageDraw.ImageDraw, layout: StreetLayout, curb_y: float) -> None:
    """Joints of the near sidewalk slabs: lines across it converge to the centre of the horizon."""
    near, far = layout.nearest_ground, layout.near_curb
    lo, hi = layout.lateral_range(near)
    centre = 0.5 * layout.width
    lateral = 1.5 * int(lo / 1.5) - 1.5
    joint = _blend(NEAR_SIDEWALK, (0, 0, 0), 0.15)
    while lateral <= hi + 1.5:
        draw.line(
            (
                centre + lateral * layout.focal / far,
                curb_y,
                centre + lateral * layout.focal / near,
                layout.height,
            ),
            fill=joint,
        )
        lateral += 1.5
    depth = near + 1.5
    while depth < far:
        y = layout.ground_y(depth)
        draw.line((0, y, layout.width, y), fill=joint)
        depth += 1.5


def _draw_lane_markings(draw: ImageDraw.ImageDraw, layout: StreetLayout) -> None:
    """Parking lane edges solid, the centre line yellow, lines between same-way lanes dashed."""
    edges = layout.lane_edges
    middle = layout.street_middle
    for depth in edges[1:-1]:
        y = layout.ground_y(depth)
        thickness = max(1, round(0.12 * layout.focal / depth))
        if depth in (edges[1], edges[-2]):
            draw.line((0, y, layout.width, y), fill=LANE_WHITE, width=max(1, thickness // 2))
        elif abs(depth - middle) < 0.01:
            draw.line((0, y, layout.width, y), fill=LANE_YELLOW, width=thickness)
        else:
            _dashed_line(draw, layout, depth, y, thickness)


def _dashed_line(
    draw: ImageDraw.ImageDraw, layout: StreetLayout, depth: float, y: float, thickness: int
) -> None:
    scale = layout.focal / depth
    lo, hi = layout.lateral_range(depth)
    lateral = 8.0 * int(lo / 8.0) - 8.0
    while lateral < hi:
        x0 = 0.5 * layout.width + lateral * scale
        draw.line((x0, y, x0 + 3.0 * scale, y), fill=LANE_WHITE, width=thickness)
        lateral += 8.0
