"""The question kinds, one module each, registered here in the order every report lists them.

A kind's module (`exist.py`, ..., `rel.py`) holds everything that differs by kind: its structured form
and parsing, its English, the oracle's answer, what an object or an image satisfies (on booleans and
on bit masks), which of its candidates are never asked, its estimate's family of levels, its reuse key,
what it tells the audit's guesser and the ranking check's degradation that reaches it. This module
imports each kind's module by a plain import statement (so mypy checks its `KIND` and import-linter
sees the import) and registers its `KIND`. Everything else iterates the registry or asks `kind_of`; no
other module names a kind, nor imports a kind's module (tests/kernel/test_kinds_registry.py fails on
one that does). docs/recipes.md, "Add a question kind", is the recipe.

Plain Python: the scoring core reads the registry too.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from enum import StrEnum
from typing import Any

from kernel.errors import CoreErrorCode, QuestionError, at
from kernel.kinds import attr, attr_and, attr_or, exist, rel, unique
from kernel.kinds.base import EXCLUDING, Family, QuestionKind, label_type
from kernel.kinds.families import AttributeKind, InstantiationKind, RelationshipKind
from kernel.questions import Label, Question
from kernel.vocabulary import Vocabulary

REGISTRY: dict[str, QuestionKind] = {}


def register(kind: QuestionKind) -> QuestionKind:
    if kind.name in REGISTRY:
        raise ValueError(f"the question kind {kind.name!r} is registered twice")
    REGISTRY[kind.name] = kind
    return kind


def unregister(name: str) -> None:
    """For tests that register a kind of their own."""
    del REGISTRY[name]


# The kinds, in the order reports list them and the engine orders its candidates within one group
# (exist before unique; attr_and before attr_or).
for _kind in (exist.KIND, unique.KIND, attr.KIND, attr_and.KIND, attr_or.KIND, rel.KIND):
    register(_kind)


class _Names(Sequence[str]):
    """The registered kinds' names in order, read off the registry whenever asked (a kind registered
    later, as the registry's test does, is seen by every reader)."""

    def __getitem__(self, index: Any) -> Any:
        return tuple(REGISTRY)[index]

    def __len__(self) -> int:
        return len(REGISTRY)

    def __repr__(self) -> str:
        return repr(tuple(REGISTRY))


KINDS: Sequence[str] = _Names()
# The kinds' names as an enum, made from the registry (a new kind's module is its only definition).
Kind = StrEnum("Kind", [(name.upper(), name) for name in REGISTRY])  # type: ignore[misc]


def kind_of(name: str | Question) -> QuestionKind:
    """The kind of a name or a question; KeyError for a name no module registers."""
    return REGISTRY[name if isinstance(name, str) else name.kind]


def instantiation_kinds() -> list[InstantiationKind]:
    return [kind for kind in REGISTRY.values() if isinstance(kind, InstantiationKind)]


def attribute_kinds() -> list[AttributeKind]:
    return [kind for kind in REGISTRY.values() if isinstance(kind, AttributeKind)]


def relationship_kinds() -> list[RelationshipKind]:
    return [kind for kind in REGISTRY.values() if isinstance(kind, RelationshipKind)]


def labels_an_object(name: Any) -> bool:
    """Whether a yes to a question of this kind (a name) labels the object it singles out."""
    kind = REGISTRY.get(str(name))
    return isinstance(kind, InstantiationKind) and kind.labels


def label_made(
    answered: Iterable[tuple[Mapping[str, Any], str]], question: Mapping[str, Any], answer: str
) -> str:
    """The label an answer to a structured question makes after the answered ones ("person 2"), or "".

    One entry point for "record this answer and tell me the label", on the structured forms alone: a
    yes to a kind that labels an object gives it the next label of its type (1 + the labels of its type
    made so far, docs/method.md section 4). No vocabulary, no statistics: an operator's answer is stored
    without loading the engine in the web process, and the proposer replays the history once."""
    if answer != "yes" or not labels_an_object(question.get("kind")):
        return ""
    of_type = question.get("type")
    made = sum(
        1
        for asked, given in answered
        if given == "yes" and labels_an_object(asked.get("kind")) and asked.get("type") == of_type
    )
    return f"{of_type} {made + 1}"


# --- The structured form and the English, through each question's kind ---------------------------------


def question_to_json(
    question: Question, vocabulary: Vocabulary, width: float, height: float, made: Sequence[Label] = ()
) -> dict[str, Any]:
    """The structured form of docs/method.md section 9; regions as pixel boxes of this image, unrounded.
    `made`: the labels the stream made before the question (an instantiation question names the ones
    of its type it leaves out)."""
    return kind_of(question).to_json(question, vocabulary, width, height, made)


def question_from_json(
    document: Any, vocabulary: Vocabulary, width: float, height: float, where: str = "question"
) -> Question:
    """Parse and validate a structured question. Whether its labels exist depends on a history."""
    if not isinstance(document, Mapping):
        raise QuestionError("a question is a JSON object", where=where)
    kind = REGISTRY.get(str(document.get("kind")))
    if kind is None:
        raise QuestionError(
            f"kind must be one of {', '.join(KINDS)}",
            where=at(where, "kind"),
            code=CoreErrorCode.UNKNOWN_KIND,
        )
    return kind.parse(document, vocabulary, width, height, where)


def spelled_out(document: Mapping[str, Any], text: str, made: Sequence[str]) -> tuple[dict[str, Any], str]:
    """A stored question written before instantiation questions named the labels they leave out, as it
    is written now, after a stream that made the labels `made` ("vehicle 1"): its structured form with
    `excluding`, its English with "other than vehicle 1". Anything else comes back as it was."""
    kind = REGISTRY.get(str(document.get("kind")))
    if not isinstance(kind, InstantiationKind) or EXCLUDING in document:
        return dict(document), text
    type_name = str(document.get("type"))
    excluding = [label for label in made if label_type(label) == type_name]
    before, after = kind.text_opening(type_name, []), kind.text_opening(type_name, excluding)
    if text.startswith(before):
        text = after + text[len(before) :]
    return {**document, EXCLUDING: excluding}, text


def render_text(question: Question, vocabulary: Vocabulary, made: Sequence[Label] = ()) -> str:
    """The question in English after a stream that made the labels `made`."""
    return kind_of(question).text(question, vocabulary, made)


__all__ = [
    "EXCLUDING",
    "KINDS",
    "REGISTRY",
    "AttributeKind",
    "Family",
    "InstantiationKind",
    "Kind",
    "QuestionKind",
    "RelationshipKind",
    "attribute_kinds",
    "instantiation_kinds",
    "kind_of",
    "label_made",
    "labels_an_object",
    "question_from_json",
    "question_to_json",
    "register",
    "relationship_kinds",
    "render_text",
    "spelled_out",
    "unregister",
]
