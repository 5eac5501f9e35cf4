"""Social groups of people, from a lone walker to families, conversations and people crossing the street.

The templates are walkers, walking groups, families, standers, conversations, sitters, people crossing the
street, runners and children together. A group fixes its members' motion, place and age mix, and the
talking and walking-together pairs among them.
"""

from __future__ import annotations

from collections.abc import Callable

from demo.synthetic.people import _PeoplePlacement
from demo.synthetic.placement import _cumulative, _pick, _Thing
from demo.synthetic.vocabulary import ADULT, CHILD, CROSSING, RUNNING, SITTING, STANDING, WALKING

# Social group templates and their weights; see _GroupPlacement.add_group.
_GROUPS = (
    "walker",
    "walking group",
    "family",
    "stander",
    "conversation",
    "sitters",
    "crossers",
    "runner",
    "kids",
)
_GROUP_CUMULATIVE = _cumulative((0.22, 0.13, 0.09, 0.15, 0.08, 0.10, 0.14, 0.035, 0.025))


class _GroupPlacement(_PeoplePlacement):
    """Adds social groups of people on the sidewalks, waiting at the curb or crossing the street."""

    def add_group(self, budget: int) -> int:
        """Adds one social group of at most ``budget`` people; returns how many were placed."""
        r = self.r
        template = _pick(r, _GROUPS, _GROUP_CUMULATIVE)
        if template == "walker":
            return self.place_group([self.adult_or_child(0.05)], WALKING, self.sidewalk_depth, 0.0)
        if template == "walking group":
            ages = [self.adult_or_child(0.08) for _ in range(2 if r.random() < 0.75 else 3)]
            return self.place_group(ages[:budget], WALKING, self.sidewalk_depth, 0.6, together=True, talk=0.6)
        if template == "family":
            ages = [ADULT] * (1 if r.random() < 0.6 else 2) + [CHILD] * (1 if r.random() < 0.65 else 2)
            ages = _interleave_family(ages)[:budget]
            walking = r.random() < 0.7
            return self.place_group(
                ages, WALKING if walking else STANDING, self.sidewalk_depth, 0.55, together=walking, talk=0.35
            )
        if template == "stander":
            if r.random() < 0.08:  # waiting at the edge of the street
                return self.place_group([ADULT], STANDING, self.parking_lane_depth, 0.0)
            return self.place_group([self.adult_or_child(0.06)], STANDING, self.sidewalk_depth, 0.0)
        if template == "conversation":
            ages = [self.adult_or_child(0.05) for _ in range(2 if r.random() < 0.7 else 3)]
            return self.place_group(
                ages[:budget], STANDING, self.sidewalk_depth, 0.85, talk=1.0, depth_jitter=0.2
            )
        if template == "sitters":
            ages = [self.adult_or_child(0.1) for _ in range(1 if r.random() < 0.6 else 2)]
            return self.place_group(ages[:budget], SITTING, self.sidewalk_depth, 0.6, talk=0.6)
        if template == "crossers":
            size = 1 if r.random() < 0.6 else (2 if r.random() < 0.75 else 3)
            ages = [ADULT] + [self.adult_or_child(0.35) for _ in range(size - 1)]
            return self.place_group(ages[:budget], CROSSING, self.street_depth, 0.6, together=True, talk=0.3)
        if template == "runner":
            return self.place_group([self.adult_or_child(0.1)], RUNNING, self.sidewalk_depth, 0.0)
        ages = [CHILD] * (2 if r.random() < 0.7 else 3)  # "kids": children together, sometimes running
        running = r.random() < 0.3
        return self.place_group(
            ages[:budget],
            RUNNING if running else WALKING,
            self.sidewalk_depth,
            0.55,
            together=True,
            talk=0.0 if running else 0.5,
        )

    def adult_or_child(self, child_share: float) -> str:
        return CHILD if self.r.random() < child_share else ADULT

    def street_depth(self) -> float:
        layout = self.layout
        return layout.near_curb + 0.3 + self.r.random() * (layout.far_curb - layout.near_curb - 0.6)

    def parking_lane_depth(self) -> float:
        edges = self.layout.lane_edges
        near, far = (edges[0], edges[1]) if self.r.random() < 0.5 else (edges[-2], edges[-1])
        return near + 0.3 + self.r.random() * (far - near - 0.6)

    def place_group(
        self,
        ages: list[str],
        motion: str,
        sample_depth: Callable[[], float],
        spacing: float,
        *,
        together: bool = False,
        talk: float = 0.0,
        depth_jitter: float = 0.12,
    ) -> int:
        """Places people side by side at about the same depth; records walking-together and talking pairs.

        Members keep ``spacing`` metres between them laterally and differ in depth by at most
        ``depth_jitter`` metres (less than the depth margin for walkers, so none is "closer than" another).
        """
        r = self.r
        if not ages:
            return 0
        for _attempt in range(4):
            depth = sample_depth()
            lateral = self.random_lateral(depth, spacing * len(ages))
            spread = spacing * (len(ages) - 1)
            members = []
            for k, age in enumerate(ages):
                offset = k * spacing - 0.5 * spread + 0.1 * (r.random() - 0.5) * (spacing > 0)
                member_depth = depth + depth_jitter * (2 * r.random() - 1) if len(ages) > 1 else depth
                members.append(
                    self.new_person(
                        age, motion, max(member_depth, self.layout.nearest_ground * 1.05), lateral + offset
                    )
                )
            if any(self.collides(m) for m in members) or _members_collide(members):
                continue
            boxes = [self.person_box(m) for m in members]
            if any(box is None for box in boxes):
                continue
            indices = [self.add(m, box) for m, box in zip(members, boxes, strict=True) if box is not None]
            talks = r.random() < talk
            for i, a in enumerate(indices):
                for b in indices[i + 1 :]:
                    if together:
                        self.walking_together.add((a, b))
                    if talks:
                        self.talking.add((a, b))
            return len(indices)
        return 0


def _members_collide(members: list[_Thing]) -> bool:
    for i, a in enumerate(members):
        fa = a.footprint()
        for b in members[i + 1 :]:
            fb = b.footprint()
            if fa[0] < fb[1] and fb[0] < fa[1] and fa[2] < fb[3] and fb[2] < fa[3]:
                return True
    return False


def _interleave_family(ages: list[str]) -> list[str]:
    """Orders a family side by side so that every child stands next to an adult."""
    adults = [a for a in ages if a == ADULT]
    children = [a for a in ages if a == CHILD]
    if len(children) == 2 and len(adults) == 1:
        return [CHILD, ADULT, CHILD]
    if len(children) == 2:
        return [CHILD, ADULT, ADULT, CHILD]
    return adults[:1] + children + adults[1:]
