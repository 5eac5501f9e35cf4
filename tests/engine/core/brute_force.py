"""A plain estimator written from docs/engine.md ("Estimating P_H(X_q = 1)"), for checking the
vectorised one.

Loops over training scenes, objects and pairs; answers questions with the scalar oracle; knows nothing
of the fitted arrays or of the training state. It shares only the question types and the oracle with
the engine.
"""

from __future__ import annotations

from engine.core.oracle import answer, replay
from kernel.kinds import Kind
from kernel.prepared import Binding, PreparedScene
from kernel.questions import (
    Answer,
    AttributeQuestion,
    InstantiationQuestion,
    Label,
    Question,
    RelationshipQuestion,
)
from kernel.vocabulary import Vocabulary

History = list[tuple[Question, Answer]]


Level = tuple[int, int]


def brute_force(
    vocabulary: Vocabulary,
    training: list[PreparedScene],
    history: History,
    question: Question,
    strength: float = 40.0,
    weight: float = 0.85,
    weighted_strength: float = 2.0,
    where_found: bool = True,
    relationship_strength: float = 20.0,
) -> tuple[float | None, int, list[Level]]:
    """(p, population, levels) for `question` after `history`; `strength` is `prior_strength`, `weight`
    is `consistency_weight`, `weighted_strength` the strength of the last level (the weighted one), but
    `relationship_strength` in a relationship question's chain (decision 0059).
    `where_found=False`: the weighted found level of attribute and relationship questions over every
    scene of B, as before decision 0057 (for `benchmarks.found_where_found`)."""
    levels = brute_force_levels(vocabulary, training, history, question, weight, where_found)
    population = levels[0][1]
    if population == 0:
        return None, 0, levels
    p = levels[0][0] / population
    last = relationship_strength if isinstance(question, RelationshipQuestion) else weighted_strength
    for i, (yes, n) in enumerate(levels[1:], start=1):
        s = last if i == len(levels) - 1 else strength
        p = (yes + s * p) / (n + s)
    return p, population, levels


def brute_force_levels(
    vocabulary: Vocabulary,
    training: list[PreparedScene],
    history: History,
    question: Question,
    weight: float,
    where_found: bool = True,
) -> list[Level]:
    """(yes, population) of each level, coarsest first."""
    if isinstance(question, InstantiationQuestion):
        return _instantiation(vocabulary, training, history, question, weight)
    if isinstance(question, AttributeQuestion):
        return _attribute(vocabulary, training, history, question, weight, where_found)
    return _relationship(vocabulary, training, history, question, weight, where_found)


def weighted(yes_by_d: list[int], population_by_d: list[int], weight: float) -> Level:
    """sum over d of count * weight^d, in the order d = 0, 1, 2, ..."""
    return (
        sum(c * weight**d for d, c in enumerate(yes_by_d)),
        sum(c * weight**d for d, c in enumerate(population_by_d)),
    )


def disagreements(scene: PreparedScene, history: History):
    """For a scene that gives H_U: how many entries of H_I it disagrees with, and its binding after
    H_I; None for any other scene."""
    kept = instantiation_history(history)
    binding = Binding()
    counters: dict[str, int] = {}
    d = 0
    for asked, recorded in kept:
        given, instantiated = answer(scene, binding, asked)
        if given != recorded:
            if recorded == Answer.YES and asked.kind == Kind.UNIQUE:
                return None  # the label means nothing on this scene
            d += 1
        elif instantiated is not None and recorded == Answer.YES:
            counters[asked.type] = counters.get(asked.type, 0) + 1
            binding.bind(Label(asked.type, counters[asked.type]), instantiated)
    return d, binding


def _instantiation(
    vocabulary, training, history, question: InstantiationQuestion, weight: float
) -> list[Level]:
    """The scenes that give H'_q, answered after replaying H_I: all alike, then by disagreement."""
    depth = len(instantiation_history(history)) + 1
    yes_by_d, population_by_d = [0] * depth, [0] * depth
    pooled = reduced_history(vocabulary, history, question)
    for scene in training:
        consistent, _ = replay(scene, pooled)
        if not consistent:
            continue
        d, binding = disagreements(scene, history)
        given, _ = answer(scene, binding, question)
        if given == Answer.AMBIGUOUS:
            continue
        population_by_d[d] += 1
        yes_by_d[d] += given == Answer.YES
    return [(sum(yes_by_d), sum(population_by_d)), weighted(yes_by_d, population_by_d, weight)]


def reduced_history(vocabulary: Vocabulary, history: History, question: InstantiationQuestion) -> History:
    """H'_q: positive uniqueness answers, and instantiation answers about q's type in regions
    intersecting q's."""
    region = vocabulary.region(question.region)
    kept = []
    for asked, given in history:
        if given == Answer.AMBIGUOUS or not isinstance(asked, InstantiationQuestion):
            continue
        if (asked.kind == Kind.UNIQUE and given == Answer.YES) or (
            asked.type == question.type and vocabulary.region(asked.region).intersects(region)
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


def defining_question(history: History, label: Label) -> InstantiationQuestion:
    """The positive uniqueness entry that instantiated `label`."""
    counters: dict[str, int] = {}
    for asked, given in history:
        if isinstance(asked, InstantiationQuestion) and asked.kind == Kind.UNIQUE and given == Answer.YES:
            counters[asked.type] = counters.get(asked.type, 0) + 1
            if (asked.type, counters[asked.type]) == (label.type, label.number):
                return asked
    raise AssertionError(f"{label} was never instantiated")


def defining_region(history: History, label: Label) -> str:
    return defining_question(history, label).region


def gives_where_found(vocabulary: Vocabulary, scene: PreparedScene, history: History, label: Label) -> bool:
    """Whether the scene gives H'_q of the uniqueness question q that instantiated `label`: every
    positive uniqueness answer, and every instantiation answer about its type in a region intersecting
    its region."""
    consistent, _ = replay(scene, reduced_history(vocabulary, history, defining_question(history, label)))
    return consistent


def _visible_in(vocabulary: Vocabulary, prepared: PreparedScene, index: int, region: str) -> bool:
    return bool((prepared.visibility[index] >> vocabulary.region_index[region]) & 1)


def _has(attributes: frozenset[str], kind: Kind, named: tuple[str, ...]) -> bool:
    if kind == Kind.ATTR_OR:
        return any(a in attributes for a in named)
    return all(a in attributes for a in named)


def _attribute(
    vocabulary, training, history, question: AttributeQuestion, weight: float, where_found: bool
) -> list[Level]:
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
    # Pooled: the facts of the groups linked to the question's groups, through facts spanning groups.
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
    every_object = [
        obj for scene in training for obj in scene.scene.objects if obj.type == question.label.type
    ]
    where = defining_region(history, question.label)
    in_region = [
        obj
        for prepared in training
        for i, obj in enumerate(prepared.scene.objects)
        if obj.type == question.label.type and _visible_in(vocabulary, prepared, i, where)
    ]

    def agrees(obj, chosen_facts) -> bool:
        return obj.attributes_known and all(
            _has(obj.attributes, kind, named) == said for kind, named, said in chosen_facts
        )

    def level(objects, chosen_facts) -> Level:
        chosen = [obj for obj in objects if agrees(obj, chosen_facts)]
        return sum(_has(obj.attributes, question.kind, question.attributes) for obj in chosen), len(chosen)

    depth = len(instantiation_history(history)) + 1
    yes_by_d, population_by_d = [0] * depth, [0] * depth
    found_yes = found_population = 0
    for scene in training:
        found = disagreements(scene, history)
        if found is None:
            continue
        d, binding = found
        obj = scene.scene.objects[binding.object_of(question.label)]
        if agrees(obj, facts):
            has = _has(obj.attributes, question.kind, question.attributes)
            found_yes, found_population = found_yes + has, found_population + 1
            if not where_found or gives_where_found(vocabulary, scene, history, question.label):
                population_by_d[d] += 1
                yes_by_d[d] += has
    return [
        level(every_object, relevant),
        level(every_object, facts),
        level(in_region, facts),
        (found_yes, found_population),
        weighted(yes_by_d, population_by_d, weight),
    ]


def _relationship(
    vocabulary, training, history, question: RelationshipQuestion, weight: float, where_found: bool
) -> list[Level]:
    group = vocabulary.relationship(question.relationship).group
    facts = [
        (asked, given == Answer.YES)
        for asked, given in history
        if given != Answer.AMBIGUOUS
        and isinstance(asked, RelationshipQuestion)
        and {asked.subject, asked.object} == {question.subject, question.object}
    ]
    in_group = [(f, said) for f, said in facts if vocabulary.relationship(f.relationship).group == group]

    def agrees(scene, a, b, chosen_facts) -> bool:
        return all(
            (
                _related(vocabulary, scene, a, f.relationship, b)
                if f.subject == question.subject
                else _related(vocabulary, scene, b, f.relationship, a)
            )
            == said
            for f, said in chosen_facts
        )

    def level(pairs, chosen_facts) -> Level:
        yes = population = 0
        for scene, a, b in pairs:
            if agrees(scene, a, b, chosen_facts):
                population += 1
                yes += _related(vocabulary, scene, a, question.relationship, b)
        return yes, population

    every_pair = [
        (prepared.scene, a, b)
        for prepared in training
        for a, first in enumerate(prepared.scene.objects)
        for b, second in enumerate(prepared.scene.objects)
        if a != b and first.type == question.subject.type and second.type == question.object.type
    ]
    subject_region = defining_region(history, question.subject)
    object_region = defining_region(history, question.object)
    in_regions = [
        (prepared.scene, a, b)
        for prepared in training
        for a, first in enumerate(prepared.scene.objects)
        for b, second in enumerate(prepared.scene.objects)
        if a != b
        and first.type == question.subject.type
        and second.type == question.object.type
        and _visible_in(vocabulary, prepared, a, subject_region)
        and _visible_in(vocabulary, prepared, b, object_region)
    ]

    depth = len(instantiation_history(history)) + 1
    yes_by_d, population_by_d = [0] * depth, [0] * depth
    for prepared in training:
        found = disagreements(prepared, history)
        if found is None:
            continue
        d, binding = found
        a, b = binding.object_of(question.subject), binding.object_of(question.object)
        kept = not where_found or all(
            gives_where_found(vocabulary, prepared, history, label)
            for label in (question.subject, question.object)
        )
        if kept and agrees(prepared.scene, a, b, facts):
            population_by_d[d] += 1
            yes_by_d[d] += _related(vocabulary, prepared.scene, a, question.relationship, b)
    return [
        level(every_pair, in_group),
        level(every_pair, facts),
        level(in_regions, facts),
        weighted(yes_by_d, population_by_d, weight),
    ]


def _related(vocabulary, scene, subject: int, predicate: str, obj: int) -> bool:
    return scene.related(subject, predicate, obj, vocabulary.relationship(predicate).symmetric)
