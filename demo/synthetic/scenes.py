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

The code is split by subject: ``vocabulary`` (the vocabulary's names), ``world`` (tunable constants,
vehicle shapes, a person's box by pose), ``layout`` (street and camera), ``wheels`` (wheel positions and
visibility, shared with the renderer), ``placement``, ``vehicles``, ``people`` and ``groups`` (the scene
model placing objects), ``relationships`` and ``assembly`` (the scene builder, the JSON record and the
generators). This module is the public entry point: it re-exports their public names.
"""

from __future__ import annotations

from demo.synthetic.assembly import (
    generate_scene,
    generate_scenes,
)
from demo.synthetic.layout import (
    PARKING_LANE_WIDTH,
    TRAVEL_LANE_WIDTH,
    StreetLayout,
    street_layout,
)
from demo.synthetic.vocabulary import (
    ADULT,
    BICYCLE,
    BUS,
    CAR,
    CARRYING,
    CHILD,
    CLOSER,
    CROSSING,
    DARK,
    ENTERING,
    FEMALE,
    HAT,
    INTERACTING,
    LARGER,
    LIGHT,
    MALE,
    MOTORCYCLE,
    MOVING,
    OCCLUDING,
    ON_SIDEWALK,
    ON_STREET,
    PARKED,
    PERSON,
    RIDING,
    RUNNING,
    SITTING,
    STANDING,
    TALKING,
    TALLER,
    TIRE_COUNTS,
    TRUCK,
    VEHICLE,
    WALKING,
    WALKING_TOGETHER,
)
from demo.synthetic.wheels import (
    hides_wheel,
    tire_count_value,
    visible_wheels,
    wheel_occluders,
    wheel_positions,
)
from demo.synthetic.world import (
    LARGER_RATIO,
    MAX_PEOPLE,
    MAX_VEHICLES,
    MEAN_PEOPLE,
    MEAN_VEHICLES,
    MIN_BOX_SIDE,
    OCCLUSION_MIN_SHARE,
    RIDER_MOTION,
    TALLER_MARGIN,
    TWO_WHEELERS,
    UNKNOWN_ATTRIBUTES_RATE,
    VEHICLE_KIND_WEIGHTS,
    VEHICLE_KINDS,
    VEHICLE_SHAPES,
    VehicleShape,
    depth_margin,
)

__all__ = [
    "ADULT",
    "BICYCLE",
    "BUS",
    "CAR",
    "CARRYING",
    "CHILD",
    "CLOSER",
    "CROSSING",
    "DARK",
    "ENTERING",
    "FEMALE",
    "HAT",
    "INTERACTING",
    "LARGER",
    "LARGER_RATIO",
    "LIGHT",
    "MALE",
    "MAX_PEOPLE",
    "MAX_VEHICLES",
    "MEAN_PEOPLE",
    "MEAN_VEHICLES",
    "MIN_BOX_SIDE",
    "MOTORCYCLE",
    "MOVING",
    "OCCLUDING",
    "OCCLUSION_MIN_SHARE",
    "ON_SIDEWALK",
    "ON_STREET",
    "PARKED",
    "PARKING_LANE_WIDTH",
    "PERSON",
    "RIDER_MOTION",
    "RIDING",
    "RUNNING",
    "SITTING",
    "STANDING",
    "TALKING",
    "TALLER",
    "TALLER_MARGIN",
    "TIRE_COUNTS",
    "TRAVEL_LANE_WIDTH",
    "TRUCK",
    "TWO_WHEELERS",
    "UNKNOWN_ATTRIBUTES_RATE",
    "VEHICLE",
    "VEHICLE_KINDS",
    "VEHICLE_KIND_WEIGHTS",
    "VEHICLE_SHAPES",
    "WALKING",
    "WALKING_TOGETHER",
    "StreetLayout",
    "VehicleShape",
    "depth_margin",
    "generate_scene",
    "generate_scenes",
    "hides_wheel",
    "street_layout",
    "tire_count_value",
    "visible_wheels",
    "wheel_occluders",
    "wheel_positions",
]
