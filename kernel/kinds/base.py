"""What a question kind is (`QuestionKind`), and what every kind shares: its family, the canonical form
of a stored question, a label's type, the English of a list.

Every kind belongs to one of three families (`kernel.kinds.families`), which fixes the shape of its
structured form (the dataclass of `kernel.questions`) and the estimate the engine gives it.

This module is plain Python (no numpy): the scoring core reads the kinds too.
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from kernel.errors import CoreErrorCode, QuestionError, at
from kernel.questions import (
    Answer,
    Label,
    Question,
)
from kernel.vocabulary import Vocabulary

if TYPE_CHECKING:
    from kernel.prepared import Binding, PreparedScene


class Family(StrEnum):
    INSTANTIATION = "instantiation"
    ATTRIBUTE = "attribute"
    RELATIONSHIP = "relationship"


def canonical(question: Mapping[str, Any]) -> str:
    """A structured question as one string: the same question, the same string. An instantiation
    question's `excluding` is left out: it is the labels its history made, which every key built on
    this string holds already (the history, or the definitions of the labels), so a key is the same
    whether a stored question spells it out or not."""
    return json.dumps(
        {key: value for key, value in question.items() if key != EXCLUDING},
        sort_keys=True,
        separators=(",", ":"),
    )


# The key of the labels an instantiation question leaves out, in its structured form.
EXCLUDING = "excluding"


def label_type(label: str) -> str:
    """ "person 2" -> "person"."""
    return label.rsplit(" ", 1)[0]


class QuestionKind:
    """One kind of question. Subclasses are the three families (`kernel.kinds.families`); a kind's module makes one instance."""

    name: str  # its value in the structured form: "exist"
    title: str  # what a person reads in a report: "existence"
    family: Family
    # The ranking check's kind of degradation that reaches its questions besides missed objects
    # (`scoring.simulation.FAMILIES`): None, "attributes" or "relationships".
    degradation: str | None = None

    def parse(
        self, document: Mapping[str, Any], vocabulary: Vocabulary, width: float, height: float, where: str
    ) -> Question:
        raise NotImplementedError

    def to_json(
        self, question: Any, vocabulary: Vocabulary, width: float, height: float, made: Sequence[Label] = ()
    ) -> dict[str, Any]:
        """The structured form of docs/method.md section 9; regions as pixel boxes of this image. `made`:
        the labels the stream made before the question, in the order it made them."""
        raise NotImplementedError

    def text(self, question: Any, vocabulary: Vocabulary, made: Sequence[Label] = ()) -> str:
        """The question in English, after a stream that made the labels `made`."""
        raise NotImplementedError

    def answer(self, prepared: PreparedScene, binding: Binding, question: Any) -> tuple[Answer, int | None]:
        """The oracle's answer on an annotated scene after the history that made `binding`, and for a
        question that labels an object, the index of the object it singles out."""
        raise NotImplementedError

    def labels_named(self, question: Any) -> tuple[Label, ...]:
        """The labels the question names, which must exist before it is asked."""
        return ()

    def reuse_key(
        self, image: int, defined: Mapping[str, Hashable], question: Mapping[str, Any]
    ) -> Hashable | None:
        """The key under which the truth of a structured question is remembered by an attacker that
        reuses what earlier sessions were told (`scoring.reuse`), in any history whose labels have the
        definitions `defined`; None for a question naming a label `defined` lacks."""
        raise NotImplementedError

    def from_definition(self, known: set[str], question: Mapping[str, Any]) -> bool | None:
        """The truth of a structured question that the defining question of its label already gives
        (it singled out an object with the attributes `known`); None when it does not."""
        return None

    def told_attributes(self, question: Any, yes: bool) -> dict[str, bool]:
        """What an answer tells the audit's blind guesser about single attributes of the object asked
        about (engine.audit.features)."""
        return {}


def parse_excluding(raw: Any, type_name: str, vocabulary: Vocabulary, where: str) -> list[str]:
    """An instantiation question's `excluding`: distinct labels of its type ("vehicle 1")."""
    if not isinstance(raw, list):
        raise QuestionError(f"excluding must be a list of labels like '{type_name} 1'", where=where)
    labels = [Label.parse(item, vocabulary, at(where, str(i))) for i, item in enumerate(raw)]
    for i, label in enumerate(labels):
        if label.type != type_name:
            raise QuestionError(
                f"{label} is not a {type_name}: a question about {type_name}s leaves out only {type_name}s",
                where=at(where, str(i)),
                code=CoreErrorCode.BAD_LABEL,
            )
    if len(set(labels)) != len(labels):
        raise QuestionError("a label is named twice", where=where, code=CoreErrorCode.BAD_LABEL)
    return [str(label) for label in labels]


def and_list(items: Sequence[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"
