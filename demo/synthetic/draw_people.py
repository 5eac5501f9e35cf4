"""Drawing people so that their annotated attributes show: age, sex, motion, hat, bag, and riders.

Children are small with large heads; women wear a skirt, men trousers; walkers and runners have their legs
apart; sitting people are bent on a bench; a hat sits on the head; a carried bag hangs from a hand; a rider
leans over the handlebar of the two-wheeler. A figure fills the box the generator computed from the same
proportions (``world._POSE_BOX``, ``_HAT_EXTRA``, ``_BAG_EXTRA``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from PIL import ImageDraw

from demo.synthetic.layout import StreetLayout
from demo.synthetic.palette import BAG_COLOURS, HAIR, HAT_COLOURS, SHIRTS, SKIN, SKIRTS, TROUSERS
from demo.synthetic.vocabulary import (
    CARRYING,
    CHILD,
    CROSSING,
    FEMALE,
    HAT,
    MALE,
    RUNNING,
    SITTING,
    STANDING,
    WALKING,
)
from demo.synthetic.world import _BAG_EXTRA, _HAT_EXTRA, _POSE_BOX


def _value(attributes: Sequence[str], choices: Sequence[str], default: str) -> str:
    for value in attributes:
        if value in choices:
            return value
    return default


class _Outfit:
    """Colours of one person, drawn once so every body part agrees."""

    def __init__(self, rnd: random.Random) -> None:
        self.skin = rnd.choice(SKIN)
        self.hair = rnd.choice(HAIR)
        self.shirt = rnd.choice(SHIRTS)
        self.trousers = rnd.choice(TROUSERS)
        self.skirt = rnd.choice(SKIRTS)
        self.hat = rnd.choice(HAT_COLOURS)
        self.bag = rnd.choice(BAG_COLOURS)


def _figure_frame(
    layout: StreetLayout, obj: dict, motion: str, child: bool, hat: bool, carrying: bool
) -> tuple[float, float, float, float]:
    """(left, top of the head, stature in pixels, full box width), undoing clipping at the borders."""
    x, y, w, h = obj["bbox"]
    width_share, height_share = _POSE_BOX.get(motion, _POSE_BOX[STANDING])
    width_share += (0.03 if child else 0.0) + (_BAG_EXTRA if carrying else 0.0)
    height_share += _HAT_EXTRA if hat else 0.0
    stature = h / height_share
    full = max(w, width_share * stature)
    left = x + w - full if x <= 0 < full - w else x
    head_top = y + (_HAT_EXTRA * stature if hat else 0.0)
    return left, head_top, stature, full


def _draw_person(
    draw: ImageDraw.ImageDraw, layout: StreetLayout, obj: dict, facing: int, rnd: random.Random
) -> None:
    attributes = obj["attributes"]
    outfit = _Outfit(rnd)
    sex = _value(attributes, (MALE, FEMALE), MALE if rnd.random() < 0.5 else FEMALE)
    child = CHILD in attributes
    motion = _value(attributes, tuple(_POSE_BOX), STANDING)
    hat, carrying = HAT in attributes, CARRYING in attributes
    left, top, stature, full = _figure_frame(layout, obj, motion, child, hat, carrying)
    if motion == CROSSING:
        facing = 0  # crossing the street means walking towards the camera: drawn from the front
    bag_width = _BAG_EXTRA * stature if carrying else 0.0
    # The bag hangs on the side the person faces away from (the left one when seen from the front);
    # the body fills the rest of the box.
    body_left = left + (bag_width if facing >= 0 else 0.0)
    centre = body_left + 0.5 * (full - bag_width)
    head = (0.18 if child else 0.13) * stature
    hip_y = top + (0.52 if child else 0.5) * stature
    ground_y = obj["bbox"][1] + obj["bbox"][3]
    line = max(1, round(0.045 * stature))
    if motion == SITTING:  # the torso sits at the back of the box, the knees reach forward
        centre -= facing * 0.1 * stature
        hip_y = ground_y - 0.24 * stature
        _draw_bench(
            draw, centre - 0.3 * stature * facing, hip_y, centre + 0.2 * stature * facing, ground_y, line
        )
    shoulder_y = top + head + 0.03 * stature
    _draw_legs(draw, motion, sex, centre, hip_y, ground_y, stature, facing, outfit, line)
    _draw_torso(draw, centre, shoulder_y, hip_y, stature, outfit)
    hand = _draw_arms(draw, motion, centre, shoulder_y, hip_y, stature, facing, outfit, line)
    _draw_head(draw, centre, top, head, sex, facing, outfit)
    if hat:
        _draw_hat(draw, centre, top, head, stature, outfit)
    if carrying:
        _draw_bag(draw, hand, bag_width, stature, outfit)


def _draw_head(
    draw: ImageDraw.ImageDraw, centre: float, top: float, head: float, sex: str, facing: int, outfit: _Outfit
) -> None:
    r = 0.5 * head
    if sex == FEMALE:  # long hair behind the head
        draw.rectangle((centre - r, top + r, centre + r, top + 2.1 * r), fill=outfit.hair)
    draw.ellipse((centre - r, top, centre + r, top + head), fill=outfit.skin)
    draw.chord((centre - r, top, centre + r, top + head), 180, 360, fill=outfit.hair)
    eye = max(1.0, 0.12 * head)
    for ex in (centre + facing * 0.45 * r,) if facing else (centre - 0.38 * r, centre + 0.38 * r):
        draw.ellipse(
            (ex - 0.5 * eye, top + 1.15 * r - 0.5 * eye, ex + 0.5 * eye, top + 1.15 * r + 0.5 * eye),
            fill=(20, 20, 20),
        )


def _draw_torso(
    draw: ImageDraw.ImageDraw, centre: float, shoulder_y: float, hip_y: float, stature: float, outfit: _Outfit
) -> None:
    half = 0.1 * stature
    draw.rounded_rectangle(
        (centre - half, shoulder_y, centre + half, hip_y), radius=max(1, 0.3 * half), fill=outfit.shirt
    )


def _draw_arms(
    draw: ImageDraw.ImageDraw,
    motion: str,
    centre: float,
    shoulder_y: float,
    hip_y: float,
    stature: float,
    facing: int,
    outfit: _Outfit,
    line: int,
) -> tuple[float, float]:
    """Draws both arms; returns the position of the back hand (where a bag hangs).

    Seen from the front (``facing`` 0) the arms hang on both sides and the left hand holds the bag.
    """
    if facing == 0:
        back_hand = (centre - 0.15 * stature, hip_y + 0.02 * stature)
        front_hand = (centre + 0.15 * stature, hip_y + 0.02 * stature)
    else:
        swing = {WALKING: 0.1, RUNNING: 0.16}.get(motion, 0.0) * stature
        back_hand = (centre - facing * (0.1 * stature + swing), hip_y + 0.02 * stature)
        front_hand = (
            centre + facing * (0.1 * stature + swing),
            hip_y - (0.12 * stature if motion == RUNNING else 0),
        )
    for hand in (back_hand, front_hand):
        draw.line((centre, shoulder_y + 0.02 * stature, *hand), fill=outfit.shirt, width=line)
        draw.ellipse((hand[0] - line, hand[1] - line, hand[0] + line, hand[1] + line), fill=outfit.skin)
    return back_hand


def _draw_legs(
    draw: ImageDraw.ImageDraw,
    motion: str,
    sex: str,
    centre: float,
    hip_y: float,
    ground_y: float,
    stature: float,
    facing: int,
    outfit: _Outfit,
    line: int,
) -> None:
    leg_colour = outfit.trousers if sex == MALE else outfit.skin
    thick = max(line, round(0.06 * stature)) if sex == MALE else line
    if motion == SITTING:
        knee = (centre + facing * 0.22 * stature, hip_y)
        for shift in (0.0, 0.03 * stature):
            draw.line((centre, hip_y, knee[0] + facing * shift, knee[1]), fill=leg_colour, width=thick)
            draw.line(
                (knee[0] + facing * shift, knee[1], knee[0] + facing * shift, ground_y),
                fill=leg_colour,
                width=thick,
            )
        if sex == FEMALE:
            draw.polygon(
                [
                    (centre - 0.11 * stature, hip_y - 0.04 * stature),
                    (centre + 0.11 * stature, hip_y - 0.04 * stature),
                    (knee[0], hip_y + 0.04 * stature),
                    (centre, hip_y + 0.06 * stature),
                ],
                fill=outfit.skirt,
            )
        return
    spread = {WALKING: 0.13, RUNNING: 0.22, CROSSING: 0.07}.get(motion, 0.03) * stature
    toe = (facing if facing else 0.5) * 0.05 * stature
    for foot in (centre - spread, centre + spread):
        draw.line((centre, hip_y, foot, ground_y), fill=leg_colour, width=thick)
        draw.line(
            (foot - (0 if facing else toe), ground_y, foot + toe, ground_y), fill=(30, 30, 30), width=line
        )
    if sex == FEMALE:  # a skirt from the hips to above the knees
        skirt_bottom = hip_y + 0.22 * stature
        flare = 0.13 * stature + 0.5 * spread
        draw.polygon(
            [
                (centre - 0.1 * stature, hip_y - 0.03 * stature),
                (centre + 0.1 * stature, hip_y - 0.03 * stature),
                (centre + flare, skirt_bottom),
                (centre - flare, skirt_bottom),
            ],
            fill=outfit.skirt,
        )


def _draw_hat(
    draw: ImageDraw.ImageDraw, centre: float, head_top: float, head: float, stature: float, outfit: _Outfit
) -> None:
    """A crown above the head and a brim across its top: the box's extra height is the hat."""
    crown = _HAT_EXTRA * stature
    half = 0.45 * head
    draw.rectangle((centre - half, head_top - crown, centre + half, head_top + 0.2 * head), fill=outfit.hat)
    brim = max(1.0, 0.1 * head)
    draw.rectangle(
        (centre - 0.75 * head, head_top + 0.2 * head - brim, centre + 0.75 * head, head_top + 0.2 * head),
        fill=outfit.hat,
    )


def _draw_bag(
    draw: ImageDraw.ImageDraw, hand: tuple[float, float], bag_width: float, stature: float, outfit: _Outfit
) -> None:
    """A bag hanging from the back hand by a short strap."""
    hand_x, hand_y = hand
    top = hand_y + 0.03 * stature
    draw.line((hand_x, hand_y, hand_x, top), fill=outfit.bag, width=max(1, round(0.012 * stature)))
    draw.rectangle(
        (hand_x - 0.5 * bag_width, top, hand_x + 0.5 * bag_width, top + 0.13 * stature), fill=outfit.bag
    )


def _draw_bench(
    draw: ImageDraw.ImageDraw, back_x: float, seat_y: float, front_x: float, ground_y: float, line: int
) -> None:
    wood = (120, 85, 50)
    x0, x1 = sorted((back_x, front_x))
    draw.rectangle((x0, seat_y, x1, seat_y + 1.5 * line), fill=wood)
    draw.line((x0 + line, seat_y, x0 + line, ground_y), fill=(60, 60, 60), width=line)
    draw.line((x1 - line, seat_y, x1 - line, ground_y), fill=(60, 60, 60), width=line)


def _draw_rider(
    draw: ImageDraw.ImageDraw, layout: StreetLayout, obj: dict, vehicle: dict, rnd: random.Random
) -> None:
    """A seated figure leaning over the handlebar of the two-wheeler it rides."""
    outfit = _Outfit(rnd)
    attributes = obj["attributes"]
    x, y, w, h = obj["bbox"]
    _, vy, _, vh = vehicle["bbox"]
    direction = layout.direction_at(layout.depth_at(vy + vh))
    hat = HAT in attributes
    hat_height = 0.07 * h if hat else 0.0
    top = y + hat_height
    body = h - hat_height
    head = 0.2 * body
    back = x + (0.3 if direction > 0 else 0.7) * w
    seat_y = y + 0.62 * h
    shoulder = (back + direction * 0.12 * w, top + head + 0.04 * body)
    line = max(1, round(0.06 * body))
    legs = outfit.trousers if FEMALE not in attributes else outfit.skin
    knee = (back + direction * 0.3 * w, seat_y + 0.05 * body)
    draw.line((back, seat_y, *knee), fill=legs, width=line)
    draw.line((*knee, knee[0] - direction * 0.05 * w, y + h), fill=legs, width=line)
    draw.polygon(
        [
            (shoulder[0] - 0.12 * body, shoulder[1]),
            (shoulder[0] + 0.12 * body, shoulder[1]),
            (back + 0.1 * body, seat_y),
            (back - 0.1 * body, seat_y),
        ],
        fill=outfit.shirt,
    )
    hand = (x + (0.95 if direction > 0 else 0.05) * w, y + 0.48 * h)
    draw.line((*shoulder, *hand), fill=outfit.shirt, width=line)
    head_centre = shoulder[0] + direction * 0.05 * body
    sex = FEMALE if FEMALE in attributes else MALE
    _draw_head(draw, head_centre, top, head, sex, direction, outfit)
    if hat:
        _draw_hat(draw, head_centre, top, head, hat_height / _HAT_EXTRA, outfit)
    if CARRYING in attributes:  # a backpack
        pack = sorted((shoulder[0] - direction * 0.22 * body, shoulder[0] - direction * 0.1 * body))
        draw.rectangle(
            (pack[0], shoulder[1] + 0.04 * body, pack[1], shoulder[1] + 0.22 * body), fill=outfit.bag
        )
