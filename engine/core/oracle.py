"""The oracle (docs/method.md section 5): answers a question on a completely annotated scene, given the history.

Replaying the history binds each label to the annotated object its uniqueness question singled out;
existence and uniqueness questions then exclude the bound objects ("not previously instantiated").
What each kind answers is in its module of `kernel.kinds`; this module replays a history.
Answers are yes, no or ambiguous: an attribute question about an object whose attributes are unknown
is ambiguous, and so is an instantiation question whose answer depends on such an object.

The same rules, vectorised over the whole training set, are in `engine.core.training` and
`engine.core.truths`; the tests check the two against each other.
"""

from __future__ import annotations

from collections.abc import Iterable

from kernel.kinds import kind_of
from kernel.prepared import Binding, PreparedScene
from kernel.questions import Answer, InstantiationQuestion, Label, Question

__all__ = ["Binding", "PreparedScene", "answer", "replay"]


def answer(prepared: PreparedScene, binding: Binding, question: Question) -> tuple[Answer, int | None]:
    """The answer, and for a positive answer to a question that labels an object (uniqueness) the index
    of the object it singles out: each kind answers for itself (`kernel.kinds`)."""
    return kind_of(question).answer(prepared, binding, question)


def replay(prepared: PreparedScene, history: Iterable[tuple[Question, Answer]]) -> tuple[bool, Binding]:
    """Whether the scene gives every recorded (non-rejected) answer, and the binding it ends with.

    Rejected (ambiguous) entries are skipped: they condition nothing. Replay stops at the first
    disagreement, because after it the labels of the history no longer mean anything on this scene.
    """
    binding = Binding()
    counters: dict[str, int] = {}
    for question, recorded in history:
        if recorded == Answer.AMBIGUOUS:
            continue
        given, instantiated = answer(prepared, binding, question)
        if given != recorded:
            return False, binding
        if instantiated is not None and recorded == Answer.YES:
            assert isinstance(question, InstantiationQuestion)
            counters[question.type] = counters.get(question.type, 0) + 1
            binding.bind(Label(question.type, counters[question.type]), instantiated)
    return True, binding
