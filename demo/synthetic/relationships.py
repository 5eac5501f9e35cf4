"""Relationships between the objects of a scene, derived from its geometry and its groups.

They are complete: a pair not listed is not related by the predicate.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from demo.synthetic.vocabulary import (
    CLOSER,
    LARGER,
    OCCLUDING,
    PERSON,
    TALKING,
    TALLER,
    WALKING_TOGETHER,
)
from demo.synthetic.world import LARGER_RATIO, OCCLUSION_MIN_SHARE, TALLER_MARGIN, depth_margin

if TYPE_CHECKING:
    from demo.synthetic.assembly import _SceneBuilder


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
