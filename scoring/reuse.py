"""The reuse attacker: the strongest guesser we can build without pixels, from what earlier sessions of
the same test were told (issue 18; benchmarks/reuse_attack.py and the test card's reuse figures).

A system is told the truth after each of its answers. An attacker that remembers every question and
truth revealed to earlier sessions answers a new session from that memory, with facts that hold whatever
the history:

1. the exact question after the exact same history on the same image;
2. an instantiation question (exist / unique) whose answer depends only on the image and on which
   objects of its type are labelled already: keyed by the question and the definitions of those labels
   (with none labelled, a plain fact about the image);
3. what a label's defining question says about the object: a label is defined by the uniqueness
   question that made it (and by the labels of its type before it), so the same definition names the
   same object in another session; an attribute or relationship question about it is keyed by the
   definitions. The defining question's own attributes are the object's (attr(k, a) is yes for them).

Otherwise it answers with the blind prior: yes when the engine's p (computed from the history and the
training statistics alone, which anyone may compute) is above 0.5.

Plain Python on question documents (docs/method.md section 9): no Django, no engine.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kernel.kinds import REGISTRY
from kernel.kinds.base import canonical, label_type

Question = Mapping[str, Any]


@dataclass(frozen=True)
class Seen:
    """One question of a stream as a system knows it once answered: the question, its truth, and the
    label a yes to it made ("" for none)."""

    question: Question
    truth: bool
    label: str = ""


def definitions(history: Sequence[Seen]) -> dict[str, Hashable]:
    """Each label of the history with its definition: the uniqueness question that made it and the
    definitions of the labels of its type made before it (the objects it excluded)."""
    defined: dict[str, Hashable] = {}
    for seen in history:
        _define(defined, seen)
    return defined


def _define(defined: dict[str, Hashable], seen: Seen) -> None:
    """Add the label `seen` made, if any, to the definitions of the history before it."""
    if seen.label:
        kind = label_type(seen.label)
        before = tuple(sorted(str(d) for label, d in defined.items() if label_type(label) == kind))
        defined[seen.label] = (canonical(seen.question), before)


def fact_keys(image: int, history: Sequence[Seen], question: Question) -> list[Hashable]:
    """The keys under which the truth of `question` after `history` on `image` is remembered, the most
    specific first."""
    keys: list[Hashable] = [
        ("exact", image, tuple((canonical(s.question), s.truth) for s in history), canonical(question))
    ]
    reusable = reusable_key(image, definitions(history), question)
    if reusable is not None:
        keys.append(reusable)
    return keys


def reusable_key(image: int, defined: Mapping[str, Hashable], question: Question) -> Hashable | None:
    """The key under which the truth of `question` is remembered in any history whose labels have the
    definitions `defined`; None for a question naming a label `defined` lacks (no valid history does).

    This key alone says whether the attacker knows the question: the exact key of a question after a
    history is learnt only together with this one (the same history gives the same definitions)."""
    kind = REGISTRY.get(str(question.get("kind", "")))
    return None if kind is None else kind.reuse_key(image, defined, question)


def revealed_keys(image: int, stream: Sequence[Seen]) -> set[Hashable]:
    """The reusable keys of the questions one stream revealed (its shown questions, in order); the
    definitions grow with the stream instead of being worked out again for every question."""
    defined: dict[str, Hashable] = {}
    keys: set[Hashable] = set()
    for seen in stream:
        key = reusable_key(image, defined, seen.question)
        if key is not None:
            keys.add(key)
        _define(defined, seen)
    return keys


@dataclass(frozen=True)
class Exposure:
    """How many earlier streams on one image revealed each fact (per reusable key): how often what a
    new session is asked was told before, as the attacker above could reuse it. Dealing asks it how
    exposed each candidate question is, and the engine's draw prefers the least exposed
    (truthing.published.exposure, engine.core.exposure)."""

    image: int
    counts: Counter[Hashable]

    @classmethod
    def of_streams(cls, image: int, streams: Iterable[Sequence[Seen]]) -> Exposure:
        counts: Counter[Hashable] = Counter()
        for stream in streams:
            counts.update(revealed_keys(image, stream))
        return cls(image, counts)

    def after(self, history: Sequence[Seen]) -> Callable[[Question], int]:
        """The exposure of a question asked after `history`. The history's part (its definitions) is
        worked out once here, so that each candidate then costs one key."""
        defined = definitions(history)

        def exposure(question: Question) -> int:
            key = reusable_key(self.image, defined, question)
            return self.counts[key] if key is not None else 0

        return exposure


def _from_definition(history: Sequence[Seen], question: Question) -> bool | None:
    """A question answered by its label's defining question: the object was singled out as having
    those attributes (what that says, each kind knows: `QuestionKind.from_definition`)."""
    kind = REGISTRY.get(str(question.get("kind", "")))
    made = next((s for s in history if s.label and s.label == question.get("label")), None)
    if kind is None or made is None:
        return None
    return kind.from_definition(set(made.question.get("attributes", [])), question)


@dataclass
class ReuseAttacker:
    """Remembers what sessions were told; guesses from that memory, else from the blind prior."""

    facts: dict[Hashable, bool] = field(default_factory=dict)
    # How each guess was made: "memory", "definition" or "prior".
    sources: dict[str, int] = field(default_factory=lambda: {"memory": 0, "definition": 0, "prior": 0})

    def learn(self, image: int, history: Sequence[Seen], question: Question, truth: bool) -> None:
        for key in fact_keys(image, history, question):
            self.facts[key] = truth

    def learn_stream(self, image: int, stream: Sequence[Seen]) -> None:
        """Everything one stream of an earlier session revealed."""
        for i, seen in enumerate(stream):
            self.learn(image, stream[:i], seen.question, seen.truth)

    def guess(self, image: int, history: Sequence[Seen], question: Question, p: float | None) -> bool:
        for key in fact_keys(image, history, question):
            if key in self.facts:
                self.sources["memory"] += 1
                return self.facts[key]
        derived = _from_definition(history, question)
        if derived is not None:
            self.sources["definition"] += 1
            return derived
        self.sources["prior"] += 1
        return blind_prior(p)


def blind_prior(p: float | None) -> bool:
    """The blind guesser of the test card: yes when the engine's p is above 0.5."""
    return p is not None and p > 0.5


@dataclass(frozen=True)
class PlayedStream:
    """One stream of a session as its system saw it: the image and each question with its truth, the
    label it made and the engine's p (for the blind prior)."""

    image: int
    steps: Sequence[tuple[Seen, float | None]]


def reuse_accuracy(
    earlier: Sequence[Sequence[PlayedStream]], target: Sequence[PlayedStream]
) -> tuple[int, int, int]:
    """(attacker right, blind prior right, questions) on the `target` session, for an attacker that
    remembers everything the `earlier` sessions were told and what the target told it so far."""
    attacker = ReuseAttacker()
    for session in earlier:
        for stream in session:
            attacker.learn_stream(stream.image, [seen for seen, _ in stream.steps])
    right = blind = total = 0
    for stream in target:
        history: list[Seen] = []
        for seen, p in stream.steps:
            right += attacker.guess(stream.image, history, seen.question, p) == seen.truth
            blind += blind_prior(p) == seen.truth
            total += 1
            attacker.learn(stream.image, history, seen.question, seen.truth)
            history.append(seen)
    return right, blind, total
