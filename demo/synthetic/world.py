"""Tunable constants of the world model and the fixed proportions of vehicles and people.

Scene sizes and rates, the margins behind "taller than", "closer than", "larger than" and "occluding", the
side view of each vehicle kind (``VEHICLE_SHAPES``) and the box of a person by pose. The shapes and
proportions are shared with the renderer, which must draw exactly the boxes and wheels the record describes.
"""

from __future__ import annotations

from dataclasses import dataclass

from demo.synthetic.vocabulary import (
    BICYCLE,
    BUS,
    CAR,
    CROSSING,
    MOTORCYCLE,
    RUNNING,
    SITTING,
    STANDING,
    TRUCK,
    WALKING,
)

MEAN_PEOPLE = 5.0
MAX_PEOPLE = 14
MEAN_VEHICLES = 3.0
MAX_VEHICLES = 8
UNKNOWN_ATTRIBUTES_RATE = 0.04
MIN_BOX_SIDE = 4.0

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
