"""Hand-made versions for the crowd's statistics."""

from __future__ import annotations

from crowd.consensus import Box, Relation, Version


def box(
    key: str, x: float, y: float = 0, *attributes: str, w: float = 10, h: float = 10, label: str = "person"
) -> Box:
    return Box(key, label, x, y, w, h, frozenset(attributes))


def version(name: str, *boxes: Box, relations: tuple[tuple[str, str, str], ...] = ()) -> Version:
    return Version(name, boxes, tuple(Relation(*r) for r in relations))
