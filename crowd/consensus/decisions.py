"""The binary decisions an image's merge takes, each with every annotator's answer to it: is this
object there (asked of every annotator), does this matched box have this attribute (asked of the
annotators who drew it and could tell its attributes), are these two matched boxes related by this
predicate (asked of the annotators who drew both). Agreement counts agreeing pairs of answers on them,
the merge votes on them, and the reliability estimate learns from them.

Which attributes count on a matched box: the label's attribute universe when the caller gives one
(an annotator ticking nothing then disagrees with one ticking "red", and two annotators both leaving
"red" off agree), else every attribute ticked on any box of that label in any version of the image.
Which predicates count on a matched pair: every predicate any annotator stated on that pair (in either
direction for a symmetric predicate).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from crowd.consensus.types import Cluster, Version

BOX = "box"
ATTRIBUTE = "attribute"
RELATION = "relation"


@dataclass(frozen=True)
class Decision:
    """One yes/no decision: `cluster` (and `other`, for a relation) index the image's clusters; `name`
    is the label, attribute or predicate; `votes` annotator -> their answer."""

    kind: str
    cluster: int
    name: str
    votes: Mapping[str, bool]
    other: int | None = None
    label: str = ""  # the (subject) box's label

    @property
    def prior_key(self) -> tuple[str, str, str]:
        """What shares a prior P(yes): (kind, label, name), e.g. ("attribute", "person", "walking")."""
        return (self.kind, self.label, self.name)


def attribute_universes(
    versions: Sequence[Version], universe: Mapping[str, frozenset[str]] | None
) -> dict[str, frozenset[str]]:
    """label -> the attributes that count on a box of that label in this image."""
    seen: dict[str, set[str]] = {}
    for version in versions:
        for box in version.boxes:
            seen.setdefault(box.label, set()).update(box.attributes)
    return {
        label: universe[label] if universe is not None and label in universe else frozenset(names)
        for label, names in seen.items()
    }


def image_decisions(
    versions: Sequence[Version],
    clusters: Sequence[Cluster],
    *,
    attribute_universe: Mapping[str, frozenset[str]] | None = None,
    symmetric: frozenset[str] = frozenset(),
) -> list[Decision]:
    versions = sorted(versions, key=lambda version: version.annotator)  # votes listed by name
    return [
        *box_decisions(versions, clusters),
        *attribute_decisions(versions, clusters, attribute_universe),
        *relation_decisions(versions, clusters, symmetric),
    ]


def box_decisions(versions: Sequence[Version], clusters: Sequence[Cluster]) -> list[Decision]:
    return [
        Decision(
            BOX,
            index,
            cluster.label,
            {v.annotator: v.annotator in cluster.members for v in versions},
            label=cluster.label,
        )
        for index, cluster in enumerate(clusters)
    ]


def attribute_decisions(
    versions: Sequence[Version],
    clusters: Sequence[Cluster],
    universe: Mapping[str, frozenset[str]] | None,
) -> list[Decision]:
    by_name = {version.annotator: version for version in versions}
    universes = attribute_universes(versions, universe)
    decisions = []
    for index, cluster in enumerate(clusters):
        boxes = {name: by_name[name].box(key) for name, key in cluster.members.items()}
        knowing = {name: box for name, box in boxes.items() if box.attributes_known}
        if not knowing:
            continue
        for attribute in sorted(universes.get(cluster.label, frozenset())):
            votes = {name: attribute in box.attributes for name, box in knowing.items()}
            decisions.append(Decision(ATTRIBUTE, index, attribute, votes, label=cluster.label))
    return decisions


def relation_decisions(
    versions: Sequence[Version], clusters: Sequence[Cluster], symmetric: frozenset[str]
) -> list[Decision]:
    """A decision per (ordered pair of clusters, predicate) that anyone stated; a symmetric predicate's
    pair is ordered by cluster index."""
    where = {(name, key): index for index, c in enumerate(clusters) for name, key in c.members.items()}
    stated: dict[tuple[int, int, str], set[str]] = {}
    for version in versions:
        for relation in version.relations:
            pair = _pair(
                where, version.annotator, relation.subject, relation.object, relation.predicate, symmetric
            )
            stated.setdefault((*pair, relation.predicate), set()).add(version.annotator)
    decisions = []
    for (first, second, predicate), said in sorted(stated.items()):
        both = set(clusters[first].members) & set(clusters[second].members)
        votes = {name: name in said for name in sorted(both)}
        if votes:
            decisions.append(
                Decision(RELATION, first, predicate, votes, other=second, label=clusters[first].label)
            )
    return decisions


def _pair(
    where: Mapping[tuple[str, str], int],
    name: str,
    subject: str,
    object_: str,
    predicate: str,
    symmetric: frozenset[str],
) -> tuple[int, int]:
    first, second = where[(name, subject)], where[(name, object_)]
    if predicate in symmetric and second < first:
        return second, first
    return first, second
