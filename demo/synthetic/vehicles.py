"""Placing vehicles seen from the side, with a rider on every moving bicycle or motorcycle.

Parked vehicles go in the parking lanes (bicycles also at the sidewalk edge), moving ones in the travel
lanes, driving to the right on the near half of the street and to the left on the far half.
"""

from __future__ import annotations

from demo.synthetic.people import _PeoplePlacement
from demo.synthetic.placement import _cumulative, _pick, _Thing
from demo.synthetic.vocabulary import BICYCLE, DARK, LIGHT, MOVING, PARKED, RIDING, VEHICLE
from demo.synthetic.world import TWO_WHEELERS, VEHICLE_KIND_WEIGHTS, VEHICLE_KINDS, VEHICLE_SHAPES

_KIND_CUMULATIVE = _cumulative(VEHICLE_KIND_WEIGHTS)


class _VehiclePlacement(_PeoplePlacement):
    """Adds vehicles; it places people too, because a moving two-wheeler needs its rider."""

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
