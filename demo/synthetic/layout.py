"""Street layout and camera: where the horizon, curbs, lanes and facade of an image are.

The ground plane is seen in perspective: a point on the ground at depth ``z`` metres appears
``focal * camera_height / z`` pixels below the horizon, and an object there is drawn at ``focal / z`` pixels
per metre. The layout is a deterministic function of the image name and size (``street_layout``) so that
the renderer can rebuild the background from the JSON record alone.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

from demo.synthetic.vocabulary import ON_SIDEWALK, ON_STREET

PARKING_LANE_WIDTH = 2.3
TRAVEL_LANE_WIDTH = 3.2


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
