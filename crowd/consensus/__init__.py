"""The crowd's statistics, plain Python and numpy, free of Django (an import-linter contract): boxes
matched across annotators, their agreement, the merged annotation by a weighted vote, each annotator's
reliability (Dawid and Skene), work scored against gold and the rule that pauses an annotator.
docs/annotations.md, section "Crowds: the statistics", explains each; decision 0088 why."""

from crowd.consensus.agreement import image_agreement, needs_review, summarise
from crowd.consensus.gold import gold_decisions, score_against_gold, should_pause
from crowd.consensus.matching import iou, match_boxes, match_to_reference
from crowd.consensus.merge import merge_image, vote, vote_score
from crowd.consensus.reliability import estimate_crowd, estimate_reliability
from crowd.consensus.types import (
    Agreement,
    AgreementSummary,
    Box,
    Cluster,
    ConsensusError,
    CrowdEstimate,
    Disagreement,
    GoldScore,
    Merge,
    MergedBox,
    Relation,
    Reliability,
    Version,
)
from crowd.consensus.vocabulary import VocabularyRules, rules_of

__all__ = [
    "Agreement",
    "AgreementSummary",
    "Box",
    "Cluster",
    "ConsensusError",
    "CrowdEstimate",
    "Disagreement",
    "GoldScore",
    "Merge",
    "MergedBox",
    "Relation",
    "Reliability",
    "Version",
    "VocabularyRules",
    "estimate_crowd",
    "estimate_reliability",
    "gold_decisions",
    "image_agreement",
    "iou",
    "match_boxes",
    "match_to_reference",
    "merge_image",
    "needs_review",
    "rules_of",
    "score_against_gold",
    "should_pause",
    "summarise",
    "vote",
    "vote_score",
]
