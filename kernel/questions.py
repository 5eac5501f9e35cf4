"""Questions (docs/method.md section 4): labels, answers, the structured form of each family of kinds
and what parsing, rendering and the oracle share between kinds.

What a kind *means* (its parsing, its English, the oracle's answer, what an object satisfies) is in its
own module of `kernel.kinds`, one module per kind; this module holds only what the kinds share.
Questions are small frozen dataclasses, so they hash and compare by content: the proposer uses that to
never propose a rejected question again. Attribute lists are kept in vocabulary order and symmetric
relationship questions with their two labels in instantiation order, so the same question always has
the same form.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar

from kernel.errors import CoreErrorCode, QuestionError, at
from kernel.regions import Region
from kernel.vocabulary import ObjectType, Vocabulary


class Answer(StrEnum):
    YES = "yes"
    NO = "no"
    AMBIGUOUS = "ambiguous"


@dataclass(frozen=True, order=True)
class Label:
    """ "person 2": the second person instantiated in this stream."""

    type: str
    number: int

    def __str__(self) -> str:
        return f"{self.type} {self.number}"

    @classmethod
    def parse(cls, text: Any, vocabulary: Vocabulary, where: str) -> Label:
        if isinstance(text, str):
            type_name, _, number = text.rpartition(" ")
            if type_name in vocabulary.type_index and number.isdigit() and int(number) >= 1:
                return cls(type_name, int(number))
        raise QuestionError(
            f"{text!r} is not a label like 'person 1'", where=where, code=CoreErrorCode.BAD_LABEL
        )


@dataclass(frozen=True)
class InstantiationQuestion:
    """exist(t, A, w), unique(t, A, w), or another kind of the instantiation family; objects already
    instantiated are excluded."""

    kind: str
    type: str
    attributes: tuple[str, ...]
    region: str

    @property
    def complexity(self) -> int:
        return len(self.attributes)


@dataclass(frozen=True)
class AttributeQuestion:
    """attr(k, a), attr_and(k, a, b), attr_or(k, a, b), or another kind of the attribute family."""

    kind: str
    label: Label
    attributes: tuple[str, ...]

    @property
    def complexity(self) -> int:
        return len(self.attributes)


@dataclass(frozen=True)
class RelationshipQuestion:
    """rel(k, r, j): is k in relationship r with j."""

    subject: Label
    relationship: str
    object: Label

    # The family's one kind; its module (kernel.kinds.rel) sets it when it is registered.
    kind: ClassVar[str]

    @property
    def complexity(self) -> int:
        return 0


Question = InstantiationQuestion | AttributeQuestion | RelationshipQuestion


def in_vocabulary_order(object_type: ObjectType, attributes: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(set(attributes), key=object_type.bit_of.__getitem__))


def make_instantiation(
    kind: str, type_name: str, attributes: Iterable[str], region: str, vocabulary: Vocabulary
) -> InstantiationQuestion:
    return InstantiationQuestion(
        kind, type_name, in_vocabulary_order(vocabulary.object_type(type_name), attributes), region
    )


def make_attribute(
    kind: str, label: Label, attributes: Iterable[str], vocabulary: Vocabulary
) -> AttributeQuestion:
    return AttributeQuestion(kind, label, in_vocabulary_order(vocabulary.object_type(label.type), attributes))


def make_relationship(
    subject: Label, relationship: str, obj: Label, vocabulary: Vocabulary
) -> RelationshipQuestion:
    if vocabulary.relationship(relationship).symmetric and obj < subject:
        subject, obj = obj, subject
    return RelationshipQuestion(subject, relationship, obj)


# --- What parsing shares between kinds -------------------------------------------------------------------


def parse_attributes(raw: Any, object_type: ObjectType, where: str) -> tuple[str, ...]:
    if not isinstance(raw, list) or not all(isinstance(a, str) for a in raw):
        raise QuestionError("attributes must be a list of attribute values", where=where)
    for value in raw:
        if value not in object_type.bit_of:
            raise QuestionError(
                f"{value!r} is not an attribute of {object_type.name}",
                where=where,
                code=CoreErrorCode.UNKNOWN_ATTRIBUTE,
            )
    if len(set(raw)) != len(raw):
        raise QuestionError(
            "an attribute is named twice", where=where, code=CoreErrorCode.DUPLICATE_ATTRIBUTE
        )
    return tuple(raw)


def resolve_region(raw: Any, vocabulary: Vocabulary, width: float, height: float, where: str) -> Region:
    """A region given by id and/or pixel box `[x, y, w, h]`; the box must match a region of the set."""
    if isinstance(raw, str):
        raw = {"id": raw}
    if not isinstance(raw, dict) or ("id" not in raw and "box" not in raw):
        raise QuestionError("region must be {id, box}", where=where)
    by_box = _region_by_box(raw["box"], vocabulary, width, height, at(where, "box")) if "box" in raw else None
    if "id" in raw:
        if raw["id"] not in vocabulary.region_index:
            raise QuestionError(
                f"unknown region id {raw['id']!r}", where=at(where, "id"), code=CoreErrorCode.UNKNOWN_REGION
            )
        by_id = vocabulary.region(raw["id"])
        if by_box is not None and by_box != by_id:
            raise QuestionError(
                f"box does not match region {by_id.id!r}",
                where=at(where, "box"),
                code=CoreErrorCode.REGION_BOX_MISMATCH,
            )
        return by_id
    assert by_box is not None
    return by_box


def _region_by_box(box: Any, vocabulary: Vocabulary, width: float, height: float, where: str) -> Region:
    if not (isinstance(box, list) and len(box) == 4 and all(_finite(v) for v in box)):
        raise QuestionError("box must be [x, y, width, height] in pixels", where=where)
    # Half a pixel of tolerance: a client may round the boxes it was given.
    for region in vocabulary.regions:
        if all(abs(a - b) <= 0.5 for a, b in zip(region.pixel_box(width, height), box, strict=True)):
            return region
    raise QuestionError(
        f"no region of the region set has the box {box} in a {width:g}x{height:g} image",
        where=where,
        code=CoreErrorCode.UNKNOWN_REGION,
    )


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


# --- What the English shares between kinds ------------------------------------------------------------


def attribute_phrases(object_type: ObjectType, attributes: Iterable[str]) -> list[str]:
    """ "walking" -> "is walking", as the vocabulary phrases each attribute of its group."""
    return [object_type.groups[object_type.group_of[a]].phrase_for(a) for a in attributes]


def as_question(phrase: str, subject: str) -> str:
    """ "is walking" -> "Is person 1 walking"; "has no visible tires" -> "Does vehicle 1 have no visible tires"."""
    verb, _, rest = phrase.partition(" ")
    if verb == "has":
        return f"Does {subject} have {rest}"
    return f"Is {subject} {rest}"
