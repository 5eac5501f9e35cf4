"""Attribute and relationship questions, pooled over objects and pairs (docs/method.md section 7).

Attribute question about object k of type t: the population is the annotated objects of type t with
known attributes that agree with what the history says about k within the attribute groups the
question touches. "What the history says" is every answered attribute question about k plus the
attributes named in the uniqueness question that instantiated k. Groups are assumed independent given
the type, so facts about other groups are dropped; a fact that spans two groups (an and/or of values
from two groups) ties them together, so the groups considered are closed under such facts.

Relationship question about (k, j): the population is the ordered pairs of annotated objects of the
same image with the types of (k, j), that agree with what the history says about this pair within the
relationship's group. Both directions count as being about the pair: "j closer than k" is a fact when
asking "k closer than j".

Both work on the fitted histograms (distinct masks with counts), never on the objects themselves.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from engine.core.questions import AttributeQuestion, Kind, RelationshipQuestion
from engine.core.statistics import FittedStatistics, Histogram
from engine.core.story import Story
from engine.core.vocabulary import ObjectType

Selection = npt.NDArray[np.bool_]


def _satisfies(masks: npt.NDArray[np.uint64], kind: Kind, wanted: int) -> Selection:
    wanted_mask = np.uint64(wanted)
    selected: Selection = (
        (masks & wanted_mask) != 0 if kind == Kind.ATTR_OR else (masks & wanted_mask) == wanted_mask
    )
    return selected


def attribute_facts(story: Story, question: AttributeQuestion) -> list[tuple[Kind, tuple[str, ...], bool]]:
    """Everything the history says about the question's object: (kind, attributes, answer)."""
    facts: list[tuple[Kind, tuple[str, ...], bool]] = []
    for record in story.labels:
        if record.label == question.label and record.question.attributes:
            facts.append((Kind.ATTR_AND, record.question.attributes, True))
    for asked, said in story.attribute_facts.get(question.label, []):
        facts.append((asked.kind, asked.attributes, said))
    return facts


def relevant_facts(
    object_type: ObjectType,
    question_attributes: tuple[str, ...],
    facts: list[tuple[Kind, tuple[str, ...], bool]],
) -> list[tuple[Kind, tuple[str, ...], bool]]:
    """The facts about groups linked to the question's groups (closure under facts spanning groups)."""
    groups = {object_type.group_of[a] for a in question_attributes}
    chosen: list[tuple[Kind, tuple[str, ...], bool]] = []
    remaining = list(facts)
    changed = True
    while changed:
        changed = False
        for fact in list(remaining):
            fact_groups = {object_type.group_of[a] for a in fact[1]}
            if fact_groups & groups:
                groups |= fact_groups
                chosen.append(fact)
                remaining.remove(fact)
                changed = True
    return chosen


def attribute_counts_full(
    stats: FittedStatistics, story: Story, question: AttributeQuestion, objects: npt.NDArray[np.int64]
) -> tuple[int, int]:
    """(yes, population) over `objects` (the objects bound to the question's label in the images
    consistent with the full instantiation history) with known attributes that satisfy every fact the
    history gives about the label, whatever its group."""
    object_type = stats.vocabulary.object_type(question.label.type)

    def population() -> npt.NDArray[np.uint64]:
        known = objects[stats.obj_known[objects]]
        masks = stats.obj_attrs[known]
        selection = np.ones(len(known), dtype=bool)
        for kind, attributes, said in attribute_facts(story, question):
            selection &= _satisfies(masks, kind, object_type.mask_of(attributes)) == said
        selected: npt.NDArray[np.uint64] = masks[selection]
        return selected

    # The same for every candidate about this label at this point of the history.
    masks = story.remembered(("full", question.label), population)
    target = _satisfies(masks, question.kind, object_type.mask_of(question.attributes))
    return int(target.sum()), len(masks)


def attribute_counts(stats: FittedStatistics, story: Story, question: AttributeQuestion) -> tuple[int, int]:
    """(yes, population) for an attribute question, pooled over all objects of the type."""
    object_type = stats.vocabulary.object_type(question.label.type)
    histogram = stats.attribute_histograms[stats.vocabulary.type_index[question.label.type]]

    def population() -> Histogram:
        selection = np.ones(len(histogram.masks), dtype=bool)
        for kind, attributes, said in relevant_facts(
            object_type, question.attributes, attribute_facts(story, question)
        ):
            selection &= _satisfies(histogram.masks, kind, object_type.mask_of(attributes)) == said
        return Histogram(histogram.masks[selection], histogram.counts[selection])

    # The same for every candidate about this label whose attributes fall in the same groups.
    groups = frozenset(object_type.group_of[a] for a in question.attributes)
    selected = story.remembered(("pooled", question.label, groups), population)
    target = _satisfies(selected.masks, question.kind, object_type.mask_of(question.attributes))
    return int(selected.counts[target].sum()), int(selected.counts.sum())


def relationship_counts(
    stats: FittedStatistics, story: Story, question: RelationshipQuestion
) -> tuple[int, int]:
    """(yes, population) for a relationship question."""
    vocabulary = stats.vocabulary
    n_relationships = len(vocabulary.relationships)
    histogram = stats.pair_histograms[
        (vocabulary.type_index[question.subject.type], vocabulary.type_index[question.object.type])
    ]
    group = vocabulary.relationship(question.relationship).group
    selection = np.ones(len(histogram.masks), dtype=bool)
    for asked, said in story.relationship_facts.get(frozenset((question.subject, question.object)), []):
        if vocabulary.relationship(asked.relationship).group != group:
            continue
        bit = vocabulary.relationship_index[asked.relationship]
        if asked.subject != question.subject:
            bit += n_relationships  # the fact is about the other direction of the pair
        selection &= ((histogram.masks >> np.uint64(bit)) & np.uint64(1) == 1) == said
    target_bit = np.uint64(vocabulary.relationship_index[question.relationship])
    target = (histogram.masks >> target_bit) & np.uint64(1) == 1
    return _count(histogram, selection, target)


def _count(histogram: Histogram, selection: Selection, target: Selection) -> tuple[int, int]:
    population = int(histogram.counts[selection].sum())
    yes = int(histogram.counts[selection & target].sum())
    return yes, population
