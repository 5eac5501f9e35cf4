"""Pillow drawings of synthetic street scenes, so that annotated attributes are visible in the pixels.

The picture is rebuilt from the JSON record alone: the street layout comes from ``street_layout`` (a
function of the image name and size), boxes and attributes from the record. What the record does not fix
(clothes colours, which way a walker faces, building facades) is drawn from a generator seeded by
``seed`` and the image name, so a scene renders identically every time.

Cues drawn for attributes: children are small with large heads; women wear a skirt, men trousers; walkers
and runners have their legs apart; sitting people are bent on a bench; a hat sits on the head; a carried
bag hangs from a hand; vehicles have a kind-specific silhouette, a light or dark body, exactly the wheels
counted by "visible tires", and speed lines when moving. Objects are painted far to near, so the picture's
occlusions follow the "occluding" relationships.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from PIL import Image, ImageDraw

from annotations.synthetic.scenes import (
    _BAG_EXTRA,
    _HAT_EXTRA,
    _POSE_BOX,
    BICYCLE,
    BUS,
    CAR,
    CARRYING,
    CHILD,
    CROSSING,
    FEMALE,
    HAT,
    MALE,
    MOTORCYCLE,
    MOVING,
    PERSON,
    RIDING,
    RUNNING,
    SITTING,
    STANDING,
    TALKING,
    TRUCK,
    VEHICLE,
    VEHICLE_SHAPES,
    WALKING,
    StreetLayout,
    street_layout,
    visible_wheels,
    wheel_occluders,
)

Colour = tuple[int, int, int]

SKY_TOP: Colour = (120, 170, 225)
SKY_HORIZON: Colour = (205, 225, 240)
FAR_SIDEWALK: Colour = (178, 174, 166)
NEAR_SIDEWALK: Colour = (190, 186, 178)
CURB: Colour = (120, 118, 112)
ASPHALT: Colour = (72, 74, 78)
LANE_WHITE: Colour = (235, 235, 228)
LANE_YELLOW: Colour = (225, 190, 60)
WHEEL: Colour = (25, 25, 25)
HUB: Colour = (150, 150, 150)
WINDOW_GLASS: Colour = (120, 150, 175)
# Hats and bags use colours found nowhere else, so tests (and people) can find them in the pixels.
HAT_COLOURS: tuple[Colour, ...] = ((150, 30, 30), (30, 60, 140), (62, 44, 36), (200, 120, 20))
BAG_COLOURS: tuple[Colour, ...] = ((110, 70, 30), (150, 40, 90), (20, 100, 110))
SKIN: tuple[Colour, ...] = ((245, 205, 170), (225, 175, 135), (175, 120, 80), (120, 80, 50))
HAIR: tuple[Colour, ...] = ((40, 30, 20), (90, 60, 30), (200, 170, 90), (20, 20, 20))
SHIRTS: tuple[Colour, ...] = (
    (60, 120, 200),
    (200, 60, 60),
    (60, 160, 90),
    (230, 200, 70),
    (240, 240, 240),
    (120, 80, 160),
    (255, 140, 60),
)
TROUSERS: tuple[Colour, ...] = ((40, 50, 90), (50, 50, 50), (110, 90, 60), (70, 80, 70))
SKIRTS: tuple[Colour, ...] = ((200, 50, 120), (150, 40, 40), (60, 60, 150), (240, 150, 170), (40, 110, 100))
LIGHT_BODIES: tuple[Colour, ...] = (
    (238, 238, 232),
    (222, 222, 205),
    (205, 215, 225),
    (240, 228, 175),
    (215, 235, 215),
)
DARK_BODIES: tuple[Colour, ...] = ((28, 28, 32), (35, 40, 85), (95, 20, 22), (22, 60, 32), (70, 60, 55))
BUILDINGS: tuple[Colour, ...] = (
    (170, 110, 90),
    (200, 185, 160),
    (150, 150, 155),
    (185, 160, 120),
    (120, 95, 85),
    (210, 200, 185),
)


def render_scene(scene: dict, seed: int = 0) -> Image.Image:
    """Draws a scene record (VTT.md section 9) as an RGB image of its width and height."""
    width, height = int(scene["width"]), int(scene["height"])
    layout = street_layout(scene["image"], width, height)
    rnd = random.Random(f"{seed}|{scene['image']}")
    image = Image.new("RGB", (width, height), SKY_TOP)
    draw = ImageDraw.Draw(image)
    _draw_background(draw, layout, rnd)
    objects = {obj["id"]: obj for obj in scene["objects"]}
    relations = scene.get("relationships", [])
    occluders = wheel_occluders(scene)
    ridden: dict[str, str] = {}  # rider id -> vehicle id
    partners: dict[str, str] = {}  # talker id -> someone they talk to
    for relation in relations:
        subject, predicate, target = relation["subject"], relation["predicate"], relation["object"]
        if predicate == RIDING:
            ridden[subject] = target
        elif predicate == TALKING:
            partners.setdefault(subject, target)
            partners.setdefault(target, subject)
    for obj in painter_order(scene["objects"], layout, ridden):
        if obj["type"] == VEHICLE:
            _draw_vehicle(draw, layout, obj, occluders.get(obj["id"], []), rnd)
        elif obj["type"] == PERSON:
            vehicle = objects.get(ridden.get(obj["id"], ""))
            if vehicle is not None:
                _draw_rider(draw, layout, obj, vehicle, rnd)
            else:
                facing = _facing(obj, objects.get(partners.get(obj["id"], "")), rnd)
                _draw_person(draw, layout, obj, facing, rnd)
    return image


def painter_order(objects: Sequence[dict], layout: StreetLayout, ridden: dict[str, str]) -> list[dict]:
    """Objects sorted far to near by the depth of their ground contact (the bottom of the box).

    A rider is drawn just after the vehicle it rides, whose ground contact it shares.
    """
    by_id = {obj["id"]: obj for obj in objects}

    def depth_key(obj: dict) -> tuple[float, int]:
        anchor = by_id.get(ridden.get(obj["id"], ""), obj)
        _, y, _, h = anchor["bbox"]
        return -layout.depth_at(y + h), 1 if anchor is not obj else 0

    return sorted(objects, key=depth_key)


def _facing(person: dict, partner: dict | None, rnd: random.Random) -> int:
    """+1 when facing right: talkers face their partner, others face a random way."""
    if partner is not None:
        x, _, w, _ = person["bbox"]
        px, _, pw, _ = partner["bbox"]
        return 1 if px + 0.5 * pw >= x + 0.5 * w else -1
    return 1 if rnd.random() < 0.5 else -1


# --------------------------------------------------------------------------------------------------
# Background.
# --------------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------------
# People.
# --------------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------------
# Vehicles.
# --------------------------------------------------------------------------------------------------


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
