"""Pillow drawings of synthetic street scenes, so that annotated attributes are visible in the pixels.

The picture is rebuilt from the JSON record alone: the street layout comes from ``street_layout`` (a
function of the image name and size), boxes and attributes from the record. What the record does not fix
(clothes colours, which way a walker faces, building facades) is drawn from a generator seeded by
``seed`` and the image name, so a scene renders identically every time.

Cues drawn for attributes: children are small with large heads; women wear a skirt, men trousers; walkers
and runners have their legs apart; sitting people are bent on a bench; a hat sits on the head; a carried
bag hangs from a hand; vehicles have a kind-specific silhouette, a light or dark body, exactly the wheels
counted by "visible tires", and speed lines when moving. Objects are painted far to near, so the picture's
occlusions follow the "occluding" relationships.

The code is split by subject: ``palette`` (colours), ``draw_background`` (sky, facades, street),
``draw_people`` (figures and riders), ``draw_vehicles`` (side views and wheels) and ``painter``
(``render_scene`` and the far-to-near ``painter_order``). This module is the public entry point: it
re-exports their public names.
"""

from __future__ import annotations

from demo.synthetic.painter import (
    painter_order,
    render_scene,
)
from demo.synthetic.palette import (
    ASPHALT,
    BAG_COLOURS,
    BUILDINGS,
    CURB,
    DARK_BODIES,
    FAR_SIDEWALK,
    HAIR,
    HAT_COLOURS,
    HUB,
    LANE_WHITE,
    LANE_YELLOW,
    LIGHT_BODIES,
    NEAR_SIDEWALK,
    SHIRTS,
    SKIN,
    SKIRTS,
    SKY_HORIZON,
    SKY_TOP,
    TROUSERS,
    WHEEL,
    WINDOW_GLASS,
    Colour,
)

__all__ = [
    "ASPHALT",
    "BAG_COLOURS",
    "BUILDINGS",
    "CURB",
    "DARK_BODIES",
    "FAR_SIDEWALK",
    "HAIR",
    "HAT_COLOURS",
    "HUB",
    "LANE_WHITE",
    "LANE_YELLOW",
    "LIGHT_BODIES",
    "NEAR_SIDEWALK",
    "SHIRTS",
    "SKIN",
    "SKIRTS",
    "SKY_HORIZON",
    "SKY_TOP",
    "TROUSERS",
    "WHEEL",
    "WINDOW_GLASS",
    "Colour",
    "painter_order",
    "render_scene",
]
