"""Placing people: new people and their boxes, riders, and people using a parked vehicle.

Sex, stature, hat and bag are drawn here; the box proportions by pose are in ``world`` because the renderer
uses them too. Riders sit on moving two-wheelers (``_VehiclePlacement`` asks for them); enterers stand at a
door of a parked car, truck or bus; two-wheeler users stand beside a parked bicycle or motorcycle.
"""

from __future__ import annotations

from demo.synthetic.placement import _Placement, _Thing
from demo.synthetic.vocabulary import (
    ADULT,
    BICYCLE,
    CAR,
    CHILD,
    CROSSING,
    ENTERING,
    FEMALE,
    MALE,
    ON_STREET,
    PERSON,
    RUNNING,
    SITTING,
    STANDING,
    WALKING,
)
from demo.synthetic.world import _BAG_EXTRA, _HAT_EXTRA, _POSE_BOX, RIDER_MOTION

# Chance of carrying something, by (age, motion); walking adults carry most.
_CARRY = {
    (ADULT, WALKING): 0.5,
    (ADULT, CROSSING): 0.42,
    (ADULT, STANDING): 0.32,
    (ADULT, SITTING): 0.28,
    (ADULT, RUNNING): 0.05,
}
_CHILD_CARRY = 0.1


class _PeoplePlacement(_Placement):
    """Adds single people: riders, people entering or exiting a vehicle, people at a parked two-wheeler."""

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
