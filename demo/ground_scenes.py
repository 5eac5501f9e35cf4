"""The steps the parking-lot and marina generators share: scene graphs of a world seen over flat ground.

Both worlds are a camera looking over a plane (a car park, a harbour's water) at objects standing on
it, with attributes, relationships derived from where things stand, and the same JSON Lines record as
the street scenes (docs/method.md section 9). What differs, the world model, stays in each generator
(`demo.parking.scenes`, `demo.marina.scenes`); what is here is written once:

* `GroundCamera`: the perspective (a point at depth ``z`` metres is ``focal * camera_height / z``
  pixels below the horizon, drawn at ``focal / z`` pixels per metre) and the box it gives an upright
  object, clipped to the image;
* `GroundScene`: the objects as they are placed (with their attributes marked unknown, now and then,
  and more often far away), the relationships, the rule over every ordered pair, and the record;
* `pick`, `scene_series`, `command_line`: a weighted draw from a table, the seeded series of scenes and
  the command line that writes it.

Plain Python and numpy, never Django (an import-linter contract), so the audit and the benchmarks can
generate scenes without a configured site. Every random draw is made in the order the generators made
it before they shared these steps, so a seed gives the same scenes.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

import numpy as np

Scene = dict[str, Any]


def pick(rng: np.random.Generator, table: tuple[tuple[Any, ...], ...]) -> tuple[Any, ...]:
    """One row of ``table``, drawn with the weights in each row's second column."""
    weights = np.array([row[1] for row in table], dtype=float)
    return table[int(rng.choice(len(table), p=weights / weights.sum()))]


class GroundCamera:
    """A camera at ``camera_height`` metres over flat ground, drawn at random within the world's ranges.

    ``pan`` (metres of lateral offset) is drawn only when the world gives a range for it.
    """

    def __init__(
        self,
        rng: np.random.Generator,
        width: int,
        height: int,
        *,
        horizon: tuple[float, float],
        focal: tuple[float, float],
        camera_height: tuple[float, float],
        pan: tuple[float, float] | None = None,
    ) -> None:
        self.width, self.height = width, height
        self.horizon = height * float(rng.uniform(*horizon))
        self.focal = width * float(rng.uniform(*focal))
        self.camera_height = float(rng.uniform(*camera_height))
        self.pan = float(rng.uniform(*pan)) if pan is not None else 0.0

    def box(self, x: float, z: float, w: float, h: float) -> list[float] | None:
        """Pixel box [x, y, w, h] of an upright object of width w, height h standing at (x, z), clipped
        to the image; None when less than 3 pixels of it are seen either way."""
        scale = self.focal / z
        foot = self.horizon + self.camera_height * scale
        left = self.width / 2 + (x - self.pan - w / 2) * scale
        x0, y0 = max(0.0, left), max(0.0, foot - h * scale)
        x1, y1 = min(float(self.width), left + w * scale), min(float(self.height), foot)
        if x1 - x0 < 3 or y1 - y0 < 3:
            return None
        return [round(x0, 1), round(y0, 1), round(x1 - x0, 1), round(y1 - y0, 1)]


class Spot(NamedTuple):
    """Where an object stands, in metres: across (x), away from the camera (z), and its width."""

    x: float
    z: float
    width: float


class GroundScene:
    """One scene as it is built: the objects placed so far, where they stand, and their relationships.

    An object's attributes are unknown (far away and small) with probability ``far_unknown`` beyond
    ``far`` metres, and with probability 0.02 anywhere.
    """

    def __init__(
        self, rng: np.random.Generator, camera: GroundCamera, *, far: float, far_unknown: float
    ) -> None:
        self.rng, self.camera = rng, camera
        self.far, self.far_unknown = far, far_unknown
        self.objects: list[Scene] = []
        self.place: list[Spot] = []
        self.relationships: list[tuple[int, str, int]] = []

    def add(self, kind: str, x: float, z: float, w: float, h: float, attributes: list[str]) -> int | None:
        """The new object's index, or None when the camera does not see it (nothing is added)."""
        box = self.camera.box(x, z, w, h)
        if box is None:
            return None
        rng = self.rng
        known = not (z > self.far and rng.random() < self.far_unknown) and rng.random() > 0.02
        self.objects.append(
            {
                "id": f"o{len(self.objects)}",
                "type": kind,
                "bbox": box,
                "attributes": attributes if known else [],
                "attributes_known": known,
            }
        )
        self.place.append(Spot(x, z, w))
        return len(self.objects) - 1

    def mark(self, index: int, attribute: str) -> None:
        """Give a placed object one more attribute (a door opened, people aboard), if its are known."""
        obj = self.objects[index]
        if obj["attributes_known"] and attribute not in obj["attributes"]:
            obj["attributes"].append(attribute)

    def relate(self, subject: int | None, predicate: str, obj: int | None) -> None:
        """Record a relationship between two objects, when the camera saw both."""
        if subject is not None and obj is not None:
            self.relationships.append((subject, predicate, obj))

    def relate_pairs(self, rule: Callable[[int, int], Iterable[str]]) -> None:
        """The relationships the geometry decides: ``rule`` names those that hold for each ordered pair."""
        for a in range(len(self.objects)):
            for b in range(len(self.objects)):
                if a != b:
                    self.relationships.extend((a, predicate, b) for predicate in rule(a, b))

    def record(self, name: str) -> Scene:
        """The JSON Lines record of the scene (docs/method.md section 9)."""
        return {
            "image": name,
            "width": self.camera.width,
            "height": self.camera.height,
            "objects": self.objects,
            "relationships": [
                {"subject": f"o{s}", "predicate": p, "object": f"o{o}"} for s, p, o in self.relationships
            ],
        }


def scene_series(
    generate_scene: Callable[[np.random.Generator, str], Scene], count: int, seed: int, prefix: str
) -> Iterator[Scene]:
    """``count`` scenes named ``{prefix}-{seed}-{i}.png``, identical for identical arguments.

    One generator seeded with ``seed`` is shared by the scenes in turn, so scene i depends on all
    before it.
    """
    rng = np.random.default_rng(seed)
    digits = max(6, int(math.log10(max(count, 1))) + 1)
    for i in range(count):
        yield generate_scene(rng, f"{prefix}-{seed}-{i:0{digits}d}.png")


def command_line(description: str, generate_scenes: Callable[[int, int], Iterator[Scene]]) -> None:
    """Write ``--count`` scenes of ``--seed`` to standard output as JSON Lines."""
    import argparse
    import sys

    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    for scene in generate_scenes(args.count, args.seed):
        sys.stdout.write(json.dumps(scene) + "\n")
