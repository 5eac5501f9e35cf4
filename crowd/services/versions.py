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
from crowd.models import CrowdSettings
from crowd.models import Reliability as ReliabilityRow
from kernel.vocabulary import Vocabulary


@dataclass(frozen=True)
class Rules:
    """What the statistics need to know of a collection's vocabulary and settings."""

    iou_threshold: float
    attribute_universe: Mapping[str, frozenset[str]]
    exclusive: Mapping[str, list[frozenset[str]]]
    symmetric: frozenset[str]
    vocabulary: Vocabulary

    def keywords(self) -> dict[str, Any]:
        return {
            "iou_threshold": self.iou_threshold,
            "attribute_universe": self.attribute_universe,
            "symmetric": self.symmetric,
        }


def rules_of(collection: Collection, settings: CrowdSettings) -> Rules:
    vocabulary = vocabulary_index(collection.vocabulary).core
    return Rules(
        iou_threshold=settings.iou_threshold,
        attribute_universe={t.name: frozenset(t.attributes) for t in vocabulary.types},
        exclusive={t.name: [frozenset(g.values) for g in t.groups if g.exclusive] for t in vocabulary.types},
        symmetric=frozenset(r.name for r in vocabulary.relationships if r.symmetric),
        vocabulary=vocabulary,
    )


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
