"""What `benchmarks.crowd_quality` measures of an annotation against the truth of a synthetic scene:
boxes (precision, recall, F1, mean IoU of the matched ones), attributes (the share of attribute groups
answered right on matched objects whose attributes both know) and relationships on matched pairs
(precision, recall, F1; a symmetric predicate in either direction)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from crowd.consensus import Box, MergedBox, Relation, Version, iou, match_to_reference
from kernel.vocabulary import Vocabulary


@dataclass
class Tally:
    found: int = 0  # boxes drawn
    there: int = 0  # boxes in the truth
    matched: int = 0
    overlap: float = 0.0  # summed IoU of the matched
    groups_right: int = 0
    groups: int = 0
    relations_right: int = 0
    relations_said: int = 0
    relations_there: int = 0
    images: list[int] = field(default_factory=list)

    def figures(self) -> dict[str, float | None]:
        return {
            "precision": _ratio(self.matched, self.found),
            "recall": _ratio(self.matched, self.there),
            "f1": _ratio(2 * self.matched, self.found + self.there),
            "mean_iou": _ratio(self.overlap, self.matched),
            "attributes": _ratio(self.groups_right, self.groups),
            "relations_precision": _ratio(self.relations_right, self.relations_said),
            "relations_recall": _ratio(self.relations_right, self.relations_there),
            "relations_f1": _ratio(2 * self.relations_right, self.relations_said + self.relations_there),
        }


def _ratio(a: float, b: float) -> float | None:
    return a / b if b else None


def tally(
    truths: Sequence[Version],
    annotations: Sequence[tuple[Sequence[Box | MergedBox], Sequence[Relation]]],
    vocabulary: Vocabulary,
    symmetric: frozenset[str],
) -> Tally:
    total = Tally()
    for truth, (boxes, relations) in zip(truths, annotations, strict=True):
        _add(total, truth, Version("work", tuple(boxes), tuple(relations)), vocabulary, symmetric)
    return total


def _add(
    total: Tally, truth: Version, work: Version, vocabulary: Vocabulary, symmetric: frozenset[str]
) -> None:
    matches = match_to_reference(truth, work)
    total.found += len(work.boxes)
    total.there += len(truth.boxes)
    total.matched += len(matches)
    to_truth = {mine: theirs for theirs, mine in matches}
    for theirs, mine in matches:
        true, said = truth.box(theirs), work.box(mine)
        total.overlap += iou(true, said)
        if true.attributes_known and said.attributes_known:
            for group in vocabulary.object_type(true.label).groups:
                total.groups += 1
                total.groups_right += (true.attributes & set(group.values)) == (
                    said.attributes & set(group.values)
                )
    matched_truth = set(to_truth.values())

    def key(s: str, p: str, o: str) -> tuple[str, str, str]:
        return (min(s, o), p, max(s, o)) if p in symmetric else (s, p, o)

    stated: set[tuple[str, str, str]] = {
        key(r.subject, r.predicate, r.object)
        for r in truth.relations
        if {r.subject, r.object} <= matched_truth
    }
    claimed: set[tuple[str, str, str]] = {
        key(to_truth[r.subject], r.predicate, to_truth[r.object])
        for r in work.relations
        if r.subject in to_truth and r.object in to_truth
    }
    total.relations_there += len(stated)
    total.relations_said += len(claimed)
    total.relations_right += len(stated & claimed)
