"""An annotator's work on a gold image scored against the gold, and the rule that pauses them.

Boxes are matched by their own overlap with the gold's (`match_to_reference`: the gold is right by
definition, so no median between the two is taken); attributes are compared on the matched
boxes whose attributes both could tell, over the label's attribute universe when given, else every
attribute either version ticked on a box of that label (as `decisions.py` does for agreement).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from crowd.consensus.decisions import attribute_decisions
from crowd.consensus.matching import match_to_reference
from crowd.consensus.types import Cluster, ConsensusError, GoldScore, Version
from scoring.stats import Z95, wilson_interval

GOLD, WORK = "gold", "work"


def score_against_gold(
    version: Version,
    gold: Version,
    *,
    iou_threshold: float = 0.5,
    attribute_universe: Mapping[str, frozenset[str]] | None = None,
) -> GoldScore:
    pair = [replace(gold, annotator=GOLD), replace(version, annotator=WORK)]
    matches = match_to_reference(gold, version, iou_threshold=iou_threshold)
    clusters = [Cluster(gold.box(theirs).label, {GOLD: theirs, WORK: mine}) for theirs, mine in matches]
    matched = len(matches)
    decisions = [d for d in attribute_decisions(pair, clusters, attribute_universe) if len(d.votes) == 2]
    return GoldScore(
        true_positives=matched,
        false_positives=len(version.boxes) - matched,
        misses=len(gold.boxes) - matched,
        attributes_correct=sum(1 for d in decisions if d.votes[GOLD] == d.votes[WORK]),
        attributes_total=len(decisions),
    )


def gold_decisions(score: GoldScore) -> tuple[int, int]:
    """(correct, total) of an image's decisions against gold: each box found, missed or drawn in
    excess, and each attribute of a matched box; what `should_pause` adds up over gold images."""
    boxes = score.true_positives + score.false_positives + score.misses
    return score.true_positives + score.attributes_correct, boxes + score.attributes_total


def should_pause(
    correct: float,
    total: int,
    gold_images: int,
    *,
    threshold: float,
    min_gold: int,
    z: float = Z95,
) -> bool:
    """True when, after at least `min_gold` gold images, even the upper end of the Wilson interval of
    the annotator's gold accuracy (`correct` of `total` decisions) is below `threshold`: a careful
    annotator who had a bad image is not paused, a spammer is as soon as the evidence says so."""
    if not 0 < threshold <= 1:
        raise ConsensusError("The gold accuracy threshold must be above 0 and at most 1.")
    if min_gold < 1:
        raise ConsensusError("The minimum number of gold images must be at least 1.")
    if not 0 <= correct <= total:
        raise ConsensusError("Correct decisions must be between 0 and the number of decisions.")
    interval = wilson_interval(correct, total, z)
    return gold_images >= min_gold and interval is not None and interval[1] < threshold
