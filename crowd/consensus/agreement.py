"""An image's agreement between its annotators.

Box F1 is the mean over pairs of annotators of 2m / (n_a + n_b), m the objects both found (the same
cluster), n their numbers of boxes (1 when neither drew anything: they agree the image is empty).
Attribute and relationship agreement are the share of agreeing pairs of answers over the decisions of
`decisions.py`: each decision answered by k annotators gives k(k-1)/2 pairs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations

from crowd.consensus.decisions import ATTRIBUTE, RELATION, Decision, image_decisions
from crowd.consensus.matching import match_boxes
from crowd.consensus.types import Agreement, AgreementSummary, Cluster, ConsensusError, Version


def image_agreement(
    versions: Sequence[Version],
    *,
    iou_threshold: float = 0.5,
    attribute_universe: Mapping[str, frozenset[str]] | None = None,
    symmetric: frozenset[str] = frozenset(),
) -> Agreement:
    clusters = match_boxes(versions, iou_threshold=iou_threshold)
    decisions = image_decisions(
        versions, clusters, attribute_universe=attribute_universe, symmetric=symmetric
    )
    return agreement_of(versions, clusters, decisions)


def agreement_of(
    versions: Sequence[Version], clusters: Sequence[Cluster], decisions: Sequence[Decision]
) -> Agreement:
    return Agreement(
        box_f1=box_f1(versions, clusters),
        attribute_agreement=pair_agreement([d for d in decisions if d.kind == ATTRIBUTE]),
        relationship_agreement=pair_agreement([d for d in decisions if d.kind == RELATION]),
        n_annotators=len(versions),
    )


def box_f1(versions: Sequence[Version], clusters: Sequence[Cluster]) -> float | None:
    if len(versions) < 2:
        return None
    scores = []
    for a, b in combinations([version.annotator for version in versions], 2):
        n_a = sum(1 for c in clusters if a in c.members)
        n_b = sum(1 for c in clusters if b in c.members)
        both = sum(1 for c in clusters if a in c.members and b in c.members)
        scores.append(2 * both / (n_a + n_b) if n_a + n_b else 1.0)
    return sum(scores) / len(scores)


def pair_agreement(decisions: Sequence[Decision]) -> float | None:
    agreeing = pairs = 0
    for decision in decisions:
        for first, second in combinations(decision.votes.values(), 2):
            pairs += 1
            agreeing += first == second
    return agreeing / pairs if pairs else None


def needs_review(agreement: Agreement, threshold: float) -> bool:
    """An image goes to a reviewer when its lowest agreement figure is below the threshold, or when
    there is no figure at all (one annotator: today's flow, where a reviewer sees every image)."""
    if not 0 <= threshold <= 1:
        raise ConsensusError("The agreement threshold must be between 0 and 1.")
    return agreement.lowest is None or agreement.lowest < threshold


def summarise(agreements: Sequence[Agreement]) -> AgreementSummary:
    """A collection's agreement: the mean of each figure over the images that have it."""

    def mean(values: list[float | None]) -> float | None:
        present = [v for v in values if v is not None]
        return sum(present) / len(present) if present else None

    return AgreementSummary(
        images=len(agreements),
        box_f1=mean([a.box_f1 for a in agreements]),
        attribute_agreement=mean([a.attribute_agreement for a in agreements]),
        relationship_agreement=mean([a.relationship_agreement for a in agreements]),
    )
