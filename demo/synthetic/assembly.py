"""Scene assembly: how many people and vehicles, the scene builder that places them, and the JSON record.

``generate_scene`` and ``generate_scenes`` are re-exported by ``scenes``, the public entry module.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from typing import Any

import numpy as np

from demo.synthetic.groups import _GroupPlacement
from demo.synthetic.layout import street_layout
from demo.synthetic.placement import _Thing
from demo.synthetic.relationships import _relationships
from demo.synthetic.vehicles import _VehiclePlacement
from demo.synthetic.vocabulary import BUS, CARRYING, HAT, INTERACTING, PARKED, PERSON, VEHICLE
from demo.synthetic.wheels import tire_count_value, visible_wheels, wheel_occluders
from demo.synthetic.world import (
    MAX_PEOPLE,
    MAX_VEHICLES,
    MEAN_PEOPLE,
    MEAN_VEHICLES,
    TWO_WHEELERS,
    UNKNOWN_ATTRIBUTES_RATE,
)

# --------------------------------------------------------------------------------------------------
# The scene model.
# --------------------------------------------------------------------------------------------------


class _SceneBuilder(_VehiclePlacement, _GroupPlacement):
    """Places vehicles and people on the street and records who rides, enters, talks or walks with whom."""


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


def _record(builder: _SceneBuilder, name: str) -> dict:
    """The JSON Lines record; objects are listed in random order so ids carry no information.

    "visible tires" is filled in last, from the finished record, exactly as the renderer will see it.
    """
    layout, r = builder.layout, builder.r
    order = list(range(len(builder.things)))
    r.shuffle(order)
    ids = [f"o{k + 1}" for k in range(len(order))]
    objects: list[dict[str, Any]] = []  # JSON objects, as in the parking and marina scenes
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


def _poisson(r: random.Random, mean: float) -> int:
    """Poisson draw by inversion (means here stay small, so the loop is short)."""
    threshold, k, product = math.exp(-mean), 0, r.random()
    while product > threshold:
        k += 1
        product *= r.random()
    return k


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
    """One synthetic street scene as a docs/method.md section 9 record (scene graph only, no pixels)."""
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
