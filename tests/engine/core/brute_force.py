"""A plain estimator written from docs/engine.md ("Estimating P_H(X_q = 1)"), for checking the
vectorised one.

Loops over training scenes, objects and pairs; answers questions with the scalar oracle; knows nothing
of the fitted arrays or of the training state. It shares only the question types and the oracle with
the engine.
"""

from __future__ import annotations

from engine.core.oracle import PreparedScene, answer, replay
from engine.core.questions import (
    Answer,
    AttributeQuestion,
    InstantiationQuestion,
    Kind,
    Question,
    RelationshipQuestion,
)
from engine.core.vocabulary import Vocabulary

History = list[tuple[Question, Answer]]


def brute_force(
    vocabulary: Vocabulary,
    training: list[PreparedScene],
    history: History,
    question: Question,
    full_min: int = 40,
) -> tuple[int, int]:
    """(yes, population) for `question` after `history`; `full_min` is the setting
    `full_history_min_population`."""
    if isinstance(question, InstantiationQuestion):
        full = count_on_consistent(training, instantiation_history(history), question)
        if full[1] >= full_min:
            return full
        return count_on_consistent(training, reduced_history(vocabulary, history, question), question)
    if isinstance(question, AttributeQuestion):
        return _attribute(vocabulary, training, history, question, full_min)
    return _relationship(vocabulary, training, history, question)


def reduced_history(vocabulary: Vocabulary, history: History, question: InstantiationQuestion) -> History:
    """H'_q: positive uniqueness answers, and instantiation answers in regions intersecting q's."""
    region = vocabulary.region(question.region)
    kept = []
    for asked, given in history:
        if given == Answer.AMBIGUOUS or not isinstance(asked, InstantiationQuestion):
            continue
        if (asked.kind == Kind.UNIQUE and given == Answer.YES) or vocabulary.region(asked.region).intersects(
            region
        ):
            kept.append((asked, given))
    return kept


def instantiation_history(history: History) -> History:
    """H_I: every answered (not rejected) existence and uniqueness question, whatever its region."""
    return [
        (asked, given)
        for asked, given in history
        if given != Answer.AMBIGUOUS and isinstance(asked, InstantiationQuestion)
    ]


def count_on_consistent(training, kept: History, question) -> tuple[int, int]:
    """Over the training scenes that give every answer of `kept`: (answered yes, not ambiguous)."""
    yes = population = 0
    for scene in training:
        consistent, binding = replay(scene, kept)
        if not consistent:
            continue
        given, _ = answer(scene, binding, question)
        if given == Answer.AMBIGUOUS:
            continue
        population += 1
        yes += given == Answer.YES
    return yes, population


def _has(attributes: frozenset[str], kind: Kind, named: tuple[str, ...]) -> bool:
    if kind == Kind.ATTR_OR:
        return any(a in attributes for a in named)
    return all(a in attributes for a in named)


def _attribute(vocabulary, training, history, question: AttributeQuestion, full_min: int) -> tuple[int, int]:
    object_type = vocabulary.object_type(question.label.type)
    facts: list[tuple[Kind, tuple[str, ...], bool]] = []
    counters: dict[str, int] = {}
    for asked, given in history:
        if given == Answer.AMBIGUOUS:
            continue
        if isinstance(asked, InstantiationQuestion) and asked.kind == Kind.UNIQUE and given == Answer.YES:
            counters[asked.type] = counters.get(asked.type, 0) + 1
            if (asked.type, counters[asked.type]) == (
                question.label.type,
                question.label.number,
            ) and asked.attributes:
                facts.append((Kind.ATTR_AND, asked.attributes, True))
        elif isinstance(asked, AttributeQuestion) and asked.label == question.label:
            facts.append((asked.kind, asked.attributes, given == Answer.YES))
    # The full history: the object the label is bound to in each scene that gives H_I, when its
    # attributes are known and agree with every fact about the label.
    yes = population = 0
    for scene in training:
        consistent, binding = replay(scene, instantiation_history(history))
        if not consistent:
            continue
        obj = scene.scene.objects[binding.object_of(question.label)]
        if obj.attributes_known and all(_has(obj.attributes, k, named) == said for k, named, said in facts):
            population += 1
            yes += _has(obj.attributes, question.kind, question.attributes)
    if population >= full_min:
        return yes, population
    # Backed off: pooled over all objects of the type, with the facts of the groups linked to the
    # question's groups, through facts that span several groups.
    groups = {object_type.group_of[a] for a in question.attributes}
    grew = True
    while grew:
        grew = False
        for _, named, _ in facts:
            touched = {object_type.group_of[a] for a in named}
            if touched & groups and not touched <= groups:
                groups |= touched
                grew = True
    relevant = [f for f in facts if {object_type.group_of[a] for a in f[1]} & groups]
    yes = population = 0
    for scene in training:
        for obj in scene.scene.objects:
            if obj.type != question.label.type or not obj.attributes_known:
                continue
            if all(_has(obj.attributes, kind, named) == said for kind, named, said in relevant):
                population += 1
                yes += _has(obj.attributes, question.kind, question.attributes)
    return yes, population


def _relationship(vocabulary, training, history, question: RelationshipQuestion) -> tuple[int, int]:
    group = vocabulary.relationship(question.relationship).group
    facts = [
        (asked, given == Answer.YES)
        for asked, given in history
        if given != Answer.AMBIGUOUS
        and isinstance(asked, RelationshipQuestion)
        and {asked.subject, asked.object} == {question.subject, question.object}
        and vocabulary.relationship(asked.relationship).group == group
    ]
    yes = population = 0
    for prepared in training:
        scene = prepared.scene
        for a, first in enumerate(scene.objects):
            for b, second in enumerate(scene.objects):
                if a == b or first.type != question.subject.type or second.type != question.object.type:
                    continue
                agrees = all(
                    (
                        _related(vocabulary, scene, a, f.relationship, b)
                        if f.subject == question.subject
                        else _related(vocabulary, scene, b, f.relationship, a)
                    )
                    == said
                    for f, said in facts
                )
                if agrees:
                    population += 1
                    yes += _related(vocabulary, scene, a, question.relationship, b)
    return yes, population


def _related(vocabulary, scene, subject: int, predicate: str, obj: int) -> bool:
    return scene.related(subject, predicate, obj, vocabulary.relationship(predicate).symmetric)
