"""The plain data the crowd's statistics take and give: one annotator's version of an image, and what
matching, agreement, the merge, the reliability estimate and gold scoring make of it.

Every figure a person reads is a float or None (None where there was nothing to compare); every
annotator is named by the string the caller gave, every box by its key within its version.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field


class ConsensusError(ValueError):
    """A version, a weight or a setting that the statistics cannot take; the message names what is
    wrong in words a person can act on."""


@dataclass(frozen=True)
class Box:
    """One annotator's object: `key` is stable within its version; pixels, top-left origin, w and h
    > 0. `attributes_known` False: the annotator could not tell its attributes (VTT.md section 9), so
    they abstain from every attribute vote on it."""

    key: str
    label: str
    x: float
    y: float
    w: float
    h: float
    attributes: frozenset[str] = frozenset()
    attributes_known: bool = True

    def __post_init__(self) -> None:
        numbers = (self.x, self.y, self.w, self.h)
        if not all(math.isfinite(value) for value in numbers):
            raise ConsensusError(f"Box {self.key!r} has a coordinate that is not a finite number.")
        if self.w <= 0 or self.h <= 0:
            raise ConsensusError(f"Box {self.key!r} must have a positive width and height.")
        if not self.key or not self.label:
            raise ConsensusError("A box needs a key and a label.")


@dataclass(frozen=True)
class Relation:
    """`subject` `predicate` `object`: keys of boxes of the same version."""

    subject: str
    predicate: str
    object: str


@dataclass(frozen=True)
class Version:
    """One annotator's annotation of one image."""

    annotator: str
    boxes: tuple[Box, ...] = ()
    relations: tuple[Relation, ...] = ()

    def __post_init__(self) -> None:
        keys = [box.key for box in self.boxes]
        if len(set(keys)) != len(keys):
            raise ConsensusError(f"{self.annotator}'s version names two boxes by the same key.")
        known = set(keys)
        for relation in self.relations:
            if relation.subject not in known or relation.object not in known:
                raise ConsensusError(
                    f"{self.annotator}'s version relates a box it does not have ({relation.predicate})."
                )

    def box(self, key: str) -> Box:
        return next(box for box in self.boxes if box.key == key)


@dataclass(frozen=True)
class Cluster:
    """The boxes of one object, at most one per annotator: annotator -> their box key."""

    label: str
    members: Mapping[str, str]


@dataclass(frozen=True)
class Agreement:
    """An image's agreement between annotators: box F1 (mean over pairs of annotators), the share of
    agreeing pairs of answers on the attributes of matched boxes and on the relationships of matched
    pairs. None where there was nothing to compare (one annotator, or no matched box)."""

    box_f1: float | None
    attribute_agreement: float | None
    relationship_agreement: float | None
    n_annotators: int

    @property
    def lowest(self) -> float | None:
        """The lowest of the figures there are: the one a review threshold is held against."""
        figures = [
            f for f in (self.box_f1, self.attribute_agreement, self.relationship_agreement) if f is not None
        ]
        return min(figures) if figures else None


@dataclass(frozen=True)
class AgreementSummary:
    """A collection's agreement: each figure's mean over the images that have it."""

    images: int
    box_f1: float | None
    attribute_agreement: float | None
    relationship_agreement: float | None


@dataclass(frozen=True)
class MergedBox(Box):
    """A box of the merge (a Box: the median of its cluster's boxes, the attributes the vote kept), with
    the annotators who found it (`support`) and annotator -> their box key (`sources`)."""

    support: tuple[str, ...] = ()
    sources: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Disagreement:
    """Where annotators split, for the review page. `kind` is "box" (found by some only), "attribute"
    or "relation". `box` is the merged box's key (None when the box was dropped), `other` the related
    box's key for a relation; `name` the label, attribute or predicate; `yes` and `no` who said what;
    `decided` what the merge kept; `sources` annotator -> their box key for the object in question
    (the relation's subject), `other_sources` the same for a relation's object."""

    kind: str
    box: str | None
    name: str
    yes: tuple[str, ...]
    no: tuple[str, ...]
    decided: bool
    sources: Mapping[str, str] = field(default_factory=dict)
    other: str | None = None
    other_sources: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Merge:
    boxes: tuple[MergedBox, ...]
    relations: tuple[Relation, ...]  # keys of the merged boxes
    agreement: Agreement
    disagreements: tuple[Disagreement, ...]


@dataclass(frozen=True)
class Reliability:
    """An annotator's estimated P(yes | truly yes) and P(no | truly no), from `n_items` binary decisions;
    not `enough` below the minimum, and then not weighed. `kinds` holds the same per kind of decision
    ("box", "attribute", "relation"): drawing boxes and ticking attributes are different skills, and the
    vote on an attribute weighs the annotator by their attribute figures. The top-level figures are the
    kinds' weighted by their numbers of decisions, for a person to read."""

    sensitivity: float
    specificity: float
    n_items: int
    enough: bool
    kinds: Mapping[str, Reliability] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not (0 <= self.sensitivity <= 1 and 0 <= self.specificity <= 1):
            raise ConsensusError("A sensitivity and a specificity are probabilities, between 0 and 1.")
        if self.n_items < 0:
            raise ConsensusError("A number of decisions cannot be negative.")

    @property
    def informative(self) -> bool:
        """Better than chance: a yes from them makes yes more likely (sensitivity + specificity > 1)."""
        return self.sensitivity + self.specificity > 1


@dataclass(frozen=True)
class CrowdEstimate:
    """What Dawid-Skene learns from a crowd's work: each annotator's reliability, and the prior P(yes)
    of each kind of decision, keyed (kind, label, name): ("attribute", "person", "walking"),
    ("relation", "person", "closer than") (the subject's label), ("box", "vehicle", "vehicle")."""

    reliabilities: Mapping[str, Reliability]
    priors: Mapping[tuple[str, str, str], float]


@dataclass(frozen=True)
class GoldScore:
    """One version against gold: boxes (true positives, false positives, misses) and the attributes of
    the matched boxes (correct decisions out of total)."""

    true_positives: int
    false_positives: int
    misses: int
    attributes_correct: int
    attributes_total: int

    @property
    def precision(self) -> float | None:
        found = self.true_positives + self.false_positives
        return self.true_positives / found if found else None

    @property
    def recall(self) -> float | None:
        there = self.true_positives + self.misses
        return self.true_positives / there if there else None

    @property
    def f1(self) -> float | None:
        both = 2 * self.true_positives + self.false_positives + self.misses
        return 2 * self.true_positives / both if both else None

    @property
    def attribute_accuracy(self) -> float | None:
        return self.attributes_correct / self.attributes_total if self.attributes_total else None
