"""What a history says, independently of any image: labels, facts per object and pair, the focus region.

`Story.record` is the one place where a history grows. It checks that a question names only labels
that exist, gives the next label of its type to an object a positive uniqueness question instantiates,
sets aside rejected (ambiguous) questions so they are never proposed again and condition nothing, and
keeps the focus region of docs/method.md section 6: a positive existence answer in region w keeps the following
instantiation questions inside w until an object there is instantiated (or the proposer finds nothing
unpredictable there).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, TypeVar

from kernel.errors import CoreErrorCode, HistoryError, at
from kernel.kinds import EXCLUDING, InstantiationKind, kind_of, question_from_json
from kernel.questions import (
    Answer,
    AttributeQuestion,
    InstantiationQuestion,
    Label,
    Question,
    RelationshipQuestion,
)
from kernel.vocabulary import Vocabulary

T = TypeVar("T")


@dataclass(frozen=True)
class LabelRecord:
    label: Label
    question: InstantiationQuestion  # the uniqueness question that instantiated the object
    entry: int  # its position in the history


@dataclass
class Story:
    vocabulary: Vocabulary
    entries: list[tuple[Question, Answer]] = field(default_factory=list)
    labels: list[LabelRecord] = field(default_factory=list)
    rejected: set[Question] = field(default_factory=set)
    focus: str | None = None
    attribute_facts: dict[Label, list[tuple[AttributeQuestion, bool]]] = field(default_factory=dict)
    relationship_facts: dict[frozenset[Label], list[tuple[RelationshipQuestion, bool]]] = field(
        default_factory=dict
    )
    # What estimates computed from this history and may share (one proposal examines ~100 attribute
    # candidates that select the same training objects); emptied by every `record`.
    memo: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)

    def remembered(self, key: Any, compute: Callable[[], T]) -> T:
        """`compute()`, once per history state and key."""
        if key not in self.memo:
            self.memo[key] = compute()
        value: T = self.memo[key]
        return value

    @property
    def answered(self) -> int:
        """Questions answered yes or no (rejected ones do not count towards the stream's length)."""
        return len(self.entries) - sum(1 for _, a in self.entries if a == Answer.AMBIGUOUS)

    @property
    def latest(self) -> LabelRecord | None:
        return self.labels[-1] if self.labels else None

    def made(self) -> list[Label]:
        """The labels made so far, in the order they were made."""
        return [record.label for record in self.labels]

    def check_excluding(self, question: Question, document: Any, where: str) -> None:
        """An instantiation question that spells out what it leaves out must leave out exactly the
        labels of its type made so far: the same text and form must always mean the same thing."""
        kind = kind_of(question)
        if not isinstance(kind, InstantiationKind) or not isinstance(document, dict):
            return
        if EXCLUDING in document and isinstance(question, InstantiationQuestion):
            expected = kind.excluded(question, self.made())
            if document[EXCLUDING] != expected:
                raise HistoryError(
                    f"excluding must name the {question.type}s labelled so far: {expected}",
                    where=at(where, EXCLUDING),
                    code=CoreErrorCode.BAD_LABEL,
                )

    def known_labels(self) -> set[Label]:
        return {record.label for record in self.labels}

    def next_label(self, type_name: str) -> Label:
        return Label(type_name, 1 + sum(1 for record in self.labels if record.label.type == type_name))

    def check(self, question: Question, where: str = "question") -> None:
        """Refuse a question that names a label not instantiated yet."""
        known = self.known_labels()
        for label in kind_of(question).labels_named(question):
            if label not in known:
                raise HistoryError(
                    f"{label} has not been instantiated at this point of the history",
                    where=where,
                    code=CoreErrorCode.LABEL_NOT_INSTANTIATED,
                )

    def record(self, question: Question, answer: Answer, where: str = "question") -> Label | None:
        """Add an answered (or rejected) question; returns the new label when it instantiates an object."""
        self.check(question, where)
        self.memo.clear()
        self.entries.append((question, answer))
        if answer == Answer.AMBIGUOUS:
            self.rejected.add(question)
            return None
        said = answer == Answer.YES
        if isinstance(question, AttributeQuestion):
            self.attribute_facts.setdefault(question.label, []).append((question, said))
        elif isinstance(question, RelationshipQuestion):
            pair = frozenset((question.subject, question.object))
            self.relationship_facts.setdefault(pair, []).append((question, said))
        elif said:
            kind = kind_of(question)
            assert isinstance(kind, InstantiationKind) and isinstance(question, InstantiationQuestion)
            if kind.labels:
                label = self.next_label(question.type)
                self.labels.append(LabelRecord(label, question, len(self.entries) - 1))
                self.focus = None
                return label
            if kind.focuses:
                self.focus = question.region
        return None


def parse_answer(raw: Any, where: str) -> Answer:
    try:
        return Answer(raw)
    except ValueError:
        raise HistoryError(
            "answer must be yes, no or ambiguous", where=where, code=CoreErrorCode.BAD_ANSWER
        ) from None


def parse_history(
    raw: Any, vocabulary: Vocabulary, width: float, height: float
) -> list[tuple[Question, Answer]]:
    """A history document: a list of {"question": ..., "answer": ...}; labels are checked in order."""
    if not isinstance(raw, list):
        raise HistoryError("a history is a list of {question, answer}", where="history")
    story = Story(vocabulary)
    entries: list[tuple[Question, Answer]] = []
    for i, item in enumerate(raw):
        where = f"history[{i}]"
        if not isinstance(item, dict):
            raise HistoryError("an entry is {question, answer}", where=where)
        question = question_from_json(item.get("question"), vocabulary, width, height, at(where, "question"))
        story.check_excluding(question, item.get("question"), at(where, "question"))
        answer = parse_answer(item.get("answer"), at(where, "answer"))
        story.record(question, answer, at(where, "question"))
        entries.append((question, answer))
    return entries


def story_of(vocabulary: Vocabulary, entries: Iterable[tuple[Question, Answer]]) -> Story:
    story = Story(vocabulary)
    for question, answer in entries:
        story.record(question, answer)
    return story
