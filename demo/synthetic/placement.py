"""Objects of the scene model under construction, and the geometry shared by the code that places them.

``_Thing`` is an object before ids are given: world position, size and attributes. ``_Placement`` holds the
scene under construction (objects, ground footprints, image boxes, who relates to whom) and turns world
positions into image boxes. Placing is split by subject into ``vehicles``, ``people`` and ``groups``;
``assembly`` combines them into the scene builder.
"""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Sequence

from demo.synthetic.layout import StreetLayout
from demo.synthetic.vocabulary import PERSON
from demo.synthetic.world import MIN_BOX_SIDE


class _Thing:
    """An object of the scene model: world position, size and its attributes, before ids are given."""

    __slots__ = (
        "age",
        "breadth",
        "carrying",
        "depth",
        "direction",
        "hat",
        "height",
        "interacting",
        "kind",
        "lateral",
        "motion",
        "place",
        "sex",
        "size",
        "stature",
        "tone",
        "type",
        "width",
    )

    # The slots' types: a slot is set where the object is made (people.py, vehicles.py), not here.
    age: str
    breadth: float
    carrying: bool
    depth: float
    direction: int
    hat: bool
    height: float
    interacting: bool
    kind: str
    lateral: float
    motion: str
    place: str
    sex: str
    size: float
    stature: float
    tone: str
    type: str
    width: float

    def __init__(self, kind_of_object: str) -> None:
        self.type = kind_of_object
        self.interacting = False
        self.carrying = False
        self.hat = False
        self.stature = 0.0
        self.size = 0.0
        self.direction = 1

    def footprint(self) -> tuple[float, float, float, float]:
        """Ground rectangle (lateral min, lateral max, depth min, depth max) it occupies."""
        if self.type == PERSON:
            return self.lateral - 0.22, self.lateral + 0.22, self.depth - 0.2, self.depth + 0.2
        half = 0.5 * self.width
        return self.lateral - half, self.lateral + half, self.depth, self.depth + self.breadth


def _pick(r: random.Random, values: Sequence[str], cumulative: Sequence[float]) -> str:
    return values[bisect.bisect_right(cumulative, r.random() * cumulative[-1])]


def _cumulative(weights: Sequence[float]) -> tuple[float, ...]:
    total, out = 0.0, []
    for weight in weights:
        total += weight
        out.append(total)
    return tuple(out)


class _Placement:
    """The scene under construction and the geometry shared by vehicles, people and groups.

    Subclasses add the placing of vehicles (``_VehiclePlacement``), people (``_PeoplePlacement``) and social
    groups (``_GroupPlacement``); all of them work on the state set up here.
    """

    def __init__(self, r: random.Random, layout: StreetLayout) -> None:
        self.r = r
        self.layout = layout
        self.things: list[_Thing] = []
        self.footprints: list[tuple[float, float, float, float]] = []
        self.boxes: list[tuple[float, float, float, float]] = []
        self.talking: set[tuple[int, int]] = set()
        self.walking_together: set[tuple[int, int]] = set()
        self.uses: dict[tuple[int, int], str] = {}  # (person index, vehicle index) -> predicate
        self.lane_intervals: dict[float, list[tuple[float, float]]] = {}

    # -- geometry ----------------------------------------------------------------------------------

    def image_box(
        self, lateral: float, depth: float, width: float, height: float, elevation: float = 0.0
    ) -> tuple[float, float, float, float] | None:
        """Box [x, y, w, h] in pixels, clipped to the image and rounded to 0.1 px; None when too small.

        Rounding works in tenths of a pixel so that x + w never exceeds the image width.
        """
        layout = self.layout
        scale = layout.focal / depth
        centre = 0.5 * layout.width + lateral * scale
        bottom = layout.horizon + (layout.camera_height - elevation) * scale
        x0 = max(0, round((centre - 0.5 * width * scale) * 10))
        x1 = min(layout.width * 10, round((centre + 0.5 * width * scale) * 10))
        y0 = max(0, round((bottom - height * scale) * 10))
        y1 = min(layout.height * 10, round(bottom * 10))
        if x1 - x0 < MIN_BOX_SIDE * 10 or y1 - y0 < MIN_BOX_SIDE * 10:
            return None
        return x0 / 10, y0 / 10, _tenths_span(x0, x1, layout.width), _tenths_span(y0, y1, layout.height)

    def collides(self, candidate: _Thing, ignore: int = -1) -> bool:
        """Whether the candidate's ground footprint overlaps that of an object already placed."""
        x0, x1, z0, z1 = candidate.footprint()
        for index, (ox0, ox1, oz0, oz1) in enumerate(self.footprints):
            if x0 < ox1 and ox0 < x1 and z0 < oz1 and oz0 < z1 and index != ignore:
                return True
        return False

    def add(self, thing: _Thing, box: tuple[float, float, float, float]) -> int:
        self.things.append(thing)
        self.footprints.append(thing.footprint())
        self.boxes.append(box)
        return len(self.things) - 1

    def random_lateral(self, depth: float, width: float, inside_share: float = 0.0) -> float:
        """A lateral position at ``depth`` whose object is in view, sometimes cut by the image border.

        With probability ``inside_share`` the object is kept whole in the frame when it fits, as a
        photographer frames large vehicles; otherwise its centre may lie up to 30% of its width beyond
        the image border.
        """
        lo, hi = self.layout.lateral_range(depth)
        margin = 0.3 * width
        if self.r.random() < inside_share and hi - lo > width:
            margin = -0.5 * width
        return lo - margin + self.r.random() * (hi - lo + 2 * margin)

    def sidewalk_depth(self) -> float:
        """A depth on one of the sidewalks, denser further away where more ground is in view."""
        layout, r = self.layout, self.r
        if r.random() < 0.4:  # the near sidewalk: little of it is in view, but it is where we stand
            lo, hi = layout.nearest_ground * 1.05, layout.near_curb - 0.25
        else:
            lo, hi = layout.far_curb + 0.25, layout.facade - 0.4
        return math.sqrt(lo * lo + r.random() * (hi * hi - lo * lo))


def _tenths_span(lo: int, hi: int, limit: int) -> float:
    """Width of [lo, hi] in pixels, shrunk by 0.1 px if float rounding would let lo + span pass limit."""
    span = (hi - lo) / 10
    return span if lo / 10 + span <= limit else (hi - lo - 1) / 10
