"""What a stream may ask next (docs/engine.md "What one step does"): the candidate questions of each
phase of the story line, before any estimate, and the proposals and choices made of them.

The attribute candidates of the latest object and its relationship candidates are functions of the
story alone; the instantiation candidates are scored in arrays by the proposer (`engine.core.proposer`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from engine.core.settings import EngineSettings
from engine.core.story import Story
from kernel.estimates import Estimate
from kernel.kinds import attribute_kinds, relationship_kinds
from kernel.questions import AttributeQuestion, Label, Question
from kernel.vocabulary import ObjectType, Vocabulary


@dataclass(frozen=True)
class Proposal:
    question: Question
    estimate: Estimate


@dataclass(frozen=True)
class Choice:
    """What the next question is drawn among: the `preferred` candidates (sharp first, then simplicity)
    and the unpredictable candidates of the `group` they come from (the preferred ones included), which
    an exposure may fall back to."""

    preferred: list[Proposal]
    group: list[Proposal]


def attribute_candidates(
    story: Story,
    vocabulary: Vocabulary,
    settings: EngineSettings,
    label: Label,
    memo: dict[Any, Any] | None = None,
) -> list[list[Question]]:
    """The attribute questions about `label` not asked yet, one level per number of attributes.
    `memo` (the statistics' `FittedStatistics.memo`) keeps each label's possible questions per process."""
    rejections = sum(isinstance(q, AttributeQuestion) and q.label == label for q in story.rejected)
    if rejections >= settings.rejection_limit:
        return []
    asked = {q for q, _ in story.entries}
    # An attribute the operator rejected about this object ("Is vehicle 2 moving?": ambiguous) does
    # not come back inside a pair ("moving or more than two tires?"): it is left out of the candidate
    # sets, before any estimate, so the estimates of the others are unchanged.
    rejected = rejected_attributes(story, label)
    levels: list[list[Question]] = []
    for size, possible in possible_attribute_questions(vocabulary, label, settings.max_attributes, memo):
        levels.append(
            [
                question
                for attributes, question in possible
                if not (size > 1 and rejected.intersection(attributes)) and question not in asked
            ]
        )
    return levels


def possible_attribute_questions(
    vocabulary: Vocabulary, label: Label, max_attributes: int, memo: dict[Any, Any] | None = None
) -> list[tuple[int, list[tuple[tuple[str, ...], AttributeQuestion]]]]:
    """Per number of attributes (at most `max_attributes`), every attribute question about `label` that
    can be true, with its attributes: single attributes, then pairs, each size's kinds in registry order.
    A function of the vocabulary and the registry alone, so it is worked out once per label (a kind's
    `never_true` looks at every truth of the attributes: a per-proposal cost before it was kept)."""
    kinds = tuple(attribute_kinds())
    key = ("attribute questions", label, max_attributes, kinds)
    if memo is not None and key in memo:
        cached: list[tuple[int, list[tuple[tuple[str, ...], AttributeQuestion]]]] = memo[key]
        return cached
    object_type = vocabulary.object_type(label.type)
    sizes = []
    for size in sorted({kind.arity for kind in kinds}):
        if size > max_attributes:
            break
        of_size = [kind for kind in kinds if kind.arity == size]
        sizes.append(
            (
                size,
                [
                    (attributes, kind.make(label, attributes, vocabulary))
                    for attributes in attribute_sets(object_type, size, conjunctive=False)
                    for kind in of_size
                    if not kind.never_true(object_type, attributes)
                ],
            )
        )
    if memo is not None:
        memo[key] = sizes
    return sizes


def rejected_attributes(story: Story, label: Label) -> set[str]:
    """The attributes whose single question about `label` was rejected in this stream."""
    return {
        attribute
        for question in story.rejected
        if isinstance(question, AttributeQuestion) and question.label == label and question.complexity == 1
        for attribute in question.attributes
    }


def relationship_candidates(story: Story, vocabulary: Vocabulary, label: Label) -> list[Question]:
    """The relationship questions between `label` and the objects instantiated before it, not asked yet."""
    earlier = [record.label for record in story.labels if record.label != label]
    asked = {q for q, _ in story.entries}
    candidates: list[Question] = []
    for other in earlier:
        for relationship in vocabulary.relationships:
            for subject, obj in ((label, other), (other, label)):
                if not relationship.allows(subject.type, obj.type):
                    continue
                for kind in relationship_kinds():
                    question = kind.make(subject, relationship.name, obj, vocabulary)
                    if question not in asked and question not in candidates:
                        candidates.append(question)
    return candidates


def _same_exclusive_group(object_type: ObjectType, attributes: tuple[str, ...]) -> bool:
    groups = {object_type.group_of[a] for a in attributes}
    return len(groups) == 1 and object_type.groups[next(iter(groups))].exclusive and len(attributes) > 1


def attribute_sets(object_type: ObjectType, size: int, conjunctive: bool) -> Iterator[tuple[str, ...]]:
    """Attribute combinations of a given size, in vocabulary order.

    For conjunctions (existence, uniqueness) two values of one exclusive group can never hold together,
    so such sets are left out.
    """
    for attributes in combinations(object_type.attributes, size):
        if conjunctive and _same_exclusive_group(object_type, attributes):
            continue
        yield attributes
