"""Attribute and relationship questions: nested populations (docs/method.md section 7, docs/engine.md).

Attribute question about object k of type t, from the coarsest level to the finest:
1. *pooled*: the annotated objects of type t with known attributes that agree with what the history
   says about k within the attribute groups the question touches ("what the history says" is every
   answered attribute question about k plus the attributes named in the uniqueness question that
   instantiated k; a fact spanning two groups ties them, so the groups are closed under such facts);
2. *facts*: the same objects agreeing with every fact about k, whatever its group;
3. *region*: those of them visible in the region of the uniqueness question that instantiated k (where
   k was found: an object found at the bottom of the image is not a random object of its type);
4. *found*: the objects bound to k in the training images where every label is bound (the objects
   found the way k was found), agreeing with every fact about k;
5. *found where k was found, weighted*: the same objects in the images that also give every
   instantiation answer about k's type in a region intersecting k's defining region (the pooled
   history H'_q of the question that defined k), counted by their image's disagreement with the rest
   of the instantiation history (the weighted level of `kernel.estimates`). The answers that
   narrowed the search down to k ("a walking person in the left half", then "a unique person in its
   lower quarter") say most about k, so an image that disagrees with one of them does not count,
   where one that disagrees with an answer about another type or place counts lambda^d (decision
   0057).

Relationship question about (k, j), likewise: ordered pairs of objects of one image with the types of
(k, j) that agree with the history's facts about the pair within the relationship's group (pooled),
with every fact about the pair (facts), those of them whose subject is visible in the region where k
was found and whose object in the region where j was found (region), then the pairs bound to (k, j)
in the images that give the pooled histories of both defining questions, counted by disagreement
(found, weighted; relationships have no unweighted found level, decision 0034). Both directions count
as being about the pair: "j closer than k" is a fact when asking "k closer than j".

The pooled, facts and region levels work on the fitted histograms (distinct masks with counts, split by
region), never on the objects themselves; the found levels on the one object (or pair) per image the
training state has bound (`attribute_levels` and `relationship_levels` return the plain levels, and
the weighted one per disagreement count; the proposer sums).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from engine.core.statistics import FittedStatistics, Histogram
from engine.core.story import Story
from engine.core.training import TrainingState
from kernel.kinds import AttributeKind, InstantiationKind, kind_of
from kernel.questions import AttributeQuestion, RelationshipQuestion
from kernel.vocabulary import ObjectType

# (the kind of the question that said it, its attributes, its answer): a defining uniqueness question
# says the object has its attributes, an attribute question what its kind says about them.
Fact = tuple[InstantiationKind | AttributeKind, tuple[str, ...], bool]
Level = tuple[int, int]
Found = tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]  # (yes, population) per disagreement count
# Distinct (mask, disagreement count) pairs of bound items and how many items carry each (`tally`).
Tally = tuple[npt.NDArray[np.uint64], npt.NDArray[np.int64], npt.NDArray[np.int64]]

Selection = npt.NDArray[np.bool_]


def _satisfies(
    masks: npt.NDArray[np.uint64],
    kind: InstantiationKind | AttributeKind,
    object_type: ObjectType,
    attributes: tuple[str, ...],
) -> Selection:
    """Per mask: whether an object with it answers yes to a question of this kind about `attributes`."""
    selected: Selection = kind.satisfied_by(masks, [object_type.bit_of[a] for a in attributes])
    return selected


def attribute_facts(story: Story, question: AttributeQuestion) -> list[Fact]:
    """Everything the history says about the question's object: (kind, attributes, answer)."""
    facts: list[Fact] = []
    for record in story.labels:
        if record.label == question.label and record.question.attributes:
            facts.append((_attribute_like(record.question), record.question.attributes, True))
    for asked, said in story.attribute_facts.get(question.label, []):
        facts.append((_attribute_like(asked), asked.attributes, said))
    return facts


def _attribute_like(question: object) -> InstantiationKind | AttributeKind:
    kind = kind_of(question)  # type: ignore[arg-type]
    assert isinstance(kind, InstantiationKind | AttributeKind)
    return kind


def relevant_facts(
    object_type: ObjectType,
    question_attributes: tuple[str, ...],
    facts: list[Fact],
) -> list[Fact]:
    """The facts about groups linked to the question's groups (closure under facts spanning groups)."""
    groups = {object_type.group_of[a] for a in question_attributes}
    chosen: list[Fact] = []
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


def _agreeing(masks: npt.NDArray[np.uint64], object_type: ObjectType, facts: list[Fact]) -> Selection:
    """Per mask: whether it agrees with every fact."""
    selection = np.ones(len(masks), dtype=bool)
    for kind, attributes, said in facts:
        selection &= _satisfies(masks, kind, object_type, attributes) == said
    return selection


def attribute_levels(
    stats: FittedStatistics, story: Story, training: TrainingState, question: AttributeQuestion
) -> tuple[list[Level], Found]:
    """The pooled, facts, region and found levels of an attribute question, and its weighted found level
    by disagreement."""
    object_type = stats.vocabulary.object_type(question.label.type)
    # What the history says of the object: the same for every candidate about it in one history state.
    facts = story.remembered(("attribute facts", question.label), lambda: attribute_facts(story, question))
    type_index = stats.vocabulary.type_index[question.label.type]
    pooled = stats.attribute_histograms[type_index]
    position = [record.label for record in story.labels].index(question.label)
    region = stats.vocabulary.region_index[story.labels[position].question.region]

    def bound() -> tuple[Tally, Selection]:
        # One tally of the bound objects with known attributes, keyed also by whether their image gives
        # the defining history (H'_(q_k)): the found level reads all of it, the weighted one those.
        objects = training.bound_objects(position)
        known = stats.obj_known[objects]
        where_found = training.population_of(type_index, np.array([region]))[0][known]
        masks, disagreements, counts = tally(
            stats.obj_attrs[objects[known]], training.disagreements[known] * 2 + where_found
        )
        return (masks, disagreements >> 1, counts), (disagreements & 1) == 1

    label = question.label
    asked_kind = _attribute_like(question)
    (masks, disagreements, counts), where_found = story.remembered(("found", label), bound)
    agrees_found = story.remembered(("found facts", label), lambda: _agreeing(masks, object_type, facts))
    target = _satisfies(masks, asked_kind, object_type, question.attributes)
    weighted = _found(agrees_found & where_found, target, disagreements, counts, training)
    agrees_all = story.remembered(("facts", label), lambda: _agreeing(pooled.masks, object_type, facts))
    groups = frozenset(object_type.group_of[a] for a in question.attributes)
    agrees_relevant = story.remembered(
        ("relevant facts", label, groups),
        lambda: _agreeing(pooled.masks, object_type, relevant_facts(object_type, question.attributes, facts)),
    )
    # Which of the type's distinct masks answer yes: fixed by the statistics, asked again and again.
    holds_key = ("holds", type_index, asked_kind.name, question.attributes)
    holds = stats.memo.get(holds_key)
    if holds is None:
        holds = stats.memo[holds_key] = _satisfies(pooled.masks, asked_kind, object_type, question.attributes)
    return [
        _count(pooled, agrees_relevant, holds),
        _count(pooled, agrees_all, holds),
        _count_in(pooled.by_region[region], agrees_all, holds),
        _count_in(counts, agrees_found, target),
    ], weighted


def relationship_levels(
    stats: FittedStatistics, story: Story, training: TrainingState, question: RelationshipQuestion
) -> tuple[list[Level], Found]:
    """The pooled, facts and region levels of a relationship question, and its weighted found level by
    disagreement."""
    vocabulary = stats.vocabulary
    types = (vocabulary.type_index[question.subject.type], vocabulary.type_index[question.object.type])
    pooled = stats.pair_histograms[types]
    facts = story.relationship_facts.get(frozenset((question.subject, question.object)), [])
    group = vocabulary.relationship(question.relationship).group
    in_group = [
        (asked, said) for asked, said in facts if vocabulary.relationship(asked.relationship).group == group
    ]
    labels = [record.label for record in story.labels]
    subject, obj = labels.index(question.subject), labels.index(question.object)
    regions = (
        vocabulary.region_index[story.labels[subject].question.region],
        vocabulary.region_index[story.labels[obj].question.region],
    )

    def bound() -> Tally:
        # The images that give the pooled histories of both defining questions (see attribute_levels).
        kept = training.population_of(types[0], np.array([regions[0]]))[0]
        kept &= training.population_of(types[1], np.array([regions[1]]))[0]
        return tally(training.pair_masks(subject, obj)[kept], training.disagreements[kept])

    masks, disagreements, counts = story.remembered(("found", question.subject, question.object), bound)
    found = _found(*_relationship_selection(stats, masks, facts, question), disagreements, counts, training)
    agrees, holds = _relationship_selection(stats, pooled.masks, facts, question)
    return [
        _count(pooled, *_relationship_selection(stats, pooled.masks, in_group, question)),
        _count(pooled, agrees, holds),
        _count_in(pooled.by_region[regions], agrees, holds),
    ], found


def _relationship_selection(
    stats: FittedStatistics,
    masks: npt.NDArray[np.uint64],
    facts: list[tuple[RelationshipQuestion, bool]],
    question: RelationshipQuestion,
) -> tuple[Selection, Selection]:
    """(agrees with every fact, the question holds) per mask of forward and reverse bits."""
    vocabulary = stats.vocabulary
    n_relationships = len(vocabulary.relationships)
    selection = np.ones(len(masks), dtype=bool)
    for asked, said in facts:
        bit = vocabulary.relationship_index[asked.relationship]
        if asked.subject != question.subject:
            bit += n_relationships  # the fact is about the other direction of the pair
        selection &= ((masks >> np.uint64(bit)) & np.uint64(1) == 1) == said
    target_bit = np.uint64(vocabulary.relationship_index[question.relationship])
    return selection, (masks >> target_bit) & np.uint64(1) == 1


def _count(histogram: Histogram, selection: Selection, target: Selection) -> Level:
    return _count_in(histogram.counts, selection, target)


def _count_in(counts: npt.NDArray[np.int64], selection: Selection, target: Selection) -> Level:
    """(yes, population) of the items counted per mask in `counts` (a histogram's counts, one region's
    row of its region split, or a tally's counts)."""
    population = int(counts[selection].sum())
    yes = int(counts[selection & target].sum())
    return yes, population


def tally(masks: npt.NDArray[np.uint64], disagreements: npt.NDArray[np.int64]) -> Tally:
    """The bound items (one per image of B) as distinct (mask, disagreement count) pairs with how many
    items carry each: a few hundred pairs stand for up to a million items, once per history state, and
    every candidate about the label (or pair) then reads those."""
    if len(masks) == 0:
        return masks, disagreements, np.zeros(0, dtype=np.int64)
    order = np.lexsort((disagreements, masks))
    masks, disagreements = masks[order], disagreements[order]
    starts = np.flatnonzero(
        np.r_[True, (masks[1:] != masks[:-1]) | (disagreements[1:] != disagreements[:-1])]
    )
    counts = np.diff(np.r_[starts, len(masks)])
    return masks[starts], disagreements[starts], counts


def _found(
    selection: Selection,
    target: Selection,
    disagreements: npt.NDArray[np.int64],
    counts: npt.NDArray[np.int64],
    training: TrainingState,
) -> Found:
    """(yes, population) of the tallied bound items split by their image's disagreement count."""
    depth = training.answered + 1
    chosen = selection & target
    # Float sums of integer counts are exact below 2**53.
    return (
        np.bincount(disagreements[chosen], weights=counts[chosen], minlength=depth).astype(np.int64),
        np.bincount(disagreements[selection], weights=counts[selection], minlength=depth).astype(np.int64),
    )
