"""The one adapter between the crowd's rows and its statistics (crowd.consensus): scene-graph documents
become `Version`s, a vocabulary the attribute universe, exclusive groups and symmetric predicates the
statistics need, and a `Merge` becomes a document an annotation save would accept."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from annotations.models import Collection
from annotations.selectors.vocabularies import vocabulary_index
from crowd.consensus import Box, Merge, Relation, Reliability, Version
from crowd.consensus.vocabulary import VocabularyRules
from crowd.consensus.vocabulary import rules_of as vocabulary_rules
from crowd.models import CrowdPriors, CrowdSettings
from crowd.models import Reliability as ReliabilityRow
from kernel.vocabulary import Vocabulary


@dataclass(frozen=True)
class Rules:
    """What the statistics need to know of a collection: its vocabulary's rules (crowd.consensus.rules_of)
    and its IoU threshold."""

    iou_threshold: float
    vocabulary: Vocabulary
    of_vocabulary: VocabularyRules

    def keywords(self) -> dict[str, Any]:
        return {
            "iou_threshold": self.iou_threshold,
            "attribute_universe": self.of_vocabulary.attribute_universe,
            "symmetric": self.of_vocabulary.symmetric,
        }

    @property
    def attribute_universe(self) -> Mapping[str, frozenset[str]]:
        return self.of_vocabulary.attribute_universe

    @property
    def exclusive(self) -> Mapping[str, tuple[frozenset[str], ...]]:
        return self.of_vocabulary.exclusive


def rules_of(collection: Collection, settings: CrowdSettings) -> Rules:
    vocabulary = vocabulary_index(collection.vocabulary).core
    return Rules(settings.iou_threshold, vocabulary, vocabulary_rules(vocabulary))


def version_of(annotator: str, document: Mapping[str, Any]) -> Version:
    """A stored document (ids "o1".."oN") as one annotator's version."""
    boxes = tuple(
        Box(
            key=o["id"],
            label=o["type"],
            x=o["bbox"][0],
            y=o["bbox"][1],
            w=o["bbox"][2],
            h=o["bbox"][3],
            attributes=frozenset(o.get("attributes", ())),
            attributes_known=o.get("attributes_known", True),
        )
        for o in document.get("objects", ())
    )
    relations = tuple(
        Relation(r["subject"], r["predicate"], r["object"]) for r in document.get("relationships", ())
    )
    return Version(annotator=annotator, boxes=boxes, relations=relations)


def merge_document(merge: Merge, rules: Rules) -> dict[str, Any]:
    """The merge as a scene graph (ids "o1".."oN" in the merge's order), attributes in vocabulary order."""
    ids = {box.key: f"o{n + 1}" for n, box in enumerate(merge.boxes)}
    objects = []
    for box in merge.boxes:
        order = rules.vocabulary.object_type(box.label).attributes
        objects.append(
            {
                "id": ids[box.key],
                "type": box.label,
                "bbox": [round(v, 2) for v in (box.x, box.y, box.w, box.h)],
                "attributes": [a for a in order if a in box.attributes] if box.attributes_known else [],
                "attributes_known": box.attributes_known,
            }
        )
    relations = [
        {"subject": ids[r.subject], "predicate": r.predicate, "object": ids[r.object]}
        for r in merge.relations
    ]
    return {"objects": objects, "relationships": relations}


def merged_keys(merge: Merge) -> dict[str, str]:
    """The merge's box key -> the id it has in `merge_document` (the page marks disagreements by it)."""
    return {box.key: f"o{n + 1}" for n, box in enumerate(merge.boxes)}


def stored_priors(collection: Collection) -> dict[tuple[str, str, str], float]:
    """(kind, label, name) -> the prior P(yes) Dawid and Skene estimated with the reliabilities."""
    found = CrowdPriors.objects.filter(collection=collection).values_list("priors", flat=True).first() or []
    return {(kind, label, name): p for kind, label, name, p in found}


def stored_weights(collection: Collection) -> dict[str, Reliability]:
    """annotator id (as a string) -> their last estimated reliability, where there was enough to estimate
    it (crowd.services.reliability); an annotator without enough is voted by majority."""
    rows: Iterable[ReliabilityRow] = ReliabilityRow.objects.filter(collection=collection, enough=True)
    return {str(row.annotator_id): reliability_of(row) for row in rows}


def reliability_of(row: ReliabilityRow) -> Reliability:
    kinds = {
        kind: Reliability(k["sensitivity"], k["specificity"], k["n_items"], k["enough"])
        for kind, k in (row.kinds or {}).items()
    }
    return Reliability(row.sensitivity, row.specificity, row.n_items, row.enough, kinds)
