"""Scene graphs of synthetic urban street scenes (no pixels).

A scene is produced by a small world model rather than by independent coin flips, so that attribute
frequencies, co-occurrences and relationships look like those of annotated street photographs:

* the camera looks across a street from the near sidewalk. The ground plane is seen in perspective: a
  point on the ground at depth ``z`` metres appears ``focal * camera_height / z`` pixels below the horizon,
  and an object there is drawn at ``focal / z`` pixels per metre, so the scale is proportional to the
  distance below the horizon. From the bottom of the image upwards come the near sidewalk, the street
  (a parking lane, two or four travel lanes, a parking lane) and the far sidewalk in front of a facade;
* vehicles are seen from the side: parked ones in the parking lanes (bicycles also at the sidewalk edge),
  moving ones in the travel lanes, driving to the right on the near half of the street and to the left
  on the far half. Every moving bicycle or motorcycle has a rider;
* people come as riders, as people entering or exiting a parked vehicle, as people busy with a parked
  two-wheeler, and as social groups (walkers, walking groups, families, conversations, sitters, people
  crossing the street, runners) that fix motion, place, age mix and the talking/walking-together pairs;
* relationships are derived from that geometry and those groups and are complete: a pair not listed
  is not related by the predicate.

The layout of the street (horizon, focal length, band depths) is a deterministic function of the image
name and size (see ``street_layout``) so that the renderer can rebuild the background from the JSON
record alone; everything else is drawn from the generator passed in.
"""

from __future__ import annotations

import bisect
import hashlib
import math
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np

# --------------------------------------------------------------------------------------------------
# Vocabulary names (annotations/vocabularies/urban-street.json); tests check them against the file.
# --------------------------------------------------------------------------------------------------

PERSON = "person"
VEHICLE = "vehicle"

MALE, FEMALE = "male", "female"
CHILD, ADULT = "child", "adult"
STANDING, WALKING, RUNNING, SITTING, CROSSING = (
    "standing still",
    "walking",
    "running",
    "sitting",
    "crossing the street",
)
ON_SIDEWALK, ON_STREET = "on sidewalk", "on street"
CARRYING = "carrying something"
HAT = "wearing a hat"
INTERACTING = "interacting with another object"

CAR, TRUCK, BUS, MOTORCYCLE, BICYCLE = "car", "truck", "bus", "motorcycle", "bicycle"
LIGHT, DARK = "light-colored", "dark-colored"
MOVING, PARKED = "moving", "parked"
TIRE_COUNTS = ("none", "one", "two", "more than two")

TALKING = "talking"
WALKING_TOGETHER = "walking together"
TALLER = "taller than"
CLOSER = "closer than"
OCCLUDING = "occluding"
RIDING = "driving or riding"
ENTERING = "entering or exiting"
LARGER = "larger than"

# --------------------------------------------------------------------------------------------------
# Tunable constants of the world model.
# --------------------------------------------------------------------------------------------------

MEAN_PEOPLE = 5.0
MAX_PEOPLE = 14
MEAN_VEHICLES = 3.0
MAX_VEHICLES = 8
UNKNOWN_ATTRIBUTES_RATE = 0.04
MIN_BOX_SIDE = 4.0

PARKING_LANE_WIDTH = 2.3
TRAVEL_LANE_WIDTH = 3.2
TALLER_MARGIN = 0.05  # metres of stature below which "taller than" is false both ways
LARGER_RATIO = 1.2  # volume ratio a vehicle must exceed to be "larger than" another
OCCLUSION_MIN_SHARE = 0.02  # box intersection, as a share of the smaller box, that counts as occluding
# The vocabulary has no "riding" motion; a cyclist or motorcyclist sits on the saddle. This is the one
# exception to "sitting people are on the sidewalk" (riders are on the street).
RIDER_MOTION = SITTING


def depth_margin(depth: float) -> float:
    """Depth difference (metres) below which neither object is "closer than" the other.

    It grows with depth because depth differences are harder to judge far away.
    """
    return 0.2 + 0.035 * depth


@dataclass(frozen=True, slots=True)
class VehicleShape:
    """Side view of a vehicle kind, in metres at scale 1.

    The aspect ratio is fixed per kind (only the scale varies) so that the unclipped extent of a box cut
    by the image border can be recovered from its height; the wheel layout depends on it.
    """

    length: float
    height: float
    breadth: float  # extent in depth: the vehicle's own width
    wheel_slots: tuple[float, ...]  # wheel centres as fractions of the length, measured from the rear
    wheel_radius: float  # as a fraction of the box height
    light_share: float  # probability of a light-coloured body
    moving_share: float


VEHICLE_SHAPES: dict[str, VehicleShape] = {
    CAR: VehicleShape(4.5, 1.5, 1.8, (0.17, 0.81), 0.21, 0.5, 0.5),
    TRUCK: VehicleShape(7.4, 3.1, 2.4, (0.12, 0.26, 0.84), 0.16, 0.65, 0.5),
    BUS: VehicleShape(11.0, 3.15, 2.5, (0.13, 0.26, 0.82), 0.15, 0.82, 0.45),
    MOTORCYCLE: VehicleShape(2.1, 1.2, 0.8, (0.16, 0.84), 0.27, 0.25, 0.5),
    BICYCLE: VehicleShape(1.75, 1.05, 0.6, (0.18, 0.82), 0.32, 0.35, 0.45),
}
VEHICLE_KINDS = (CAR, TRUCK, BUS, MOTORCYCLE, BICYCLE)
VEHICLE_KIND_WEIGHTS = (0.44, 0.13, 0.11, 0.12, 0.20)
TWO_WHEELERS = (MOTORCYCLE, BICYCLE)


# --------------------------------------------------------------------------------------------------
# Street layout and camera.
# --------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StreetLayout:
    """Camera and street geometry of one image; depths in metres from the camera, pixels otherwise."""

    width: int
    height: int
    horizon: float  # image row of the horizon
    focal: float  # focal length in pixels
    camera_height: float
    near_curb: float
    far_curb: float
    facade: float
    lane_edges: tuple[float, ...]  # near curb, parking lane edge, travel lane edges..., far curb

    @property
    def nearest_ground(self) -> float:
        """Depth of the ground seen at the bottom row of the image."""
        return self.focal * self.camera_height / (self.height - self.horizon)

    @property
    def street_middle(self) -> float:
        return 0.5 * (self.near_curb + self.far_curb)

    @property
    def travel_lanes(self) -> list[tuple[float, float]]:
        """(near edge, far edge) of each travel lane, nearest first."""
        edges = self.lane_edges[1:-1]
        return [(edges[i], edges[i + 1]) for i in range(len(edges) - 1)]

    def ground_y(self, depth: float) -> float:
        """Image row of a ground point at ``depth``."""
        return self.horizon + self.focal * self.camera_height / depth

    def depth_at(self, y: float) -> float:
        """Depth of the ground point seen at image row ``y`` (infinite at or above the horizon)."""
        below = y - self.horizon
        return self.focal * self.camera_height / below if below > 0 else math.inf

    def lateral_range(self, depth: float) -> tuple[float, float]:
        """Lateral positions (metres, 0 on the optical axis) visible at ``depth``."""
        half = 0.5 * self.width * depth / self.focal
        return -half, half

    def place_of(self, depth: float) -> str:
        return ON_STREET if self.near_curb <= depth <= self.far_curb else ON_SIDEWALK

    def direction_at(self, depth: float) -> int:
        """Driving direction at ``depth``: +1 (to the right) on the near half, -1 on the far half."""
        return 1 if depth < self.street_middle else -1


def _unit_draws(name: str, width: int, height: int, count: int) -> list[float]:
    """``count`` numbers in [0, 1) derived from a stable hash of the image name and size."""
    digest = hashlib.blake2b(f"{name}|{width}x{height}".encode(), digest_size=2 * count).digest()
    return [int.from_bytes(digest[2 * i : 2 * i + 2], "big") / 65536.0 for i in range(count)]


def street_layout(name: str, width: int, height: int) -> StreetLayout:
    """The street layout of an image, a pure function of its name and size.

    Scene generation and rendering both call this, which is why the JSON record needs no extra field.
    """
    u = _unit_draws(name, width, height, 6)
    # Photographs are taken from eye level up to a first-floor window: higher cameras spread the street
    # band over more rows and see more of what is behind parked cars.
    horizon = height * (0.33 + 0.09 * u[0])
    focal = max(width, height) * (0.62 + 0.22 * u[1])  # portrait images keep a plausible field of view
    camera_height = 1.6 + 0.9 * u[2]
    nearest = focal * camera_height / (height - horizon)
    near_curb = nearest + 1.6 + 2.0 * u[3]
    travel = 2 if u[4] < 0.6 else 4
    edges = [near_curb, near_curb + PARKING_LANE_WIDTH]
    for _ in range(travel):
        edges.append(edges[-1] + TRAVEL_LANE_WIDTH)
    edges.append(edges[-1] + PARKING_LANE_WIDTH)
    far_curb = edges[-1]
    facade = far_curb + 3.0 + 2.5 * u[5]
    return StreetLayout(
        width, height, horizon, focal, camera_height, near_curb, far_curb, facade, tuple(edges)
    )


# --------------------------------------------------------------------------------------------------
# Wheels: shared with the renderer so that the drawn tyres are exactly the "visible tires" attribute.
# --------------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------------
# Objects under construction.
# --------------------------------------------------------------------------------------------------


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


def _poisson(r: random.Random, mean: float) -> int:
    """Poisson draw by inversion (means here stay small, so the loop is short)."""
    threshold, k, product = math.exp(-mean), 0, r.random()
    while product > threshold:
        k += 1
        product *= r.random()
    return k


_KIND_CUMULATIVE = _cumulative(VEHICLE_KIND_WEIGHTS)

# Social group templates and their weights; see _SceneBuilder.add_group.
_GROUPS = (
    "walker",
    "walking group",
    "family",
    "stander",
    "conversation",
    "sitters",
    "crossers",
    "runner",
    "kids",
)
_GROUP_CUMULATIVE = _cumulative((0.22, 0.13, 0.09, 0.15, 0.08, 0.10, 0.14, 0.035, 0.025))

# Width and height of a person's box as fractions of the stature, by pose.
_POSE_BOX = {
    STANDING: (0.27, 1.0),
    WALKING: (0.36, 1.0),
    CROSSING: (0.36, 1.0),
    RUNNING: (0.48, 0.98),
    SITTING: (0.44, 0.72),
}
_HAT_EXTRA = 0.05  # a hat adds this share of the stature on top of the head
_BAG_EXTRA = 0.07  # a bag held at the side widens the box by this share of the stature

# Chance of carrying something, by (age, motion); walking adults carry most.
_CARRY = {
    (ADULT, WALKING): 0.5,
    (ADULT, CROSSING): 0.42,
    (ADULT, STANDING): 0.32,
    (ADULT, SITTING): 0.28,
    (ADULT, RUNNING): 0.05,
}
_CHILD_CARRY = 0.1


# --------------------------------------------------------------------------------------------------
# The scene model.
# --------------------------------------------------------------------------------------------------


class _SceneBuilder:
    """Places vehicles and people on the street and records who rides, enters, talks or walks with whom."""

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

    # -- vehicles ----------------------------------------------------------------------------------

    def add_vehicles(self, count: int) -> None:
        for _ in range(count):
            kind = _pick(self.r, VEHICLE_KINDS, _KIND_CUMULATIVE)
            self.add_vehicle(kind)

    def add_vehicle(self, kind: str) -> int | None:
        r, shape = self.r, VEHICLE_SHAPES[kind]
        vehicle = _Thing(VEHICLE)
        vehicle.kind = kind
        vehicle.motion = MOVING if r.random() < shape.moving_share else PARKED
        vehicle.tone = LIGHT if r.random() < shape.light_share else DARK
        scale = 0.9 + 0.2 * r.random()
        vehicle.width, vehicle.height, vehicle.breadth = (
            shape.length * scale,
            shape.height * scale,
            shape.breadth * scale,
        )
        vehicle.size = vehicle.width * vehicle.height * vehicle.breadth
        for _attempt in range(5):
            lane_key, lane_near, lane_far = self.choose_lane(vehicle)
            centre = 0.5 * (lane_near + lane_far)
            jitter = 0.35 * (r.random() - 0.5) if vehicle.motion == MOVING else 0.1 * (r.random() - 0.5)
            vehicle.depth = max(lane_near + 0.05, centre - 0.5 * vehicle.breadth + jitter)
            vehicle.lateral = self.random_lateral(vehicle.depth, vehicle.width, 0.6)
            vehicle.direction = self.layout.direction_at(vehicle.depth)
            if not self.lane_is_free(lane_key, vehicle):
                continue
            box = self.vehicle_box(vehicle)
            if box is None:
                continue
            # A moving two-wheeler is only placed where its rider is in the picture too.
            rider = self.make_rider(vehicle) if vehicle.motion == MOVING and kind in TWO_WHEELERS else None
            if rider is None and vehicle.motion == MOVING and kind in TWO_WHEELERS:
                continue
            self.lane_intervals.setdefault(lane_key, []).append(
                (vehicle.lateral - 0.5 * vehicle.width, vehicle.lateral + 0.5 * vehicle.width)
            )
            index = self.add(vehicle, box)
            if rider is not None:
                vehicle.interacting = True
                self.uses[(self.add(*rider), index)] = RIDING
            return index
        return None

    def choose_lane(self, vehicle: _Thing) -> tuple[float, float, float]:
        """(key, near depth, far depth) of the strip of ground the vehicle is placed in."""
        layout, r = self.layout, self.r
        edges = layout.lane_edges
        if vehicle.motion == MOVING:
            lanes = layout.travel_lanes
            if vehicle.kind in TWO_WHEELERS and r.random() < 0.7:
                lanes = [lanes[0], lanes[-1]]  # cyclists keep to the outer lanes
            near, far = lanes[int(r.random() * len(lanes))]
            return near, near, far
        if vehicle.kind == BICYCLE and r.random() < 0.4:
            # Bicycles are also left at the sidewalk edge, just off the curb.
            if r.random() < 0.5:
                return -1.0, layout.near_curb - 0.9, layout.near_curb - 0.1
            return -2.0, layout.far_curb + 0.1, layout.far_curb + 0.9
        if r.random() < 0.4:  # the near lane is less often blocked: photographers avoid it
            return edges[0], edges[0], edges[1]
        return edges[-2], edges[-2], edges[-1]

    def lane_is_free(self, lane_key: float, vehicle: _Thing) -> bool:
        gap = 3.0 if vehicle.motion == MOVING else 0.6
        lo, hi = vehicle.lateral - 0.5 * vehicle.width - gap, vehicle.lateral + 0.5 * vehicle.width + gap
        return all(hi <= a or b <= lo for a, b in self.lane_intervals.get(lane_key, ()))

    def vehicle_box(self, vehicle: _Thing) -> tuple[float, float, float, float] | None:
        """Image box of a vehicle, or None when it is too small, cut at the top or cut on both sides."""
        box = self.image_box(vehicle.lateral, vehicle.depth, vehicle.width, vehicle.height)
        if box is None:
            return None
        scale = self.layout.focal / vehicle.depth
        centre = 0.5 * self.layout.width + vehicle.lateral * scale
        half = 0.5 * vehicle.width * scale
        top = self.layout.horizon + (self.layout.camera_height - vehicle.height) * scale
        if top < 0 or (centre - half < 0 and centre + half > self.layout.width):
            return None
        return box

    # -- people ------------------------------------------------------------------------------------

    def new_person(self, age: str, motion: str, depth: float, lateral: float) -> _Thing:
        r = self.r
        person = _Thing(PERSON)
        person.age = age
        person.sex = MALE if r.random() < 0.5 else FEMALE
        if age == CHILD:
            person.stature = 0.95 + 0.43 * r.random()
            person.hat = r.random() < 0.15
            person.carrying = r.random() < _CHILD_CARRY
        else:
            mean, spread, lo, hi = (
                (1.76, 0.07, 1.56, 1.98) if person.sex == MALE else (1.63, 0.065, 1.52, 1.85)
            )
            person.stature = min(hi, max(lo, r.gauss(mean, spread)))
            person.hat = r.random() < 0.3
            person.carrying = r.random() < _CARRY.get((age, motion), 0.3)
        person.motion = motion
        person.depth = depth
        person.lateral = lateral
        person.place = ON_STREET if motion == CROSSING else self.layout.place_of(depth)
        return person

    def person_box(self, person: _Thing) -> tuple[float, float, float, float] | None:
        width_share, height_share = _POSE_BOX[person.motion]
        if person.age == CHILD:
            width_share += 0.03  # children have relatively larger heads and shorter legs
        if person.carrying:
            width_share += _BAG_EXTRA
        if person.hat:
            height_share += _HAT_EXTRA
        stature = person.stature
        return self.image_box(person.lateral, person.depth, width_share * stature, height_share * stature)

    def try_add_person(self, person: _Thing, ignore: int = -1) -> int | None:
        if self.collides(person, ignore):
            return None
        box = self.person_box(person)
        return None if box is None else self.add(person, box)

    def make_rider(self, vehicle: _Thing) -> tuple[_Thing, tuple[float, float, float, float]] | None:
        """A rider for a moving bicycle or motorcycle: seated over it, at its depth, overlapping its box."""
        r = self.r
        rider = self.new_person(
            ADULT if r.random() < 0.93 else CHILD, RIDER_MOTION, vehicle.depth, vehicle.lateral
        )
        if rider.age == CHILD:
            rider.stature = max(rider.stature, 1.2)  # small children do not ride in traffic
        rider.carrying = r.random() < 0.2
        rider.place = ON_STREET
        rider.interacting = True
        # The rider sits in the middle of the vehicle's breadth, so within the depth margin of its side.
        rider.depth = vehicle.depth + 0.5 * vehicle.breadth
        saddle = 0.86 if vehicle.kind == BICYCLE else 0.7
        feet = 0.12 * vehicle.height
        top = (
            saddle * vehicle.height + 0.5 * rider.stature + (_HAT_EXTRA * rider.stature if rider.hat else 0.0)
        )
        # The seat is a little behind the middle of the vehicle.
        rider.lateral = vehicle.lateral - 0.08 * vehicle.width * vehicle.direction
        box = self.image_box(rider.lateral, vehicle.depth, 0.5 * vehicle.width, top - feet, feet)
        return None if box is None else (rider, box)

    def add_enterer(self, vehicle_index: int) -> int | None:
        """Someone getting in or out of a parked vehicle, standing next to one of its doors."""
        vehicle, r, layout = self.things[vehicle_index], self.r, self.layout
        if vehicle.kind == CAR:
            door = (0.12 if r.random() < 0.6 else -0.12) * vehicle.width
        else:  # bus and truck doors are near the front
            door = 0.36 * vehicle.width
        lateral = vehicle.lateral + vehicle.direction * door + 0.15 * (r.random() - 0.5)
        in_front = r.random() < 0.6
        if in_front:
            depth = vehicle.depth - 0.3 - 0.35 * r.random()
        else:
            depth = vehicle.depth + vehicle.breadth + 0.3 + 0.3 * r.random()
        depth = max(depth, layout.nearest_ground * 1.05)
        person = self.new_person(
            ADULT if r.random() < 0.92 else CHILD, STANDING if r.random() < 0.45 else WALKING, depth, lateral
        )
        person.interacting = True
        index = self.try_add_person(person, ignore=vehicle_index)
        if index is not None:
            vehicle.interacting = True
            self.uses[(index, vehicle_index)] = ENTERING
        return index

    def add_two_wheeler_user(self, vehicle_index: int) -> int | None:
        """Someone locking or unlocking a parked two-wheeler, standing beside it: interacting, no relation."""
        vehicle, r = self.things[vehicle_index], self.r
        side = 1 if r.random() < 0.5 else -1
        lateral = vehicle.lateral + side * (0.5 * vehicle.width + 0.15)
        depth = max(vehicle.depth + 0.3 * (r.random() - 0.3), self.layout.nearest_ground * 1.05)
        person = self.new_person(ADULT, STANDING, depth, lateral)
        person.interacting = True
        index = self.try_add_person(person, ignore=vehicle_index)
        if index is not None:
            vehicle.interacting = True
        return index

    def add_group(self, budget: int) -> int:
        """Adds one social group of at most ``budget`` people; returns how many were placed."""
        r = self.r
        template = _pick(r, _GROUPS, _GROUP_CUMULATIVE)
        if template == "walker":
            return self.place_group([self.adult_or_child(0.05)], WALKING, self.sidewalk_depth, 0.0)
        if template == "walking group":
            ages = [self.adult_or_child(0.08) for _ in range(2 if r.random() < 0.75 else 3)]
            return self.place_group(ages[:budget], WALKING, self.sidewalk_depth, 0.6, together=True, talk=0.6)
        if template == "family":
            ages = [ADULT] * (1 if r.random() < 0.6 else 2) + [CHILD] * (1 if r.random() < 0.65 else 2)
            ages = _interleave_family(ages)[:budget]
            walking = r.random() < 0.7
            return self.place_group(
                ages, WALKING if walking else STANDING, self.sidewalk_depth, 0.55, together=walking, talk=0.35
            )
        if template == "stander":
            if r.random() < 0.08:  # waiting at the edge of the street
                return self.place_group([ADULT], STANDING, self.parking_lane_depth, 0.0)
            return self.place_group([self.adult_or_child(0.06)], STANDING, self.sidewalk_depth, 0.0)
        if template == "conversation":
            ages = [self.adult_or_child(0.05) for _ in range(2 if r.random() < 0.7 else 3)]
            return self.place_group(
                ages[:budget], STANDING, self.sidewalk_depth, 0.85, talk=1.0, depth_jitter=0.2
            )
        if template == "sitters":
            ages = [self.adult_or_child(0.1) for _ in range(1 if r.random() < 0.6 else 2)]
            return self.place_group(ages[:budget], SITTING, self.sidewalk_depth, 0.6, talk=0.6)
        if template == "crossers":
            size = 1 if r.random() < 0.6 else (2 if r.random() < 0.75 else 3)
            ages = [ADULT] + [self.adult_or_child(0.35) for _ in range(size - 1)]
            return self.place_group(ages[:budget], CROSSING, self.street_depth, 0.6, together=True, talk=0.3)
        if template == "runner":
            return self.place_group([self.adult_or_child(0.1)], RUNNING, self.sidewalk_depth, 0.0)
        ages = [CHILD] * (2 if r.random() < 0.7 else 3)  # "kids": children together, sometimes running
        running = r.random() < 0.3
        return self.place_group(
            ages[:budget],
            RUNNING if running else WALKING,
            self.sidewalk_depth,
            0.55,
            together=True,
            talk=0.0 if running else 0.5,
        )

    def adult_or_child(self, child_share: float) -> str:
        return CHILD if self.r.random() < child_share else ADULT

    def street_depth(self) -> float:
        layout = self.layout
        return layout.near_curb + 0.3 + self.r.random() * (layout.far_curb - layout.near_curb - 0.6)

    def parking_lane_depth(self) -> float:
        edges = self.layout.lane_edges
        near, far = (edges[0], edges[1]) if self.r.random() < 0.5 else (edges[-2], edges[-1])
        return near + 0.3 + self.r.random() * (far - near - 0.6)

    def place_group(
        self,
        ages: list[str],
        motion: str,
        sample_depth: Callable[[], float],
        spacing: float,
        *,
        together: bool = False,
        talk: float = 0.0,
        depth_jitter: float = 0.12,
    ) -> int:
        """Places people side by side at about the same depth; records walking-together and talking pairs.

        Members keep ``spacing`` metres between them laterally and differ in depth by at most
        ``depth_jitter`` metres (less than the depth margin for walkers, so none is "closer than" another).
        """
        r = self.r
        if not ages:
            return 0
        for _attempt in range(4):
            depth = sample_depth()
            lateral = self.random_lateral(depth, spacing * len(ages))
            spread = spacing * (len(ages) - 1)
            members = []
            for k, age in enumerate(ages):
                offset = k * spacing - 0.5 * spread + 0.1 * (r.random() - 0.5) * (spacing > 0)
                member_depth = depth + depth_jitter * (2 * r.random() - 1) if len(ages) > 1 else depth
                members.append(
                    self.new_person(
                        age, motion, max(member_depth, self.layout.nearest_ground * 1.05), lateral + offset
                    )
                )
            if any(self.collides(m) for m in members) or _members_collide(members):
                continue
            boxes = [self.person_box(m) for m in members]
            if any(box is None for box in boxes):
                continue
            indices = [self.add(m, box) for m, box in zip(members, boxes, strict=True) if box is not None]
            talks = r.random() < talk
            for i, a in enumerate(indices):
                for b in indices[i + 1 :]:
                    if together:
                        self.walking_together.add((a, b))
                    if talks:
                        self.talking.add((a, b))
            return len(indices)
        return 0


def _tenths_span(lo: int, hi: int, limit: int) -> float:
    """Width of [lo, hi] in pixels, shrunk by 0.1 px if float rounding would let lo + span pass limit."""
    span = (hi - lo) / 10
    return span if lo / 10 + span <= limit else (hi - lo - 1) / 10


def _members_collide(members: list[_Thing]) -> bool:
    for i, a in enumerate(members):
        fa = a.footprint()
        for b in members[i + 1 :]:
            fb = b.footprint()
            if fa[0] < fb[1] and fb[0] < fa[1] and fa[2] < fb[3] and fb[2] < fa[3]:
                return True
    return False


def _interleave_family(ages: list[str]) -> list[str]:
    """Orders a family side by side so that every child stands next to an adult."""
    adults = [a for a in ages if a == ADULT]
    children = [a for a in ages if a == CHILD]
    if len(children) == 2 and len(adults) == 1:
        return [CHILD, ADULT, CHILD]
    if len(children) == 2:
        return [CHILD, ADULT, ADULT, CHILD]
    return adults[:1] + children + adults[1:]


# --------------------------------------------------------------------------------------------------
# From the scene model to the JSON record.
# --------------------------------------------------------------------------------------------------


def _person_attributes(person: _Thing) -> list[str]:
    attributes = [person.sex, person.age, person.motion, person.place]
    if person.carrying:
        attributes.append(CARRYING)
    if person.hat:
        attributes.append(HAT)
    if person.interacting:
        attributes.append(INTERACTING)
    return attributes


def _vehicle_attributes(vehicle: _Thing) -> list[str]:
    """Kind, tone, motion and interaction; "visible tires" goes after motion once occlusion is known."""
    attributes = [vehicle.kind, vehicle.tone, vehicle.motion]
    if vehicle.interacting:
        attributes.append(INTERACTING)
    return attributes


def _occludes(near: tuple[float, ...], far: tuple[float, ...]) -> bool:
    """Whether the boxes (x0, y0, x1, y1, area) overlap by enough to call the nearer one occluding."""
    w = (near[2] if near[2] < far[2] else far[2]) - (near[0] if near[0] > far[0] else far[0])
    if w <= 0:
        return False
    h = (near[3] if near[3] < far[3] else far[3]) - (near[1] if near[1] > far[1] else far[1])
    smaller = near[4] if near[4] < far[4] else far[4]
    return h > 0 and w * h >= OCCLUSION_MIN_SHARE * smaller


def _relationships(builder: _SceneBuilder, order: list[int], ids: list[str]) -> list[dict[str, str]]:
    """All true relationships between the objects, listed in id order; symmetric ones once per pair.

    This double loop dominates generation time, hence the precomputed corners and the inlined tests.
    """
    things = [builder.things[index] for index in order]
    corners = []
    for index in order:
        x, y, w, h = builder.boxes[index]
        corners.append((x, y, x + w, y + h, w * h))
    out: list[dict[str, str]] = []
    append = out.append
    n = len(order)
    social = bool(builder.talking or builder.walking_together)
    uses = bool(builder.uses)
    for i in range(n):
        a, id_a, corners_a = things[i], ids[i], corners[i]
        depth_a = a.depth
        for j in range(i + 1, n):
            b, id_b = things[j], ids[j]
            depth_b = b.depth
            if depth_a < depth_b:
                if depth_a + depth_margin(depth_a) < depth_b:
                    append({"subject": id_a, "predicate": CLOSER, "object": id_b})
                    if _occludes(corners_a, corners[j]):
                        append({"subject": id_a, "predicate": OCCLUDING, "object": id_b})
            elif depth_b + depth_margin(depth_b) < depth_a:
                append({"subject": id_b, "predicate": CLOSER, "object": id_a})
                if _occludes(corners[j], corners_a):
                    append({"subject": id_b, "predicate": OCCLUDING, "object": id_a})
            if a.type == PERSON:
                if b.type == PERSON:
                    if a.stature > b.stature + TALLER_MARGIN:
                        append({"subject": id_a, "predicate": TALLER, "object": id_b})
                    elif b.stature > a.stature + TALLER_MARGIN:
                        append({"subject": id_b, "predicate": TALLER, "object": id_a})
                    if social:
                        _social_pair(builder, order[i], order[j], id_a, id_b, out)
                elif uses:
                    _use_pair(builder, order[i], order[j], id_a, id_b, out)
            elif b.type == PERSON:
                if uses:
                    _use_pair(builder, order[j], order[i], id_b, id_a, out)
            elif a.size > LARGER_RATIO * b.size:
                append({"subject": id_a, "predicate": LARGER, "object": id_b})
            elif b.size > LARGER_RATIO * a.size:
                append({"subject": id_b, "predicate": LARGER, "object": id_a})
    return out


def _use_pair(
    builder: _SceneBuilder,
    person: int,
    vehicle: int,
    person_id: str,
    vehicle_id: str,
    out: list[dict[str, str]],
) -> None:
    use = builder.uses.get((person, vehicle))
    if use is not None:
        out.append({"subject": person_id, "predicate": use, "object": vehicle_id})


def _social_pair(
    builder: _SceneBuilder, a_index: int, b_index: int, id_a: str, id_b: str, out: list[dict[str, str]]
) -> None:
    pair = (a_index, b_index) if a_index < b_index else (b_index, a_index)
    if pair in builder.talking:
        out.append({"subject": id_a, "predicate": TALKING, "object": id_b})
    if pair in builder.walking_together:
        out.append({"subject": id_a, "predicate": WALKING_TOGETHER, "object": id_b})


def _record(builder: _SceneBuilder, name: str) -> dict:
    """The JSON Lines record; objects are listed in random order so ids carry no information.

    "visible tires" is filled in last, from the finished record, exactly as the renderer will see it.
    """
    layout, r = builder.layout, builder.r
    order = list(range(len(builder.things)))
    r.shuffle(order)
    ids = [f"o{k + 1}" for k in range(len(order))]
    objects = []
    for k, index in enumerate(order):
        thing = builder.things[index]
        known = r.random() >= UNKNOWN_ATTRIBUTES_RATE
        if not known:
            attributes: list[str] = []
        elif thing.type == PERSON:
            attributes = _person_attributes(thing)
        else:
            attributes = _vehicle_attributes(thing)
        objects.append(
            {
                "id": ids[k],
                "type": thing.type,
                "bbox": list(builder.boxes[index]),
                "attributes": attributes,
                "attributes_known": known,
            }
        )
    record = {
        "image": name,
        "width": layout.width,
        "height": layout.height,
        "objects": objects,
        "relationships": _relationships(builder, order, ids),
    }
    occluders = wheel_occluders(record)
    for k, index in enumerate(order):
        thing, obj = builder.things[index], objects[k]
        if thing.type == VEHICLE and obj["attributes_known"]:
            wheels = visible_wheels(layout, thing.kind, obj["bbox"], occluders.get(obj["id"], ()))
            obj["attributes"].insert(3, tire_count_value(len(wheels)))
    return record


# --------------------------------------------------------------------------------------------------
# Public API.
# --------------------------------------------------------------------------------------------------


def _bounded_poisson(r: random.Random, mean: float, most: int) -> int:
    """A Poisson draw redrawn while above ``most`` (clamping would pile scenes up at the maximum)."""
    for _ in range(20):
        k = _poisson(r, mean)
        if k <= most:
            return k
    return most


def _scene_counts(r: random.Random) -> tuple[int, int]:
    """Numbers of people and vehicles: a shared "busyness" makes some streets empty and some crowded.

    The factors above 1 make up for the truncation at the maxima and for objects that find no room.
    """
    busyness = r.gammavariate(1.6, 1 / 1.6)
    vehicle_busyness = 0.5 * busyness + 0.5 * r.gammavariate(2.0, 0.5)
    people = _bounded_poisson(r, MEAN_PEOPLE * 1.07 * busyness, MAX_PEOPLE)
    vehicles = _bounded_poisson(r, MEAN_VEHICLES * 1.13 * vehicle_busyness, MAX_VEHICLES)
    return people, vehicles


def generate_scene(rng: np.random.Generator, name: str, width: int = 640, height: int = 480) -> dict:
    """One synthetic street scene as a VTT.md section 9 record (scene graph only, no pixels)."""
    r = random.Random(int(rng.integers(0, 2**63)))  # one numpy draw, then the fast stdlib generator
    builder = _SceneBuilder(r, street_layout(name, width, height))
    people, vehicles = _scene_counts(r)
    builder.add_vehicles(vehicles)
    placed = len(builder.uses)  # the riders
    for index in range(len(builder.things)):
        vehicle = builder.things[index]
        if vehicle.type != VEHICLE or vehicle.motion != PARKED or placed >= people:
            continue
        if vehicle.kind in TWO_WHEELERS:
            if r.random() < 0.2:
                placed += builder.add_two_wheeler_user(index) is not None
        elif r.random() < (0.5 if vehicle.kind == BUS else 0.2):
            placed += builder.add_enterer(index) is not None
    failures = 0
    while placed < people and failures < 6:
        added = builder.add_group(people - placed)
        placed += added
        failures += added == 0
    return _record(builder, name)


def generate_scenes(
    count: int, seed: int, *, prefix: str = "synthetic", width: int = 640, height: int = 480
) -> Iterator[dict]:
    """``count`` scenes, identical for identical arguments; images are named ``{prefix}-{seed}-{i:06d}.png``.

    One generator seeded with ``seed`` is shared by the scenes in turn, so scene i depends on all before it.
    """
    rng = np.random.default_rng(seed)
    for i in range(count):
        yield generate_scene(rng, f"{prefix}-{seed}-{i:06d}.png", width, height)
