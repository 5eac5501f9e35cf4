"""The four question kinds (docs/method.md section 4): structured form, JSON form and English rendering.

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
from typing import Any

from engine.core.errors import CoreErrorCode, QuestionError, at
from engine.core.vocabulary import ObjectType, Region, Vocabulary

# The kinds are defined once, in the scoring core; the engine's modules read them here.
from scoring.kinds import ATTRIBUTE_KINDS as ATTRIBUTE_KINDS
from scoring.kinds import INSTANTIATION_KINDS as INSTANTIATION_KINDS
from scoring.kinds import Kind as Kind


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
    """exist(t, A, w) or unique(t, A, w); objects already instantiated are excluded."""

    kind: Kind
    type: str
    attributes: tuple[str, ...]
    region: str

    @property
    def complexity(self) -> int:
        return len(self.attributes)


@dataclass(frozen=True)
class AttributeQuestion:
    """attr(k, a), attr_and(k, a, b), attr_or(k, a, b)."""

    kind: Kind
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

    kind = Kind.REL

    @property
    def complexity(self) -> int:
        return 0


Question = InstantiationQuestion | AttributeQuestion | RelationshipQuestion


def in_vocabulary_order(object_type: ObjectType, attributes: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(set(attributes), key=object_type.bit_of.__getitem__))


def make_instantiation(
    kind: Kind, type_name: str, attributes: Iterable[str], region: str, vocabulary: Vocabulary
) -> InstantiationQuestion:
    return InstantiationQuestion(
        kind, type_name, in_vocabulary_order(vocabulary.object_type(type_name), attributes), region
    )


def make_attribute(
    kind: Kind, label: Label, attributes: Iterable[str], vocabulary: Vocabulary
) -> AttributeQuestion:
    return AttributeQuestion(kind, label, in_vocabulary_order(vocabulary.object_type(label.type), attributes))


def make_relationship(
    subject: Label, relationship: str, obj: Label, vocabulary: Vocabulary
) -> RelationshipQuestion:
    if vocabulary.relationship(relationship).symmetric and obj < subject:
        subject, obj = obj, subject
    return RelationshipQuestion(subject, relationship, obj)


# --- JSON form ------------------------------------------------------------------------------------------


def question_to_json(
    question: Question, vocabulary: Vocabulary, width: float, height: float
) -> dict[str, Any]:
    """The structured form of docs/method.md section 9; regions as pixel boxes of this image, unrounded."""
    if isinstance(question, InstantiationQuestion):
        region = vocabulary.region(question.region)
        return {
            "kind": str(question.kind),
            "type": question.type,
            "attributes": list(question.attributes),
            "region": {"id": region.id, "box": region.pixel_box(width, height)},
        }
    if isinstance(question, AttributeQuestion):
        return {
            "kind": str(question.kind),
            "label": str(question.label),
            "attributes": list(question.attributes),
        }
    return {
        "kind": str(Kind.REL),
        "subject": str(question.subject),
        "relationship": question.relationship,
        "object": str(question.object),
    }


def question_from_json(
    document: Any, vocabulary: Vocabulary, width: float, height: float, where: str = "question"
) -> Question:
    """Parse and validate a structured question. Whether its labels exist depends on a history."""
    if not isinstance(document, dict):
        raise QuestionError("a question is a JSON object", where=where)
    try:
        kind = Kind(str(document.get("kind")))
    except ValueError:
        raise QuestionError(
            f"kind must be one of {', '.join(Kind)}", where=at(where, "kind"), code=CoreErrorCode.UNKNOWN_KIND
        ) from None
    if kind in INSTANTIATION_KINDS:
        return _instantiation_from_json(kind, document, vocabulary, width, height, where)
    if kind in ATTRIBUTE_KINDS:
        return _attribute_from_json(kind, document, vocabulary, where)
    return _relationship_from_json(document, vocabulary, where)


def _instantiation_from_json(
    kind: Kind, document: dict[str, Any], vocabulary: Vocabulary, width: float, height: float, where: str
) -> InstantiationQuestion:
    type_name = document.get("type")
    if type_name not in vocabulary.type_index:
        raise QuestionError(
            f"unknown object type {type_name!r}",
            where=at(where, "type"),
            code=CoreErrorCode.UNKNOWN_OBJECT_TYPE,
        )
    attributes = _attributes(
        document.get("attributes", []), vocabulary.object_type(type_name), at(where, "attributes")
    )
    region = resolve_region(document.get("region"), vocabulary, width, height, at(where, "region"))
    return make_instantiation(kind, type_name, attributes, region.id, vocabulary)


def _attribute_from_json(
    kind: Kind, document: dict[str, Any], vocabulary: Vocabulary, where: str
) -> AttributeQuestion:
    label = Label.parse(document.get("label"), vocabulary, at(where, "label"))
    attributes = _attributes(
        document.get("attributes"), vocabulary.object_type(label.type), at(where, "attributes")
    )
    expected = 1 if kind == Kind.ATTR else 2
    if len(attributes) != expected:
        raise QuestionError(f"{kind} names exactly {expected} attribute(s)", where=at(where, "attributes"))
    return make_attribute(kind, label, attributes, vocabulary)


def _relationship_from_json(
    document: dict[str, Any], vocabulary: Vocabulary, where: str
) -> RelationshipQuestion:
    subject = Label.parse(document.get("subject"), vocabulary, at(where, "subject"))
    obj = Label.parse(document.get("object"), vocabulary, at(where, "object"))
    name = document.get("relationship")
    if name not in vocabulary.relationship_index:
        raise QuestionError(
            f"unknown relationship {name!r}",
            where=at(where, "relationship"),
            code=CoreErrorCode.UNKNOWN_RELATIONSHIP,
        )
    if subject == obj:
        raise QuestionError(
            "a relationship question names two different objects",
            where=where,
            code=CoreErrorCode.SELF_RELATIONSHIP,
        )
    if not vocabulary.relationship(name).allows(subject.type, obj.type):
        raise QuestionError(
            f"{name!r} does not relate a {subject.type} to a {obj.type}",
            where=where,
            code=CoreErrorCode.RELATIONSHIP_NOT_ALLOWED,
        )
    return make_relationship(subject, name, obj, vocabulary)


def _attributes(raw: Any, object_type: ObjectType, where: str) -> tuple[str, ...]:
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


# --- English ----------------------------------------------------------------------------------------------


def render_text(question: Question, vocabulary: Vocabulary) -> str:
    if isinstance(question, InstantiationQuestion):
        object_type = vocabulary.object_type(question.type)
        phrases = [object_type.groups[object_type.group_of[a]].phrase_for(a) for a in question.attributes]
        qualifier = f" that {' and '.join(phrases)}" if phrases else ""
        unique = "unique " if question.kind == Kind.UNIQUE else ""
        return f"Is there a {unique}{question.type}{qualifier} in the designated region?"
    if isinstance(question, AttributeQuestion):
        return _attribute_text(question, vocabulary)
    relationship = vocabulary.relationship(question.relationship)
    if relationship.symmetric:
        return f"Are {question.subject} and {question.object} {relationship.phrase}?"
    return f"Is {question.subject} {relationship.phrase} {question.object}?"


def _attribute_text(question: AttributeQuestion, vocabulary: Vocabulary) -> str:
    object_type = vocabulary.object_type(question.label.type)
    phrases = [object_type.groups[object_type.group_of[a]].phrase_for(a) for a in question.attributes]
    first = _as_question(phrases[0], str(question.label))
    if len(phrases) == 1:
        return f"{first}?"
    joiner = "and" if question.kind == Kind.ATTR_AND else "or"
    verb, _, rest = phrases[1].partition(" ")
    if verb == "is" and phrases[0].startswith("is "):
        return f"{first} {joiner} {rest}?"  # "Is vehicle 1 parked and a car?"
    return f"{first} {joiner} {_as_question(phrases[1], 'it').lower()}?"


def _as_question(phrase: str, subject: str) -> str:
    """ "is walking" -> "Is person 1 walking"; "has no visible tires" -> "Does vehicle 1 have no visible tires"."""
    verb, _, rest = phrase.partition(" ")
    if verb == "has":
        return f"Does {subject} have {rest}"
    return f"Is {subject} {rest}"
