"""Scene graphs of synthetic parking lots (no pixels): a vocabulary nobody tuned the engine for.

A small world model, so that attributes, co-occurrences and relationships are correlated the way they
would be in photographs of a supermarket car park:

* the camera looks over the lot from a lamp post: the ground is seen in perspective (a point at depth
  ``z`` metres is ``focal * camera_height / z`` pixels below the horizon, drawn at ``focal / z`` pixels
  per metre). Rows of marked spaces run across the image at increasing depths, with driving aisles
  between them; the store is beyond the last row, so rows nearer the store are fuller;
* cars are parked in spaces (body and colour from a market mix; vans and pickups are wider and
  taller), a few drive along the aisles with their lights on (more often at dusk, a per-scene draw);
* people: shoppers walking between the store and their car (carrying bags on the way back), people
  loading a parked car from a full cart (its door open), people getting into a car (door open),
  children next to an adult, the odd person standing;
* carts: pushed (full on the way to a car, empty back towards the corral), next to a car being loaded,
  in the corral (empty) or stray;
* relationships are derived from the geometry and the groups and are complete: ``closer than`` holds
  when the subject is at least a metre nearer the camera, ``in front of`` when it is and the boxes
  also overlap horizontally; ``parked next to`` for cars in neighbouring spaces of one row.

Some objects have attributes marked unknown (far away and small).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

VOCABULARY = Path(__file__).with_name("parking-lot.json")

BODIES = (
    ("sedan", 0.45, 4.6, 1.8, 1.45),
    ("SUV", 0.3, 4.8, 1.9, 1.75),
    ("van", 0.12, 5.0, 2.0, 2.1),
    ("pickup", 0.13, 5.5, 2.0, 1.85),
)
COLORS = (("white", 0.3), ("black", 0.22), ("silver", 0.25), ("red", 0.12), ("blue", 0.11))
SPACE_WIDTH = 2.6


def _pick(rng: np.random.Generator, table: tuple[tuple[Any, ...], ...]) -> tuple[Any, ...]:
    weights = np.array([row[1] for row in table], dtype=float)
    return table[int(rng.choice(len(table), p=weights / weights.sum()))]


class _Camera:
    def __init__(self, rng: np.random.Generator, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.horizon = height * float(rng.uniform(0.18, 0.32))
        self.focal = width * float(rng.uniform(0.8, 1.1))
        self.camera_height = float(rng.uniform(4.0, 7.0))
        self.pan = float(rng.uniform(-6, 6))  # metres of lateral offset

    def box(self, x: float, z: float, w: float, h: float) -> list[float] | None:
        """Pixel box [x, y, w, h] of an upright object of width w, height h standing at (x, z)."""
        scale = self.focal / z
        foot = self.horizon + self.camera_height * scale
        left = self.width / 2 + (x - self.pan - w / 2) * scale
        box = [left, foot - h * scale, w * scale, h * scale]
        x0, y0 = max(0.0, box[0]), max(0.0, box[1])
        x1, y1 = min(float(self.width), box[0] + box[2]), min(float(self.height), box[1] + box[3])
        if x1 - x0 < 3 or y1 - y0 < 3:
            return None
        return [round(x0, 1), round(y0, 1), round(x1 - x0, 1), round(y1 - y0, 1)]


def generate_scene(rng: np.random.Generator, name: str) -> dict[str, Any]:
    width, height = 800, 600
    camera = _Camera(rng, width, height)
    dusk = rng.random() < 0.25
    busy = float(rng.uniform(0.2, 0.95))
    objects: list[dict[str, Any]] = []
    place: list[tuple[float, float]] = []  # (x, z) in metres
    relationships: list[tuple[int, str, int]] = []
    row_of: dict[int, tuple[int, int]] = {}

    def add(kind: str, x: float, z: float, w: float, h: float, attributes: list[str]) -> int | None:
        box = camera.box(x, z, w, h)
        if box is None:
            return None
        known = not (z > 45 and rng.random() < 0.5) and rng.random() > 0.02
        objects.append(
            {
                "id": f"o{len(objects)}",
                "type": kind,
                "bbox": box,
                "attributes": attributes if known else [],
                "attributes_known": known,
            }
        )
        place.append((x, z))
        return len(objects) - 1

    def car(x: float, z: float, state: str) -> int | None:
        body = _pick(rng, BODIES)
        color = _pick(rng, COLORS)[0]
        attributes = [body[0], color, state]
        lights = (state == "moving" and rng.random() < (0.9 if dusk else 0.4)) or rng.random() < 0.03
        if lights:
            attributes.append("with lights on")
        return add("car", x, z, body[3] if state == "parked" else body[2], body[4], attributes)

    rows = int(rng.integers(2, 5))
    first = float(rng.uniform(9, 14))
    cars_in_rows: list[list[int]] = []
    for r in range(rows):
        z = first + r * 11.0
        fullness = min(0.9, busy * (0.35 + 0.45 * r / max(1, rows - 1)))
        row: list[int] = []
        previous: int | None = None
        for s in range(-6, 7):
            index = car(s * SPACE_WIDTH, z, "parked") if rng.random() < fullness else None
            if index is not None:
                row_of[index] = (r, s)
                if previous is not None and row_of[previous] == (r, s - 1):
                    relationships.append((previous, "parked next to", index))
                previous = index
                row.append(index)
        cars_in_rows.append(row)
        if rng.random() < 0.35 * busy + (0.15 if dusk else 0):
            car(float(rng.uniform(-20, 20)), z + 5.5, "moving")

    def person(x: float, z: float, age: str, activity: str, extra: list[str]) -> int | None:
        tall = 1.75 if age == "adult" else 1.15
        return add(
            "person",
            x,
            z,
            0.55 if age == "adult" else 0.4,
            tall * float(rng.uniform(0.92, 1.06)),
            [age, activity, *extra],
        )

    def cart(x: float, z: float, fill: str, corral: bool) -> int | None:
        return add("cart", x, z, 0.6, 1.0, [fill] + (["in the corral"] if corral else []))

    parked = [i for row in cars_in_rows for i in row]
    for _ in range(int(rng.poisson(1 + 4 * busy))):
        roll = rng.random()
        if parked and roll < 0.3:  # loading a car from a full cart
            target = parked[int(rng.integers(len(parked)))]
            x, z = place[target]
            _open_door(objects[target])
            p = person(x + 1.6, z - 1.0, "adult", "loading", ["carrying bags"] if rng.random() < 0.5 else [])
            c = cart(x + 2.2, z - 0.6, "full" if rng.random() < 0.7 else "empty", False)
            if p is not None:
                relationships.append((p, "loading", target))
        elif parked and roll < 0.45:  # getting into a car, maybe with a child
            target = parked[int(rng.integers(len(parked)))]
            x, z = place[target]
            _open_door(objects[target])
            p = person(x - 1.3, z - 0.8, "adult", "standing", ["carrying bags"] if rng.random() < 0.3 else [])
            if p is not None:
                relationships.append((p, "getting into", target))
            if rng.random() < 0.3:
                k = person(x - 1.9, z - 1.0, "child", "standing", [])
                if k is not None:
                    relationships.append((k, "getting into", target))
        else:  # walking in an aisle, maybe pushing a cart, maybe with a child
            z = first + 5.5 + 11.0 * int(rng.integers(rows)) + float(rng.uniform(-1.5, 1.5))
            x = float(rng.uniform(-22, 22))
            back = rng.random() < 0.5  # from the store: bags, a full cart
            pushing = rng.random() < 0.45
            extra = ["carrying bags"] if back and not pushing and rng.random() < 0.8 else []
            extra += ["pushing a cart"] if pushing else []
            p = person(x, z, "adult", "walking", extra)
            if pushing:
                c = cart(x + 0.3, z - 0.9, "full" if back else "empty", False)
                if p is not None and c is not None:
                    relationships.append((p, "pushing", c))
            if rng.random() < 0.2:
                person(x + 0.8, z + 0.2, "child", "walking", [])
    if rng.random() < 0.6:  # the corral, with a few nested empty carts
        x, z = float(rng.uniform(-15, 15)), first + 5.5 + 11.0 * int(rng.integers(rows))
        for k in range(int(rng.integers(1, 5))):
            cart(x + 0.25 * k, z + 0.05 * k, "empty", True)
    for _ in range(int(rng.poisson(0.4))):
        cart(float(rng.uniform(-20, 20)), first + float(rng.uniform(0, 11.0 * rows)), "empty", False)
    for _ in range(int(rng.poisson(0.5))):
        z = first + float(rng.uniform(0, 11.0 * rows))
        person(float(rng.uniform(-20, 20)), z, "adult", "standing", [])

    for a in range(len(objects)):
        for b in range(len(objects)):
            if a != b and place[a][1] + 1.0 <= place[b][1]:
                relationships.append((a, "closer than", b))
                if _overlap_x(objects[a], objects[b]):
                    relationships.append((a, "in front of", b))
    return {
        "image": name,
        "width": width,
        "height": height,
        "objects": objects,
        "relationships": [
            {"subject": f"o{s}", "predicate": p, "object": f"o{o}"} for s, p, o in relationships
        ],
    }


def _open_door(obj: dict[str, Any]) -> None:
    if obj["attributes_known"] and "with a door open" not in obj["attributes"]:
        obj["attributes"].append("with a door open")


def _overlap_x(a: dict[str, Any], b: dict[str, Any]) -> bool:
    ax, _, aw, _ = a["bbox"]
    bx, _, bw, _ = b["bbox"]
    return min(ax + aw, bx + bw) - max(ax, bx) > 0


def generate_scenes(count: int, seed: int) -> Iterator[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    digits = max(6, int(math.log10(max(count, 1))) + 1)
    for i in range(count):
        yield generate_scene(rng, f"lot-{seed}-{i:0{digits}d}.png")


def main() -> None:
    import argparse
    import sys

    parser = argparse.ArgumentParser(description="Write synthetic parking-lot scene graphs as JSON Lines.")
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for scene in generate_scenes(args.count, args.seed):
        sys.stdout.write(json.dumps(scene) + "\n")


if __name__ == "__main__":
    main()
