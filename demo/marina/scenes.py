"""Scene graphs of synthetic marinas (no pixels): a third world the engine was never tuned on.

Written after the engine's estimator and its settings were fixed, and never used to choose them: it is
held out, like the street and parking worlds before it. A small world model, so that attributes,
co-occurrences and relationships are correlated as they would be in photographs of a harbour:

* the camera stands on the shore and looks over the water: a point at depth ``z`` metres is ``focal *
  camera_height / z`` pixels below the horizon, drawn at ``focal / z`` pixels per metre. A pier runs
  out from one side of the image; the moorings (lines of buoys) lie at increasing depths;
* boats: moored at a buoy (tied to it) or along the pier (moored beside their neighbours), or under
  way in the channel (sailboats with their sails up, motorboats, the odd ferry far out); rowboats near
  the pier; kind, hull colour and size are drawn from a mix;
* people: walking or standing on the pier, fishing from its end (children among them), rowing a
  rowboat or aboard a boat under way (wearing a life jacket more often than on the pier);
* buoys: red and green channel markers, yellow mooring buoys (with a boat tied or not);
* relationships are derived from the geometry and are complete: ``closer than`` when the subject is at
  least two metres nearer the camera, ``left of`` when its box ends left of the other's start,
  ``larger than`` for a boat at least 1.5 times longer.

Some objects have attributes marked unknown (far away and small).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

VOCABULARY = Path(__file__).with_name("marina.json")

# (kind, weight, length, height)
KINDS = (
    ("sailboat", 0.4, 9.0, 11.0),
    ("motorboat", 0.35, 7.0, 2.5),
    ("rowboat", 0.17, 3.5, 0.9),
    ("ferry", 0.08, 25.0, 7.0),
)
HULLS = (("white hull", 0.6), ("dark hull", 0.25), ("red hull", 0.15))


def _pick(rng: np.random.Generator, table: tuple[tuple[Any, ...], ...]) -> tuple[Any, ...]:
    weights = np.array([row[1] for row in table], dtype=float)
    return table[int(rng.choice(len(table), p=weights / weights.sum()))]


class _Camera:
    def __init__(self, rng: np.random.Generator, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.horizon = height * float(rng.uniform(0.25, 0.45))
        self.focal = width * float(rng.uniform(0.7, 1.2))
        self.camera_height = float(rng.uniform(2.0, 6.0))

    def box(self, x: float, z: float, w: float, h: float) -> list[float] | None:
        scale = self.focal / z
        foot = self.horizon + self.camera_height * scale
        left = self.width / 2 + (x - w / 2) * scale
        x0, y0 = max(0.0, left), max(0.0, foot - h * scale)
        x1, y1 = min(float(self.width), left + w * scale), min(float(self.height), foot)
        if x1 - x0 < 3 or y1 - y0 < 3:
            return None
        return [round(x0, 1), round(y0, 1), round(x1 - x0, 1), round(y1 - y0, 1)]


def generate_scene(rng: np.random.Generator, name: str) -> dict[str, Any]:
    width, height = 960, 540
    camera = _Camera(rng, width, height)
    objects: list[dict[str, Any]] = []
    place: list[tuple[float, float, float]] = []  # (x, z, length) in metres
    relationships: list[tuple[int, str, int]] = []

    def add(kind: str, x: float, z: float, w: float, h: float, attributes: list[str]) -> int | None:
        box = camera.box(x, z, w, h)
        if box is None:
            return None
        known = not (z > 70 and rng.random() < 0.6) and rng.random() > 0.02
        objects.append(
            {
                "id": f"o{len(objects)}",
                "type": kind,
                "bbox": box,
                "attributes": attributes if known else [],
                "attributes_known": known,
            }
        )
        place.append((x, z, w))
        return len(objects) - 1

    def boat(x: float, z: float, state: str, kind: tuple[Any, ...] | None = None) -> int | None:
        kind = kind or _pick(rng, KINDS)
        attributes = [kind[0], _pick(rng, HULLS)[0], state]
        if kind[0] == "sailboat" and state == "under way" and rng.random() < 0.8:
            attributes.append("with sails up")
        length = kind[2] * float(rng.uniform(0.8, 1.2))
        return add("boat", x, z, length, kind[3], attributes)

    def person(x: float, z: float, age: str, activity: str, where: str, jacket: float) -> int | None:
        attributes = [age, activity, where] + (["wearing a life jacket"] if rng.random() < jacket else [])
        return add("person", x, z, 0.5, 1.75 if age == "adult" else 1.15, attributes)

    def crew(index: int | None, x: float, z: float, count: int) -> None:
        if index is None or count == 0:
            return
        objects[index]["attributes"] += ["with people aboard"] if objects[index]["attributes_known"] else []
        for k in range(count):
            p = person(
                x + k * 0.7 - 0.5,
                z - 0.2,
                "adult" if rng.random() < 0.85 else "child",
                "standing",
                "aboard",
                0.7,
            )
            if p is not None:
                relationships.append((p, "aboard", index))

    pier_side = -1.0 if rng.random() < 0.5 else 1.0
    pier_x = pier_side * float(rng.uniform(6, 14))
    busy = float(rng.uniform(0.2, 1.0))
    # Boats along the pier, bow to stern, each beside the previous one.
    previous: int | None = None
    for k in range(int(rng.integers(0, 5))):
        z = 8.0 + 6.0 * k
        b = boat(pier_x - pier_side * 4.0, z, "moored") if rng.random() < 0.5 + 0.4 * busy else None
        if b is not None and previous is not None:
            relationships.append((previous, "moored beside", b))
        previous = b
    # The moorings: yellow buoys, most with a boat tied.
    for _ in range(int(rng.poisson(1 + 3 * busy))):
        x, z = float(rng.uniform(-30, 30)), float(rng.uniform(20, 80))
        tied = rng.random() < 0.7
        buoy = add("buoy", x, z, 0.6, 0.6, ["yellow"] + (["with a boat tied"] if tied else []))
        if tied:
            b = boat(x, z + 1.5, "moored")
            if b is not None and buoy is not None:
                relationships.append((b, "tied to", buoy))
    # The channel: markers and boats under way.
    channel = float(rng.uniform(30, 60))
    for side, colour in ((-1.0, "red"), (1.0, "green")):
        if rng.random() < 0.6:
            add("buoy", side * float(rng.uniform(8, 20)), channel, 0.8, 1.2, [colour])
    for _ in range(int(rng.poisson(0.5 + 1.5 * busy))):
        z = channel + float(rng.uniform(-10, 25))
        kind = _pick(rng, KINDS)
        b = boat(float(rng.uniform(-25, 25)), z, "under way", kind)
        if kind[0] != "ferry" and rng.random() < 0.5:
            crew(b, place[b][0] if b is not None else 0.0, z, int(rng.integers(1, 3)))
    # A rowboat near the pier, rowed by someone.
    if rng.random() < 0.35:
        z = float(rng.uniform(6, 20))
        b = boat(pier_x - pier_side * float(rng.uniform(5, 10)), z, "under way", KINDS[2])
        if b is not None:
            objects[b]["attributes"] += ["with people aboard"] if objects[b]["attributes_known"] else []
            p = person(place[b][0], z - 0.1, "adult", "rowing", "aboard", 0.6)
            if p is not None:
                relationships.append((p, "aboard", b))
    # People on the pier: walkers, standers, anglers at its end.
    for _ in range(int(rng.poisson(1 + 3 * busy))):
        z = float(rng.uniform(4, 35))
        activity = (
            "fishing" if z > 25 and rng.random() < 0.6 else ("walking" if rng.random() < 0.6 else "standing")
        )
        age = "child" if rng.random() < 0.2 else "adult"
        person(pier_x + float(rng.uniform(-1.5, 1.5)), z, age, activity, "on the pier", 0.1)

    for a in range(len(objects)):
        for b in range(len(objects)):
            if a == b:
                continue
            if place[a][1] + 2.0 <= place[b][1]:
                relationships.append((a, "closer than", b))
            ax, _, aw, _ = objects[a]["bbox"]
            bx = objects[b]["bbox"][0]
            if ax + aw < bx:
                relationships.append((a, "left of", b))
            if objects[a]["type"] == objects[b]["type"] == "boat" and place[a][2] >= 1.5 * place[b][2]:
                relationships.append((a, "larger than", b))
    return {
        "image": name,
        "width": width,
        "height": height,
        "objects": objects,
        "relationships": [
            {"subject": f"o{s}", "predicate": p, "object": f"o{o}"} for s, p, o in relationships
        ],
    }


def generate_scenes(count: int, seed: int) -> Iterator[dict[str, Any]]:
    rng = np.random.default_rng(seed)
    digits = max(6, int(math.log10(max(count, 1))) + 1)
    for i in range(count):
        yield generate_scene(rng, f"marina-{seed}-{i:0{digits}d}.png")


def main() -> None:
    import argparse
    import sys

    parser = argparse.ArgumentParser(description="Write synthetic marina scene graphs as JSON Lines.")
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for scene in generate_scenes(args.count, args.seed):
        sys.stdout.write(json.dumps(scene) + "\n")


if __name__ == "__main__":
    main()
