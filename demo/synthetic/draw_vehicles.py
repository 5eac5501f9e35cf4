"""Drawing vehicles seen from the side: kind-specific silhouettes, light or dark bodies, wheels, speed lines.

Exactly the wheels counted by "visible tires" are drawn (``wheels.visible_wheels``); a vehicle whose
attributes are unknown is drawn as a car, truck or bus, the solid bodies that ``wheels.hides_wheel`` expects.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from PIL import ImageDraw

from demo.synthetic.draw_people import _value
from demo.synthetic.layout import StreetLayout
from demo.synthetic.palette import DARK_BODIES, HUB, LIGHT_BODIES, WHEEL, WINDOW_GLASS, Colour
from demo.synthetic.vocabulary import BICYCLE, BUS, CAR, MOTORCYCLE, MOVING, TRUCK
from demo.synthetic.wheels import visible_wheels
from demo.synthetic.world import VEHICLE_SHAPES


def _draw_vehicle(
    draw: ImageDraw.ImageDraw, layout: StreetLayout, obj: dict, occluders: Sequence[dict], rnd: random.Random
) -> None:
    attributes = obj["attributes"]
    kind = _value(attributes, tuple(VEHICLE_SHAPES), "")
    if not kind:
        kind = _guess_solid_kind(layout, obj["bbox"])
    known_tone = [a for a in attributes if a in ("light-colored", "dark-colored")]
    light = known_tone[0] == "light-colored" if known_tone else rnd.random() < 0.5
    colour = rnd.choice(LIGHT_BODIES if light else DARK_BODIES)
    x, y, w, h = obj["bbox"]
    shape = VEHICLE_SHAPES[kind]
    length = h * shape.length / shape.height
    left = x + w - length if x <= 0 and x + w < layout.width else x
    direction = layout.direction_at(layout.depth_at(y + h))
    body = (left, y, left + length, y + h)
    if MOVING in attributes:
        _draw_speed_lines(draw, body, direction)
    wheels = visible_wheels(layout, kind, obj["bbox"], occluders)
    if kind in (BICYCLE, MOTORCYCLE):
        _draw_two_wheeler(draw, kind, body, direction, colour, wheels)
        return
    {CAR: _draw_car, TRUCK: _draw_truck, BUS: _draw_bus}[kind](draw, body, direction, colour)
    for cx, cy, r in wheels:
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=WHEEL)
        draw.ellipse((cx - 0.45 * r, cy - 0.45 * r, cx + 0.45 * r, cy + 0.45 * r), fill=HUB)


def _guess_solid_kind(layout: StreetLayout, bbox: Sequence[float]) -> str:
    """A kind for a vehicle whose attributes are unknown, from its real height: a car, truck or bus.

    Never a two-wheeler, because ``hides_wheel`` treats such vehicles as solid bodies.
    """
    _, y, w, h = bbox
    real_height = h * layout.depth_at(y + h) / layout.focal
    if real_height < 2.3:
        return CAR
    return BUS if w > 3.2 * h else TRUCK


def _along(body: tuple[float, float, float, float], direction: int, share: float) -> float:
    """x of the point ``share`` of the length from the rear of a vehicle."""
    left, _, right, _ = body
    return left + share * (right - left) if direction > 0 else right - share * (right - left)


def _span(body: tuple[float, float, float, float], direction: int, a: float, b: float) -> tuple[float, float]:
    xa, xb = _along(body, direction, a), _along(body, direction, b)
    return (xa, xb) if xa <= xb else (xb, xa)


def _draw_speed_lines(
    draw: ImageDraw.ImageDraw, body: tuple[float, float, float, float], direction: int
) -> None:
    left, top, right, bottom = body
    length = right - left
    rear = left if direction > 0 else right
    for share, reach in ((0.3, 0.25), (0.5, 0.4), (0.7, 0.2)):
        y = top + share * (bottom - top)
        draw.line(
            (rear - direction * 0.05 * length, y, rear - direction * (0.05 + reach) * length, y),
            fill=(245, 245, 245),
            width=max(1, round(0.03 * (bottom - top))),
        )


def _draw_car(
    draw: ImageDraw.ImageDraw, body: tuple[float, float, float, float], direction: int, colour: Colour
) -> None:
    left, top, right, bottom = body
    h = bottom - top
    draw.rounded_rectangle((left, top + 0.38 * h, right, bottom - 0.12 * h), radius=0.15 * h, fill=colour)
    rear_x, front_x = _along(body, direction, 0.2), _along(body, direction, 0.72)
    rear_roof, front_roof = _along(body, direction, 0.27), _along(body, direction, 0.6)
    draw.polygon(
        [(rear_x, top + 0.4 * h), (rear_roof, top), (front_roof, top), (front_x, top + 0.4 * h)], fill=colour
    )
    inset = 0.08 * h
    draw.polygon(
        [
            (rear_x + direction * 2 * inset, top + 0.38 * h),
            (rear_roof + direction * inset, top + inset),
            (front_roof - direction * inset, top + inset),
            (front_x - direction * 2 * inset, top + 0.38 * h),
        ],
        fill=WINDOW_GLASS,
    )
    light_x = _along(body, direction, 0.97)
    draw.ellipse(
        (light_x - 0.05 * h, top + 0.45 * h, light_x + 0.05 * h, top + 0.55 * h), fill=(250, 240, 150)
    )


def _draw_truck(
    draw: ImageDraw.ImageDraw, body: tuple[float, float, float, float], direction: int, colour: Colour
) -> None:
    left, top, right, bottom = body
    h = bottom - top
    cargo = _span(body, direction, 0.0, 0.7)
    cab = _span(body, direction, 0.72, 1.0)
    draw.rectangle((left, bottom - 0.25 * h, right, bottom - 0.12 * h), fill=(50, 50, 50))  # chassis
    draw.rectangle((cargo[0], top, cargo[1], bottom - 0.2 * h), fill=colour, outline=(60, 60, 60))
    draw.rounded_rectangle((cab[0], top + 0.2 * h, cab[1], bottom - 0.15 * h), radius=0.06 * h, fill=colour)
    window = _span(body, direction, 0.82, 0.97)
    draw.rectangle((window[0], top + 0.27 * h, window[1], top + 0.5 * h), fill=WINDOW_GLASS)


def _draw_bus(
    draw: ImageDraw.ImageDraw, body: tuple[float, float, float, float], direction: int, colour: Colour
) -> None:
    left, top, right, bottom = body
    h = bottom - top
    draw.rounded_rectangle((left, top, right, bottom - 0.1 * h), radius=0.1 * h, fill=colour)
    draw.rectangle((left, top + 0.62 * h, right, top + 0.68 * h), fill=(200, 60, 40))  # livery stripe
    share = 0.04
    while share < 0.9:
        window = _span(body, direction, share, share + 0.08)
        draw.rectangle((window[0], top + 0.15 * h, window[1], top + 0.5 * h), fill=WINDOW_GLASS)
        share += 0.1
    door = _span(body, direction, 0.9, 0.97)
    draw.rectangle((door[0], top + 0.15 * h, door[1], bottom - 0.12 * h), fill=(90, 110, 130))


def _draw_two_wheeler(
    draw: ImageDraw.ImageDraw,
    kind: str,
    body: tuple[float, float, float, float],
    direction: int,
    colour: Colour,
    wheels: Sequence[tuple[float, float, float]],
) -> None:
    """A bicycle frame (thin lines, open wheels) or a motorcycle (body between solid wheels)."""
    _, top, _, bottom = body
    h = bottom - top
    shape = VEHICLE_SHAPES[kind]
    radius = shape.wheel_radius * h
    rear = (_along(body, direction, shape.wheel_slots[0]), bottom - radius)
    front = (_along(body, direction, shape.wheel_slots[1]), bottom - radius)
    line = max(1, round(0.05 * h))
    if kind == BICYCLE:
        for cx, cy, r in wheels:
            draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=WHEEL, width=max(1, round(0.12 * r)))
        crank = (_along(body, direction, 0.45), bottom - radius)
        seat = (_along(body, direction, 0.38), top + 0.15 * h)
        bar = (_along(body, direction, 0.72), top + 0.1 * h)
        for a, b in ((rear, crank), (crank, seat), (seat, rear), (seat, bar), (crank, bar), (bar, front)):
            draw.line((*a, *b), fill=colour, width=line)
        draw.line((seat[0] - 0.08 * h, seat[1], seat[0] + 0.08 * h, seat[1]), fill=(30, 30, 30), width=line)
        draw.line(
            (bar[0], bar[1], bar[0] + direction * 0.08 * h, bar[1] - 0.05 * h), fill=(30, 30, 30), width=line
        )
        return
    for cx, cy, r in wheels:
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=WHEEL)
        draw.ellipse((cx - 0.4 * r, cy - 0.4 * r, cx + 0.4 * r, cy + 0.4 * r), fill=HUB)
    tank = _span(body, direction, 0.3, 0.75)
    draw.ellipse((tank[0], top + 0.3 * h, tank[1], bottom - 0.3 * h), fill=colour)
    seat = _span(body, direction, 0.2, 0.5)
    draw.rectangle((seat[0], top + 0.3 * h, seat[1], top + 0.38 * h), fill=(25, 25, 25))
    fork_top = (_along(body, direction, 0.8), top + 0.05 * h)
    draw.line((*front, *fork_top), fill=(90, 90, 90), width=line)
    draw.line(
        (fork_top[0], fork_top[1], fork_top[0] - direction * 0.1 * h, fork_top[1]),
        fill=(30, 30, 30),
        width=line,
    )
