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

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from demo.ground_scenes import GroundCamera, GroundScene, command_line, pick, scene_series

VOCABULARY = Path(__file__).with_name("marina.json")

# (kind, weight, length, height)
KINDS = (
    ("sailboat", 0.4, 9.0, 11.0),
    ("motorboat", 0.35, 7.0, 2.5),
    ("rowboat", 0.17, 3.5, 0.9),
    ("ferry", 0.08, 25.0, 7.0),
)
HULLS = (("white hull", 0.6), ("dark hull", 0.25), ("red hull", 0.15))


class _Marina(GroundScene):
    """A harbour seen from the shore: the pier and its boats, the moorings, the channel, the people."""

    def __init__(self, rng: np.random.Generator) -> None:
        camera = GroundCamera(rng, 960, 540, horizon=(0.25, 0.45), focal=(0.7, 1.2), camera_height=(2.0, 6.0))
        super().__init__(rng, camera, far=70, far_unknown=0.6)
        self.pier_side = -1.0 if rng.random() < 0.5 else 1.0
        self.pier_x = self.pier_side * float(rng.uniform(6, 14))
        self.busy = float(rng.uniform(0.2, 1.0))

    def boat(self, x: float, z: float, state: str, kind: tuple[Any, ...] | None = None) -> int | None:
        rng = self.rng
        kind = kind or pick(rng, KINDS)
        attributes = [kind[0], pick(rng, HULLS)[0], state]
        if kind[0] == "sailboat" and state == "under way" and rng.random() < 0.8:
            attributes.append("with sails up")
        length = kind[2] * float(rng.uniform(0.8, 1.2))
        return self.add("boat", x, z, length, kind[3], attributes)

    def person(self, x: float, z: float, age: str, activity: str, where: str, jacket: float) -> int | None:
        attributes = [age, activity, where] + (
            ["wearing a life jacket"] if self.rng.random() < jacket else []
        )
        return self.add("person", x, z, 0.5, 1.75 if age == "adult" else 1.15, attributes)

    def crew(self, index: int | None, x: float, z: float, count: int) -> None:
        """``count`` people standing aboard a boat under way."""
        if index is None or count == 0:
            return
        self.mark(index, "with people aboard")
        for k in range(count):
            age = "adult" if self.rng.random() < 0.85 else "child"
            self.relate(
                self.person(x + k * 0.7 - 0.5, z - 0.2, age, "standing", "aboard", 0.7), "aboard", index
            )

    def pier_boats(self) -> None:
        """Boats along the pier, bow to stern, each beside the previous one."""
        rng, busy = self.rng, self.busy
        previous: int | None = None
        for k in range(int(rng.integers(0, 5))):
            z = 8.0 + 6.0 * k
            b = (
                self.boat(self.pier_x - self.pier_side * 4.0, z, "moored")
                if rng.random() < 0.5 + 0.4 * busy
                else None
            )
            self.relate(previous, "moored beside", b)
            previous = b

    def moorings(self) -> None:
        """Yellow buoys, most with a boat tied."""
        rng = self.rng
        for _ in range(int(rng.poisson(1 + 3 * self.busy))):
            x, z = float(rng.uniform(-30, 30)), float(rng.uniform(20, 80))
            tied = rng.random() < 0.7
            buoy = self.add("buoy", x, z, 0.6, 0.6, ["yellow"] + (["with a boat tied"] if tied else []))
            if tied:
                self.relate(self.boat(x, z + 1.5, "moored"), "tied to", buoy)

    def channel(self) -> None:
        """The channel: its red and green markers and the boats under way, some with people aboard."""
        rng = self.rng
        channel = float(rng.uniform(30, 60))
        for side, colour in ((-1.0, "red"), (1.0, "green")):
            if rng.random() < 0.6:
                self.add("buoy", side * float(rng.uniform(8, 20)), channel, 0.8, 1.2, [colour])
        for _ in range(int(rng.poisson(0.5 + 1.5 * self.busy))):
            z = channel + float(rng.uniform(-10, 25))
            kind = pick(rng, KINDS)
            b = self.boat(float(rng.uniform(-25, 25)), z, "under way", kind)
            if kind[0] != "ferry" and rng.random() < 0.5:
                self.crew(b, self.place[b].x if b is not None else 0.0, z, int(rng.integers(1, 3)))

    def rowboat(self) -> None:
        """Now and then a rowboat near the pier, rowed by someone."""
        rng = self.rng
        if rng.random() < 0.35:
            z = float(rng.uniform(6, 20))
            b = self.boat(self.pier_x - self.pier_side * float(rng.uniform(5, 10)), z, "under way", KINDS[2])
            if b is not None:
                self.mark(b, "with people aboard")
                self.relate(
                    self.person(self.place[b].x, z - 0.1, "adult", "rowing", "aboard", 0.6), "aboard", b
                )

    def pier_people(self) -> None:
        """People on the pier: walkers, standers, anglers at its end."""
        rng = self.rng
        for _ in range(int(rng.poisson(1 + 3 * self.busy))):
            z = float(rng.uniform(4, 35))
            activity = (
                "fishing"
                if z > 25 and rng.random() < 0.6
                else ("walking" if rng.random() < 0.6 else "standing")
            )
            age = "child" if rng.random() < 0.2 else "adult"
            self.person(self.pier_x + float(rng.uniform(-1.5, 1.5)), z, age, activity, "on the pier", 0.1)

    def seen(self, a: int, b: int) -> list[str]:
        """``closer than`` two metres or more, ``left of`` a box, ``larger than`` a boat 1.5 times shorter."""
        predicates = []
        if self.place[a].z + 2.0 <= self.place[b].z:
            predicates.append("closer than")
        ax, _, aw, _ = self.objects[a]["bbox"]
        if ax + aw < self.objects[b]["bbox"][0]:
            predicates.append("left of")
        boats = self.objects[a]["type"] == self.objects[b]["type"] == "boat"
        if boats and self.place[a].width >= 1.5 * self.place[b].width:
            predicates.append("larger than")
        return predicates


def generate_scene(rng: np.random.Generator, name: str) -> dict[str, Any]:
    marina = _Marina(rng)
    marina.pier_boats()
    marina.moorings()
    marina.channel()
    marina.rowboat()
    marina.pier_people()
    marina.relate_pairs(marina.seen)
    return marina.record(name)


def generate_scenes(count: int, seed: int) -> Iterator[dict[str, Any]]:
    return scene_series(generate_scene, count, seed, "marina")


def main() -> None:
    command_line("Write synthetic marina scene graphs as JSON Lines.", generate_scenes)


if __name__ == "__main__":
    main()
