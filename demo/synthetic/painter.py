"""The painter: the background, then the objects far to near, so that occlusions follow the record.

Painting far to near makes the picture's occlusions follow the "occluding" relationships; a rider is drawn
just after the vehicle it rides, and people talking face each other. ``render_scene`` and ``painter_order``
are re-exported by ``render``, the public entry module.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from PIL import Image, ImageDraw

from demo.synthetic.draw_background import _draw_background
from demo.synthetic.draw_people import _draw_person, _draw_rider
from demo.synthetic.draw_vehicles import _draw_vehicle
from demo.synthetic.layout import StreetLayout, street_layout
from demo.synthetic.palette import SKY_TOP
from demo.synthetic.vocabulary import PERSON, RIDING, TALKING, VEHICLE
from demo.synthetic.wheels import wheel_occluders


def render_scene(scene: dict, seed: int = 0) -> Image.Image:
    """Draws a scene record (docs/method.md section 9) as an RGB image of its width and height."""
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
