"""An image's merged annotation.

A box is kept when at least `quorum` annotators found it (default: a strict majority of the image's
annotators), at the coordinate-wise median of its cluster's boxes. Each attribute of a kept box, and
each relationship of a pair of kept boxes, is decided by a vote of the annotators who answered it
(`decisions.py`): a plain majority, or, given reliabilities, the sum of each voter's log likelihood
ratio (Dawid and Skene's posterior with an even prior). A tie decides "no".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

from crowd.consensus.agreement import agreement_of
from crowd.consensus.decisions import ATTRIBUTE, BOX, RELATION, Decision, image_decisions
from crowd.consensus.matching import match_boxes
from crowd.consensus.types import (
    Cluster,
    ConsensusError,
    Disagreement,
    Merge,
    MergedBox,
    Relation,
    Reliability,
    Version,
)

CLIP = 1e-3  # a reliability of exactly 0 or 1 would outvote everyone for ever


def merge_image(
    versions: Sequence[Version],
    *,
    iou_threshold: float = 0.5,
    quorum: int | None = None,
    weights: Mapping[str, Reliability] | None = None,
    attribute_universe: Mapping[str, frozenset[str]] | None = None,
    symmetric: frozenset[str] = frozenset(),
) -> Merge:
    quorum = len(versions) // 2 + 1 if quorum is None else quorum
    if versions and not 1 <= quorum <= len(versions):
        raise ConsensusError(f"The quorum must be between 1 and the number of annotators ({len(versions)}).")
    clusters = match_boxes(versions, iou_threshold=iou_threshold)
    decisions = image_decisions(
        versions, clusters, attribute_universe=attribute_universe, symmetric=symmetric
    )
    kept = {
        i: f"m{n + 1}" for n, i in enumerate(i for i, c in enumerate(clusters) if len(c.members) >= quorum)
    }
    yes_by = {id(d): vote(d.votes, weights) for d in decisions if d.kind != BOX}
    boxes = tuple(
        _merged_box(
            key,
            clusters[i],
            versions,
            [d for d in decisions if d.kind == ATTRIBUTE and d.cluster == i],
            yes_by,
        )
        for i, key in kept.items()
    )
    relations = tuple(
        Relation(kept[d.cluster], d.name, kept[d.other])
        for d in decisions
        if d.kind == RELATION and d.cluster in kept and d.other in kept and yes_by[id(d)]
    )
    disagreements = tuple(
        _disagreement(d, clusters, kept, yes_by.get(id(d), d.cluster in kept))
        for d in decisions
        if len(set(d.votes.values())) > 1
        and (d.kind == BOX or (d.cluster in kept and (d.other is None or d.other in kept)))
    )
    return Merge(boxes, relations, agreement_of(versions, clusters, decisions), disagreements)


def vote(votes: Mapping[str, bool], weights: Mapping[str, Reliability] | None = None) -> bool:
    """The decision of a weighted vote; an annotator whose reliability is missing or not enough is
    weighed as the mean of those that are, and with none that are the vote is a plain majority."""
    trusted = [r for r in (weights or {}).values() if r.enough]
    if not trusted:
        return sum(1 if answer else -1 for answer in votes.values()) > 0
    typical = (
        float(np.mean([r.sensitivity for r in trusted])),
        float(np.mean([r.specificity for r in trusted])),
    )
    total = 0.0
    for name, answer in votes.items():
        reliability = (weights or {}).get(name)
        sens, spec = (
            (reliability.sensitivity, reliability.specificity)
            if reliability and reliability.enough
            else typical
        )
        total += log_ratio(answer, sens, spec)
    return total > 0


def log_ratio(answer: bool, sensitivity: float, specificity: float) -> float:
    """log P(answer | yes) / P(answer | no) for an annotator of this sensitivity and specificity."""
    sens = min(max(sensitivity, CLIP), 1 - CLIP)
    spec = min(max(specificity, CLIP), 1 - CLIP)
    return math.log(sens / (1 - spec)) if answer else math.log((1 - sens) / spec)


def _merged_box(
    key: str,
    cluster: Cluster,
    versions: Sequence[Version],
    attributes: Sequence[Decision],
    yes_by: Mapping[int, bool],
) -> MergedBox:
    by_name = {version.annotator: version for version in versions}
    boxes = [by_name[name].box(box_key) for name, box_key in cluster.members.items()]
    x, y, w, h = (float(v) for v in np.median([[b.x, b.y, b.w, b.h] for b in boxes], axis=0))
    return MergedBox(
        key=key,
        label=cluster.label,
        x=x,
        y=y,
        w=w,
        h=h,
        attributes=frozenset(d.name for d in attributes if yes_by[id(d)]),
        support=tuple(cluster.members),
        sources=dict(cluster.members),
        attributes_known=any(b.attributes_known for b in boxes),
    )


def _disagreement(
    decision: Decision, clusters: Sequence[Cluster], kept: Mapping[int, str], decided: bool
) -> Disagreement:
    voters = set(decision.votes) if decision.kind == RELATION else set(clusters[decision.cluster].members)
    sources = {name: key for name, key in clusters[decision.cluster].members.items() if name in voters}
    other = clusters[decision.other].members if decision.other is not None else {}
    return Disagreement(
        kind=decision.kind,
        box=kept.get(decision.cluster),
        name=decision.name,
        yes=tuple(name for name, answer in decision.votes.items() if answer),
        no=tuple(name for name, answer in decision.votes.items() if not answer),
        decided=decided,
        sources=sources,
        other=kept.get(decision.other) if decision.other is not None else None,
        other_sources={name: key for name, key in other.items() if name in voters},
    )
