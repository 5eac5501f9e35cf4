"""An image's merged annotation.

A box is kept when at least `quorum` annotators found it (default: a strict majority of the image's
annotators), at the coordinate-wise median of its cluster's boxes. Each attribute of a kept box, and
each relationship of a pair of kept boxes, is decided by a vote of the annotators who answered it
(`decisions.py`): a plain majority, or, given reliabilities, the sum of each voter's log likelihood
ratio (Dawid and Skene's posterior; with `priors`, from `estimate_crowd`, each decision's prior log odds
are added, as Dawid and Skene's posterior has them). A tie decides "no". In an exclusive group of
attributes (`exclusive`: label -> its groups), the value of the highest vote is kept and only it, so
that the merge is a valid annotation (exactly one value of a group someone answered).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Mapping, Sequence

import numpy as np

from crowd.consensus.agreement import agreement_of
from crowd.consensus.decisions import ATTRIBUTE, BOX, RELATION, Decision, image_decisions
from crowd.consensus.matching import match_boxes, median_box
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
    exclusive: Mapping[str, Sequence[frozenset[str]]] | None = None,
    symmetric: frozenset[str] = frozenset(),
    priors: Mapping[tuple[str, str, str], float] | None = None,
) -> Merge:
    versions = sorted(versions, key=lambda version: version.annotator)  # the same merge in any order
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
    decided = _decide(decisions, clusters, weights, exclusive or {}, priors or {})
    attributes: dict[int, list[Decision]] = defaultdict(list)
    for d in decisions:
        if d.kind == ATTRIBUTE:
            attributes[d.cluster].append(d)
    boxes = tuple(_merged_box(key, clusters[i], versions, attributes[i], decided) for i, key in kept.items())
    relations = tuple(
        Relation(kept[d.cluster], d.name, kept[d.other])
        for d in decisions
        if d.kind == RELATION and d.cluster in kept and d.other in kept and decided[id(d)]
    )
    disagreements = tuple(
        _disagreement(d, clusters, kept, decided.get(id(d), d.cluster in kept))
        for d in decisions
        if len(set(d.votes.values())) > 1
        and (d.kind == BOX or (d.cluster in kept and (d.other is None or d.other in kept)))
    )
    return Merge(boxes, relations, agreement_of(versions, clusters, decisions), disagreements)


def _decide(
    decisions: Sequence[Decision],
    clusters: Sequence[Cluster],
    weights: Mapping[str, Reliability] | None,
    exclusive: Mapping[str, Sequence[frozenset[str]]],
    priors: Mapping[tuple[str, str, str], float],
) -> dict[int, bool]:
    """id(decision) -> what the vote decided, for every attribute and relation decision; in an exclusive
    group of a box, only the value of the highest score (the first in name order on a tie)."""
    score = {
        id(d): vote_score(d.votes, weights, d.kind, priors.get(d.prior_key))
        for d in decisions
        if d.kind != BOX
    }
    decided = {key: value > 0 for key, value in score.items()}
    by_group: dict[tuple[int, frozenset[str]], list[Decision]] = defaultdict(list)
    for d in decisions:
        if d.kind == ATTRIBUTE:
            for group in exclusive.get(clusters[d.cluster].label, ()):
                if d.name in group:
                    by_group[(d.cluster, group)].append(d)
    for rivals in by_group.values():
        winner = max(sorted(rivals, key=lambda o: o.name), key=lambda o: score[id(o)])
        for d in rivals:
            decided[id(d)] = d is winner
    return decided


def vote(
    votes: Mapping[str, bool],
    weights: Mapping[str, Reliability] | None = None,
    kind: str | None = None,
    prior: float | None = None,
) -> bool:
    """The decision of a vote: yes when its score is above 0."""
    return vote_score(votes, weights, kind, prior) > 0


def vote_score(
    votes: Mapping[str, bool],
    weights: Mapping[str, Reliability] | None = None,
    kind: str | None = None,
    prior: float | None = None,
) -> float:
    """Yes votes minus no votes, or, given reliabilities, the summed log likelihood ratio of the
    answers, each annotator weighed by their figures for this kind of decision when they have enough of
    it. An annotator whose reliability is missing or not enough is weighed as the mean of those that
    are; with none that are, the vote is a plain majority. An annotator no better than chance weighs
    nothing (their answers are not turned round). A weighted vote starts from the prior's log odds
    when one is given; a majority ignores it."""
    reliable = {name: _for_kind(r, kind) for name, r in (weights or {}).items()}
    trusted = [r for r in reliable.values() if r.enough]
    if not trusted:
        return float(sum(1 if answer else -1 for answer in votes.values()))
    typical = Reliability(
        float(np.mean([r.sensitivity for r in trusted])),
        float(np.mean([r.specificity for r in trusted])),
        0,
        True,
    )
    total = 0.0 if prior is None else log_ratio(True, prior, prior)  # log(prior / (1 - prior))
    for name, answer in votes.items():
        mine = reliable.get(name)
        reliability = mine if mine is not None and mine.enough else typical
        if reliability.informative:
            total += log_ratio(answer, reliability.sensitivity, reliability.specificity)
    return total


def _for_kind(reliability: Reliability, kind: str | None) -> Reliability:
    of_kind = reliability.kinds.get(kind) if kind is not None else None
    return of_kind if of_kind is not None else reliability


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
    decided: Mapping[int, bool],
) -> MergedBox:
    by_name = {version.annotator: version for version in versions}
    boxes = [by_name[name].box(box_key) for name, box_key in cluster.members.items()]
    centre = median_box(boxes)
    return MergedBox(
        key=key,
        label=cluster.label,
        x=centre.x,
        y=centre.y,
        w=centre.w,
        h=centre.h,
        attributes=frozenset(d.name for d in attributes if decided[id(d)]),
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
