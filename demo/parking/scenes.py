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

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from demo.ground_scenes import GroundCamera, GroundScene, command_line, pick, scene_series

VOCABULARY = Path(__file__).with_name("parking-lot.json")

BODIES = (
    ("sedan", 0.45, 4.6, 1.8, 1.45),
    ("SUV", 0.3, 4.8, 1.9, 1.75),
    ("van", 0.12, 5.0, 2.0, 2.1),
    ("pickup", 0.13, 5.5, 2.0, 1.85),
)
COLORS = (("white", 0.3), ("black", 0.22), ("silver", 0.25), ("red", 0.12), ("blue", 0.11))
SPACE_WIDTH = 2.6
ROW_DEPTH = 11.0  # metres from one row of spaces to the next; the aisle is half-way


class _Lot(GroundScene):
    """A car park as it fills: the rows of spaces, the shoppers and their carts, the corral."""

    def __init__(self, rng: np.random.Generator) -> None:
        camera = GroundCamera(
            rng, 800, 600, horizon=(0.18, 0.32), focal=(0.8, 1.1), camera_height=(4.0, 7.0), pan=(-6, 6)
        )
        super().__init__(rng, camera, far=45, far_unknown=0.5)
        self.dusk = rng.random() < 0.25
        self.busy = float(rng.uniform(0.2, 0.95))
        self.rows = int(rng.integers(2, 5))
        self.first = float(rng.uniform(9, 14))

    def car(self, x: float, z: float, state: str) -> int | None:
        rng = self.rng
        body = pick(rng, BODIES)
        color = pick(rng, COLORS)[0]
        attributes = [body[0], color, state]
        lights = (state == "moving" and rng.random() < (0.9 if self.dusk else 0.4)) or rng.random() < 0.03
        if lights:
            attributes.append("with lights on")
        return self.add("car", x, z, body[3] if state == "parked" else body[2], body[4], attributes)

    def person(self, x: float, z: float, age: str, activity: str, extra: list[str]) -> int | None:
        tall = 1.75 if age == "adult" else 1.15
        width = 0.55 if age == "adult" else 0.4
        return self.add(
            "person", x, z, width, tall * float(self.rng.uniform(0.92, 1.06)), [age, activity, *extra]
        )

    def cart(self, x: float, z: float, fill: str, corral: bool) -> int | None:
        return self.add("cart", x, z, 0.6, 1.0, [fill] + (["in the corral"] if corral else []))

    def aisle(self, row: int) -> float:
        """The depth of the aisle beyond row ``row``."""
        return self.first + 5.5 + ROW_DEPTH * row

    def park_rows(self) -> list[int]:
        """The parked cars, row by row (rows nearer the store are fuller), and a car driving now and
        then along each aisle; neighbours in a row are parked next to each other."""
        rng, busy = self.rng, self.busy
        parked: list[int] = []
        for r in range(self.rows):
            z = self.first + r * ROW_DEPTH
            fullness = min(0.9, busy * (0.35 + 0.45 * r / max(1, self.rows - 1)))
            previous: tuple[int, int] | None = None  # (index, space) of the last car of this row
            for s in range(-6, 7):
                index = self.car(s * SPACE_WIDTH, z, "parked") if rng.random() < fullness else None
                if index is not None:
                    if previous is not None and previous[1] == s - 1:
                        self.relate(previous[0], "parked next to", index)
                    previous = (index, s)
                    parked.append(index)
            if rng.random() < 0.35 * busy + (0.15 if self.dusk else 0):
                self.car(float(rng.uniform(-20, 20)), z + 5.5, "moving")
        return parked

    def shoppers(self, parked: list[int]) -> None:
        """People loading a car, getting into one, or walking in an aisle (with a cart, a child)."""
        rng = self.rng
        for _ in range(int(rng.poisson(1 + 4 * self.busy))):
            roll = rng.random()
            if parked and roll < 0.3:
                self.loading(parked[int(rng.integers(len(parked)))])
            elif parked and roll < 0.45:
                self.getting_into(parked[int(rng.integers(len(parked)))])
            else:
                self.walking()

    def loading(self, target: int) -> None:
        """An adult loading a parked car (its door open) from a cart beside it."""
        rng = self.rng
        x, z, _ = self.place[target]
        self.mark(target, "with a door open")
        p = self.person(x + 1.6, z - 1.0, "adult", "loading", ["carrying bags"] if rng.random() < 0.5 else [])
        self.cart(x + 2.2, z - 0.6, "full" if rng.random() < 0.7 else "empty", False)
        self.relate(p, "loading", target)

    def getting_into(self, target: int) -> None:
        """An adult getting into a parked car (its door open), maybe with a child."""
        rng = self.rng
        x, z, _ = self.place[target]
        self.mark(target, "with a door open")
        p = self.person(
            x - 1.3, z - 0.8, "adult", "standing", ["carrying bags"] if rng.random() < 0.3 else []
        )
        self.relate(p, "getting into", target)
        if rng.random() < 0.3:
            self.relate(self.person(x - 1.9, z - 1.0, "child", "standing", []), "getting into", target)

    def walking(self) -> None:
        """An adult walking in an aisle, from the store (bags, a full cart) or to it, maybe a child too."""
        rng = self.rng
        z = self.aisle(int(rng.integers(self.rows))) + float(rng.uniform(-1.5, 1.5))
        x = float(rng.uniform(-22, 22))
        back = rng.random() < 0.5
        pushing = rng.random() < 0.45
        extra = ["carrying bags"] if back and not pushing and rng.random() < 0.8 else []
        extra += ["pushing a cart"] if pushing else []
        p = self.person(x, z, "adult", "walking", extra)
        if pushing:
            self.relate(p, "pushing", self.cart(x + 0.3, z - 0.9, "full" if back else "empty", False))
        if rng.random() < 0.2:
            self.person(x + 0.8, z + 0.2, "child", "walking", [])

    def corral_and_strays(self) -> None:
        """The corral with a few nested empty carts, stray carts and people standing about."""
        rng, first, depth = self.rng, self.first, ROW_DEPTH * self.rows
        if rng.random() < 0.6:
            x, z = float(rng.uniform(-15, 15)), self.aisle(int(rng.integers(self.rows)))
            for k in range(int(rng.integers(1, 5))):
                self.cart(x + 0.25 * k, z + 0.05 * k, "empty", True)
        for _ in range(int(rng.poisson(0.4))):
            self.cart(float(rng.uniform(-20, 20)), first + float(rng.uniform(0, depth)), "empty", False)
        for _ in range(int(rng.poisson(0.5))):
            z = first + float(rng.uniform(0, depth))
            self.person(float(rng.uniform(-20, 20)), z, "adult", "standing", [])

    def seen(self, a: int, b: int) -> list[str]:
        """``closer than`` when a stands a metre or more nearer; ``in front of`` when the boxes overlap too."""
        if self.place[a].z + 1.0 > self.place[b].z:
            return []
        return (
            ["closer than", "in front of"]
            if _overlap_x(self.objects[a], self.objects[b])
            else ["closer than"]
        )


def generate_scene(rng: np.random.Generator, name: str) -> dict[str, Any]:
    lot = _Lot(rng)
    parked = lot.park_rows()
    lot.shoppers(parked)
    lot.corral_and_strays()
    lot.relate_pairs(lot.seen)
    return lot.record(name)


def _overlap_x(a: dict[str, Any], b: dict[str, Any]) -> bool:
    ax, _, aw, _ = a["bbox"]
    bx, _, bw, _ = b["bbox"]
    return min(ax + aw, bx + bw) - max(ax, bx) > 0


def generate_scenes(count: int, seed: int) -> Iterator[dict[str, Any]]:
    return scene_series(generate_scene, count, seed, "lot")


def main() -> None:
    command_line("Write synthetic parking-lot scene graphs as JSON Lines.", generate_scenes)


if __name__ == "__main__":
    main()
