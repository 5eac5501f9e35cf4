"""What the kinds of one family share.

Every kind belongs to one of three families, which fixes the shape of its structured form (the
dataclass of `kernel.questions`) and the estimate the engine gives it (the family's levels in
`engine.core`: the pooled instantiation population, the nested attribute populations, the nested pair
populations). Within a family a kind differs only by what its module says:

- an **instantiation** kind (`exist`, `unique`): `holds(count)`, whether an image where `count`
  objects of the type with the attributes lie in the region answers yes; and what a yes does to the
  story (`labels`: it labels the one object it singles out; `focuses`: the next instantiation questions
  stay inside its region), whether a candidate needs `min_evidence`, and the article of its English;
- an **attribute** kind (`attr`, `attr_and`, `attr_or`): its `arity` and `holds(has)`, whether an
  object with these truths of the named attributes answers yes, and the word that joins them in English;
- a **relationship** kind (`rel`).

`holds` is written with comparisons and `&`, `|`, `~` only, so that the same function answers on plain
Python values (the oracle, the scoring core, the seeing baseline) and on numpy arrays (the engine's
counts over a million training images): one definition, nothing to keep in step. From it the family
derives the oracle's answer on a scene with objects whose attributes are unknown (`answer_from_counts`,
`AttributeKind.answer`), the selection of bit masks the engine counts (`satisfied_by`), which candidates
can never be true (`never_true`), and what a label's defining question already says (`from_definition`).

This module is plain Python (no numpy): the scoring core reads the kinds too.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from itertools import product
from typing import TYPE_CHECKING, Any

from kernel.errors import CoreErrorCode, QuestionError, at
from kernel.kinds.base import (
    EXCLUDING,
    Family,
    QuestionKind,
    and_list,
    canonical,
    label_type,
    parse_excluding,
)
from kernel.questions import (
    Answer,
    AttributeQuestion,
    InstantiationQuestion,
    Label,
    RelationshipQuestion,
    as_question,
    attribute_phrases,
    make_attribute,
    make_instantiation,
    make_relationship,
    parse_attributes,
    resolve_region,
)
from kernel.vocabulary import ObjectType, Vocabulary

if TYPE_CHECKING:
    from kernel.prepared import Binding, PreparedScene


# --- Instantiation -------------------------------------------------------------------------------------


class InstantiationKind(QuestionKind):
    """exist(t, A, w), unique(t, A, w): about the objects of type t with the attributes A visible in
    region w that no label names yet."""

    family = Family.INSTANTIATION
    article = "a"  # "Is there a person ...", "Is there a unique person ..."
    labels = False  # a yes labels the one object it singles out ("person 2")
    focuses = False  # a yes keeps the next instantiation questions inside its region
    # A candidate is unpredictable only when its consistency-weighted level weighs `min_evidence`
    # (decision 0056).
    needs_evidence = False

    def holds(self, count: Any) -> Any:
        """Whether an image where `count` objects match answers yes (an int or an integer array)."""
        raise NotImplementedError

    def answer_from_counts(self, matches: int, unknown: int) -> Answer:
        """The answer on an image with `matches` objects that match for certain and `unknown` that
        might (their attributes are unknown): yes or no when every possible count agrees, else
        ambiguous."""
        truths = {bool(self.holds(matches + k)) for k in range(unknown + 1)}
        if truths == {True}:
            return Answer.YES
        return Answer.NO if truths == {False} else Answer.AMBIGUOUS

    def satisfied_by(self, masks: Any, bits: Sequence[int]) -> Any:
        """Which objects (attribute bit masks) have every attribute at `bits`: what a defining question
        of this family says about the object it labels."""
        return _all_of([(masks & (1 << bit)) != 0 for bit in bits], masks)

    def make(
        self, type_name: str, attributes: Sequence[str], region: str, vocabulary: Vocabulary
    ) -> InstantiationQuestion:
        return make_instantiation(self.name, type_name, attributes, region, vocabulary)

    def parse(
        self, document: Mapping[str, Any], vocabulary: Vocabulary, width: float, height: float, where: str
    ) -> InstantiationQuestion:
        type_name = document.get("type")
        if type_name not in vocabulary.type_index:
            raise QuestionError(
                f"unknown object type {type_name!r}",
                where=at(where, "type"),
                code=CoreErrorCode.UNKNOWN_OBJECT_TYPE,
            )
        attributes = parse_attributes(
            document.get("attributes", []), vocabulary.object_type(type_name), at(where, "attributes")
        )
        region = resolve_region(document.get("region"), vocabulary, width, height, at(where, "region"))
        if EXCLUDING in document:
            # Its shape is checked here; whether it names the labels the history made, where the
            # history is known (engine.core.story.parse_history).
            parse_excluding(document[EXCLUDING], type_name, vocabulary, at(where, EXCLUDING))
        return self.make(type_name, attributes, region.id, vocabulary)

    def excluded(self, question: InstantiationQuestion, made: Sequence[Label]) -> list[str]:
        """The labels of the question's type made before it: the objects it is not about."""
        return [str(label) for label in made if label.type == question.type]

    def to_json(
        self,
        question: InstantiationQuestion,
        vocabulary: Vocabulary,
        width: float,
        height: float,
        made: Sequence[Label] = (),
    ) -> dict[str, Any]:
        region = vocabulary.region(question.region)
        return {
            "kind": self.name,
            "type": question.type,
            "attributes": list(question.attributes),
            "region": {"id": region.id, "box": region.pixel_box(width, height)},
            EXCLUDING: self.excluded(question, made),
        }

    def text(
        self, question: InstantiationQuestion, vocabulary: Vocabulary, made: Sequence[Label] = ()
    ) -> str:
        phrases = attribute_phrases(vocabulary.object_type(question.type), question.attributes)
        qualifier = f" that {' and '.join(phrases)}" if phrases else ""
        return f"{self.text_opening(question.type, self.excluded(question, made))}{qualifier} in the designated region?"

    def text_opening(self, type_name: str, excluding: Sequence[str]) -> str:
        """ "Is there a unique vehicle other than vehicle 1 and vehicle 2": the English up to the
        attributes. A stored question's text written before questions named what they leave out is
        this opening without the exclusion (truthing's migration 0007 inserts it)."""
        other = f" other than {and_list(excluding)}" if excluding else ""
        return f"Is there {self.article} {type_name}{other}"

    def answer(
        self, prepared: PreparedScene, binding: Binding, question: InstantiationQuestion
    ) -> tuple[Answer, int | None]:
        vocabulary = prepared.vocabulary
        wanted = vocabulary.object_type(question.type).mask_of(question.attributes)
        region_bit = 1 << vocabulary.region_index[question.region]
        bound = set(binding.objects.values())
        matches: list[int] = []
        unknown = 0
        for index, obj in enumerate(prepared.scene.objects):
            if obj.type != question.type or index in bound or not prepared.visibility[index] & region_bit:
                continue
            if not wanted:
                matches.append(index)
            elif not obj.attributes_known:
                unknown += 1
            elif prepared.attribute_masks[index] & wanted == wanted:
                matches.append(index)
        answer = self.answer_from_counts(len(matches), unknown)
        return answer, matches[0] if self.labels and answer == Answer.YES else None

    def reuse_key(
        self, image: int, defined: Mapping[str, Hashable], question: Mapping[str, Any]
    ) -> Hashable | None:
        # "Not previously instantiated": the truth depends on which objects of the type are labelled.
        excluded = tuple(
            sorted(str(d) for label, d in defined.items() if label_type(label) == question.get("type"))
        )
        return ("instantiation", image, canonical(question), excluded)


# --- Attributes ----------------------------------------------------------------------------------------


class AttributeKind(QuestionKind):
    """attr(k, a), attr_and(k, a, b), attr_or(k, a, b): about the attributes of the object labelled k."""

    family = Family.ATTRIBUTE
    degradation = "attributes"
    arity = 1  # how many attributes it names
    joiner = ""  # the word between two attributes in English: "and", "or"

    def holds(self, has: Sequence[Any]) -> Any:
        """Whether an object answers yes, given whether it has each named attribute (booleans, or
        boolean arrays over many objects)."""
        raise NotImplementedError

    def satisfied_by(self, masks: Any, bits: Sequence[int]) -> Any:
        """Which objects (attribute bit masks: one int, or an array) answer yes, for the attributes at
        `bits`."""
        return self.holds([(masks & (1 << bit)) != 0 for bit in bits])

    def never_true(self, object_type: ObjectType, attributes: Sequence[str]) -> bool:
        """Whether no object can answer yes: no truth of the attributes, with at most one value of an
        exclusive group, makes `holds` true (two values of one exclusive group are never both true, so
        attr_and of them is never asked)."""
        return not any(bool(self.holds(list(has))) for has in _possible(object_type, attributes))

    def make(self, label: Label, attributes: Sequence[str], vocabulary: Vocabulary) -> AttributeQuestion:
        return make_attribute(self.name, label, attributes, vocabulary)

    def parse(
        self, document: Mapping[str, Any], vocabulary: Vocabulary, width: float, height: float, where: str
    ) -> AttributeQuestion:
        label = Label.parse(document.get("label"), vocabulary, at(where, "label"))
        attributes = parse_attributes(
            document.get("attributes"), vocabulary.object_type(label.type), at(where, "attributes")
        )
        if len(attributes) != self.arity:
            raise QuestionError(
                f"{self.name} names exactly {self.arity} attribute(s)", where=at(where, "attributes")
            )
        return self.make(label, attributes, vocabulary)

    def to_json(
        self,
        question: AttributeQuestion,
        vocabulary: Vocabulary,
        width: float,
        height: float,
        made: Sequence[Label] = (),
    ) -> dict[str, Any]:
        return {"kind": self.name, "label": str(question.label), "attributes": list(question.attributes)}

    def text(self, question: AttributeQuestion, vocabulary: Vocabulary, made: Sequence[Label] = ()) -> str:
        phrases = attribute_phrases(vocabulary.object_type(question.label.type), question.attributes)
        first = as_question(phrases[0], str(question.label))
        if len(phrases) == 1:
            return f"{first}?"
        verb, _, rest = phrases[1].partition(" ")
        if verb == "is" and phrases[0].startswith("is "):
            return f"{first} {self.joiner} {rest}?"  # "Is vehicle 1 parked and a car?"
        return f"{first} {self.joiner} {as_question(phrases[1], 'it').lower()}?"

    def answer(
        self, prepared: PreparedScene, binding: Binding, question: AttributeQuestion
    ) -> tuple[Answer, int | None]:
        index = binding.object_of(question.label)
        if not prepared.scene.objects[index].attributes_known:
            return Answer.AMBIGUOUS, None
        object_type = prepared.vocabulary.object_type(question.label.type)
        mask = prepared.attribute_masks[index]
        has = [bool(mask >> object_type.bit_of[a] & 1) for a in question.attributes]
        return (Answer.YES if self.holds(has) else Answer.NO), None

    def labels_named(self, question: AttributeQuestion) -> tuple[Label, ...]:
        return (question.label,)

    def reuse_key(
        self, image: int, defined: Mapping[str, Hashable], question: Mapping[str, Any]
    ) -> Hashable | None:
        if question.get("label") not in defined:
            return None
        attributes = tuple(sorted(question.get("attributes", [])))
        return ("attribute", image, defined[question["label"]], self.name, attributes)

    def from_definition(self, known: set[str], question: Mapping[str, Any]) -> bool | None:
        # The defining question says the object has `known`; of the others it says nothing.
        asked = question.get("attributes", [])
        if not asked:
            return None
        truths = {
            bool(self.holds(list(has)))
            for has in product(*(((True,) if a in known else (False, True)) for a in asked))
        }
        return next(iter(truths)) if len(truths) == 1 else None


def _possible(object_type: ObjectType, attributes: Sequence[str]) -> list[tuple[bool, ...]]:
    """Every truth of the attributes an object can have: at most one value of an exclusive group."""
    possible = []
    for has in product((False, True), repeat=len(attributes)):
        groups = [object_type.group_of[a] for a, h in zip(attributes, has, strict=True) if h]
        if all(groups.count(g) <= 1 for g in groups if object_type.groups[g].exclusive):
            possible.append(has)
    return possible


def _all_of(truths: list[Any], masks: Any) -> Any:
    """Every one of `truths` (booleans or boolean arrays); true everywhere when there are none."""
    if not truths:
        return masks == masks
    result = truths[0]
    for truth in truths[1:]:
        result = result & truth
    return result


# --- Relationships -------------------------------------------------------------------------------------


class RelationshipKind(QuestionKind):
    """rel(k, r, j): whether the objects labelled k and j are in relationship r."""

    family = Family.RELATIONSHIP
    degradation = "relationships"

    def make(
        self, subject: Label, relationship: str, obj: Label, vocabulary: Vocabulary
    ) -> RelationshipQuestion:
        return make_relationship(subject, relationship, obj, vocabulary)

    def parse(
        self, document: Mapping[str, Any], vocabulary: Vocabulary, width: float, height: float, where: str
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
        return self.make(subject, name, obj, vocabulary)

    def to_json(
        self,
        question: RelationshipQuestion,
        vocabulary: Vocabulary,
        width: float,
        height: float,
        made: Sequence[Label] = (),
    ) -> dict[str, Any]:
        return {
            "kind": self.name,
            "subject": str(question.subject),
            "relationship": question.relationship,
            "object": str(question.object),
        }

    def text(self, question: RelationshipQuestion, vocabulary: Vocabulary, made: Sequence[Label] = ()) -> str:
        relationship = vocabulary.relationship(question.relationship)
        if relationship.symmetric:
            return f"Are {question.subject} and {question.object} {relationship.phrase}?"
        return f"Is {question.subject} {relationship.phrase} {question.object}?"

    def answer(
        self, prepared: PreparedScene, binding: Binding, question: RelationshipQuestion
    ) -> tuple[Answer, int | None]:
        subject, obj = binding.object_of(question.subject), binding.object_of(question.object)
        symmetric = prepared.vocabulary.relationship(question.relationship).symmetric
        related = prepared.scene.related(subject, question.relationship, obj, symmetric)
        return (Answer.YES if related else Answer.NO), None

    def labels_named(self, question: RelationshipQuestion) -> tuple[Label, ...]:
        return (question.subject, question.object)

    def reuse_key(
        self, image: int, defined: Mapping[str, Hashable], question: Mapping[str, Any]
    ) -> Hashable | None:
        if question.get("subject") not in defined or question.get("object") not in defined:
            return None
        subject, obj = defined[question["subject"]], defined[question["object"]]
        return ("relationship", image, subject, question.get("relationship"), obj)
