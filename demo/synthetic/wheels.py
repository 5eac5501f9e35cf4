"""Wheels of side-view vehicles: where they are, and which of them are visible.

Shared with the renderer so that the drawn tyres are exactly the "visible tires" attribute.
"""

from __future__ import annotations

from collections.abc import Sequence

from demo.synthetic.layout import StreetLayout
from demo.synthetic.vocabulary import (
    BICYCLE,
    MOTORCYCLE,
    OCCLUDING,
    RIDING,
    SITTING,
    TIRE_COUNTS,
    VEHICLE,
)
from demo.synthetic.world import _POSE_BOX, VEHICLE_SHAPES


def wheel_positions(
    layout: StreetLayout, kind: str, bbox: Sequence[float]
) -> list[tuple[float, float, float]]:
    """Centres and radii (pixels) of all wheels of a side-view vehicle, including those out of frame.

    A box cut by the left or right image border is extended back to its full length using the kind's
    fixed aspect ratio (vehicles are never generated cut on both sides or at the top).
    """
    x, y, w, h = bbox
    shape = VEHICLE_SHAPES[kind]
    full_length = h * shape.length / shape.height
    left = x + w - full_length if x <= 0.0 and x + w < layout.width else x
    direction = layout.direction_at(layout.depth_at(y + h))
    rear = left if direction > 0 else left + full_length
    radius = shape.wheel_radius * h
    centre_y = y + h - radius
    return [(rear + direction * slot * full_length, centre_y, radius) for slot in shape.wheel_slots]


def hides_wheel(occluder: dict, cx: float, cy: float, radius: float) -> bool:
    """Whether a closer object, as drawn by the renderer, covers the wheel centred at (cx, cy).

    ``occluder`` is an object of the record. Car, truck and bus bodies are solid (an object whose
    attributes are unknown is drawn as a car); bicycles and motorcycles are open frames and hide nothing;
    a person hides a wheel only behind the torso, the one part of a figure wider than a distant wheel.
    """
    x, y, w, h = occluder["bbox"]
    attributes = occluder["attributes"]
    if occluder["type"] == VEHICLE:
        if BICYCLE in attributes or MOTORCYCLE in attributes:
            return False
        return x <= cx <= x + w and y <= cy <= y + 0.88 * h  # the body, not the gap under it
    sitting = SITTING in attributes
    stature = h / (_POSE_BOX[SITTING][1] if sitting else 1.0)
    half_width = 0.06 * stature - radius  # the torso is 0.2 stature wide, a bag may shift it aside
    top = y + 0.2 * stature + radius
    bottom = (y + h - 0.24 * stature if sitting else y + 0.5 * stature) - radius
    return half_width > 0 and abs(cx - (x + 0.5 * w)) <= half_width and top <= cy <= bottom


def wheel_occluders(scene: dict) -> dict[str, list[dict]]:
    """For each object id, the objects of the record that occlude it and could hide its wheels.

    Riders are left out: they sit at the depth of their own vehicle and lean over it, so they never
    cover another vehicle's wheel in the drawing.
    """
    by_id = {obj["id"]: obj for obj in scene["objects"]}
    riders = {r["subject"] for r in scene["relationships"] if r["predicate"] == RIDING}
    occluders: dict[str, list[dict]] = {}
    for relation in scene["relationships"]:
        if relation["predicate"] == OCCLUDING and relation["subject"] not in riders:
            occluders.setdefault(relation["object"], []).append(by_id[relation["subject"]])
    return occluders


def visible_wheels(
    layout: StreetLayout, kind: str, bbox: Sequence[float], occluders: Sequence[dict]
) -> list[tuple[float, float, float]]:
    """Wheels whose centre is inside the image and not hidden by one of ``occluders``."""
    return [
        (cx, cy, r)
        for cx, cy, r in wheel_positions(layout, kind, bbox)
        if 0.0 <= cx <= layout.width and not any(hides_wheel(o, cx, cy, r) for o in occluders)
    ]


def tire_count_value(count: int) -> str:
    return TIRE_COUNTS[min(count, 3)]
