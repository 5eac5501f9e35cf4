"""Colours of the synthetic street pictures: sky, street, facades, bodies of vehicles, skin and clothes."""

from __future__ import annotations

Colour = tuple[int, int, int]

SKY_TOP: Colour = (120, 170, 225)
SKY_HORIZON: Colour = (205, 225, 240)
FAR_SIDEWALK: Colour = (178, 174, 166)
NEAR_SIDEWALK: Colour = (190, 186, 178)
CURB: Colour = (120, 118, 112)
ASPHALT: Colour = (72, 74, 78)
LANE_WHITE: Colour = (235, 235, 228)
LANE_YELLOW: Colour = (225, 190, 60)
WHEEL: Colour = (25, 25, 25)
HUB: Colour = (150, 150, 150)
WINDOW_GLASS: Colour = (120, 150, 175)
# Hats and bags use colours found nowhere else, so tests (and people) can find them in the pixels.
HAT_COLOURS: tuple[Colour, ...] = ((150, 30, 30), (30, 60, 140), (62, 44, 36), (200, 120, 20))
BAG_COLOURS: tuple[Colour, ...] = ((110, 70, 30), (150, 40, 90), (20, 100, 110))
SKIN: tuple[Colour, ...] = ((245, 205, 170), (225, 175, 135), (175, 120, 80), (120, 80, 50))
HAIR: tuple[Colour, ...] = ((40, 30, 20), (90, 60, 30), (200, 170, 90), (20, 20, 20))
SHIRTS: tuple[Colour, ...] = (
    (60, 120, 200),
    (200, 60, 60),
    (60, 160, 90),
    (230, 200, 70),
    (240, 240, 240),
    (120, 80, 160),
    (255, 140, 60),
)
TROUSERS: tuple[Colour, ...] = ((40, 50, 90), (50, 50, 50), (110, 90, 60), (70, 80, 70))
SKIRTS: tuple[Colour, ...] = ((200, 50, 120), (150, 40, 40), (60, 60, 150), (240, 150, 170), (40, 110, 100))
LIGHT_BODIES: tuple[Colour, ...] = (
    (238, 238, 232),
    (222, 222, 205),
    (205, 215, 225),
    (240, 228, 175),
    (215, 235, 215),
)
DARK_BODIES: tuple[Colour, ...] = ((28, 28, 32), (35, 40, 85), (95, 20, 22), (22, 60, 32), (70, 60, 55))
BUILDINGS: tuple[Colour, ...] = (
    (170, 110, 90),
    (200, 185, 160),
    (150, 150, 155),
    (185, 160, 120),
    (120, 95, 85),
    (210, 200, 185),
)
