"""Instantiation questions answered on every image of B at once, batched by region (docs/engine.md, "Why
it is fast"; decision 0100).

Each region's population is split by d from the history classes (`engine.core.history_classes`), a
sum over a few dozen classes. Only the images that hold something of interest in the region are looked
at one by one: without attributes, those where an object of the type is still free there; with
attributes, those holding a free object with known attributes, or one with unknown attributes. Every
other image of the population holds nothing there, so it answers every candidate alike: it is counted
once, as the population less the images looked at. The counts are those of a pass over every image
(`tests/engine/core/test_instantiation_counts.py` compares them with one on random histories).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from engine.core.free_objects import FreeObjects
from engine.core.history_classes import HistoryClasses
from engine.core.statistics import FittedStatistics
from engine.core.truths import truths
from kernel.kinds import InstantiationKind, instantiation_kinds

BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Counts:
    """For a batch of k candidates over the pooled population P: how many images answer yes, and how
    many are decidable, split by d, the number of the history's instantiation answers the image
    disagrees with (arrays shaped (k, d + 1)). Summing over d gives the pooled level; weighting by
    lambda^d, the consistency-weighted one (`kernel.estimates`). Images on which a candidate is
    ambiguous are in neither count."""

    yes: IntArray
    population: IntArray


class TrainingState(Protocol):
    """What the counts read of `engine.core.training.TrainingState` (which calls them)."""

    stats: FittedStatistics
    classes: HistoryClasses
    answered: int
    region_bits: npt.NDArray[np.uint64]
    free_visible: npt.NDArray[np.uint16]
    free_unknown: npt.NDArray[np.uint16]

    def free_objects(self, type_index: int) -> FreeObjects: ...

    def known_visible(self, type_index: int, region: int) -> npt.NDArray[np.int32]: ...

    def occupied(self, type_index: int, region: int) -> npt.NDArray[np.int32]: ...

    def with_unknown(self, type_index: int, region: int) -> npt.NDArray[np.int32]: ...


def counts_without_attributes(
    state: TrainingState, type_index: int, regions: Sequence[int]
) -> dict[str, Counts]:
    """Every instantiation kind's question about the type with no attributes, for every w in
    `regions`, from the free counts (without attributes no image is ambiguous)."""
    columns = np.asarray(regions, dtype=np.int64)
    classes, depth = state.classes, state.answered + 1
    bits = state.region_bits[columns]
    population = classes.population_by_disagreement(type_index, bits, depth)
    in_population = classes.in_population(type_index, bits)
    kinds = instantiation_kinds()
    yes = {kind.name: np.zeros((len(columns), depth), dtype=np.int64) for kind in kinds}
    for row, w in enumerate(columns):
        images = state.occupied(type_index, int(w))
        of_class = classes.of_image[images]
        inside = in_population[row, of_class]
        free = state.free_visible[type_index, w, images[inside]]
        d = classes.disagreements[of_class[inside]]
        rest = population[row] - np.bincount(d, minlength=depth)  # no free object of the type there
        for kind in kinds:
            holds = np.asarray(kind.holds(free), dtype=bool)
            yes[kind.name][row] = np.bincount(d[holds], minlength=depth)
            if _holds_on_nothing(kind):
                yes[kind.name][row] += rest
    return {name: Counts(counts, population.copy()) for name, counts in yes.items()}


def counts_with_attributes(
    state: TrainingState, type_index: int, regions: Sequence[int], attribute_masks: Sequence[int]
) -> dict[str, list[Counts]]:
    """Every instantiation kind's question for every (attribute set, region): one `Counts` per
    region, over the sets."""
    masks = np.asarray(attribute_masks, dtype=np.uint64)
    # Only the free objects of the type with known attributes can match. Whether an object has a
    # set's attributes is read from a (sets x distinct masks) table: a type has a few hundred
    # distinct masks and may have millions of objects.
    free = state.free_objects(type_index)
    distinct = state.stats.attribute_histograms[type_index].masks
    # (distinct masks, sets): gathered by object, a row per object, so that summing an image's objects
    # adds whole rows (one step per image, not one per image and set).
    has_set = (distinct[:, None] & masks[None, :]) == masks[None, :]
    classes, depth = state.classes, state.answered + 1
    columns = np.asarray(regions, dtype=np.int64)
    bits = state.region_bits[columns]
    population = classes.population_by_disagreement(type_index, bits, depth)
    in_population = classes.in_population(type_index, bits)
    results: dict[str, list[Counts]] = {kind.name: [] for kind in instantiation_kinds()}
    nothing = np.zeros(1, dtype=np.int32)
    on_nothing = {
        kind.name: tuple(int(answer[0]) for answer in truths(kind, nothing, nothing))
        for kind in instantiation_kinds()
    }
    for row, w in enumerate(columns):
        visible = state.known_visible(type_index, int(w))
        kept = visible[in_population[row, classes.of_image[free.positions[visible]]]]
        unknown_images = state.with_unknown(type_index, int(w))
        unknown_images = unknown_images[in_population[row, classes.of_image[unknown_images]]]
        if not len(kept) and not len(unknown_images):  # nothing there: the whole population alike
            by_kind = _answers_by_part([], population[row], on_nothing, len(masks), depth)
        else:
            by_kind = _region_counts(
                state,
                free.positions[kept],
                free.classes[kept],
                has_set,
                unknown_images,
                population[row],
                state.free_unknown[type_index, w],
                on_nothing,
            )
        for name, counts in by_kind.items():
            results[name].append(counts)
    return results


def _region_counts(
    state: TrainingState,
    positions: IntArray,
    object_classes: npt.NDArray[np.int32],
    has_set: BoolArray,
    unknown_images: IntArray,
    population: IntArray,
    unknown: npt.NDArray[np.uint16],
    on_nothing: dict[str, tuple[int, ...]],
) -> dict[str, Counts]:
    """Every instantiation kind's counts over the population of one region for many attribute sets.

    `positions` are the images (in B) of the free known objects of the type visible in the region, in
    population images, in image order, `object_classes` their attribute classes and `has_set`
    (classes, sets) whether a class has each set's attributes; `unknown_images` the population images
    where an object of the type with unknown attributes may be free there, `population` the population
    by d and `unknown` the unknown counts per image of B. Images holding one known object are counted
    per (class, unknown count, d); only images holding several get a count per set. The others match
    nothing: those with unknown objects are taken one by one, the rest all at once (`on_nothing`).
    """
    depth = state.answered + 1
    starts = _run_starts(positions)
    lengths = np.diff(np.append(starts, len(positions)))
    holding, single = positions[starts], lengths == 1
    one = holding[single]
    one_d = _disagreements(state, one)
    in_many = np.repeat(~single, lengths)
    many_d, many_matches, many_unknown = _per_image(
        state, positions[in_many], has_set[object_classes[in_many]], unknown
    )
    others = (
        unknown_images[~np.isin(unknown_images, holding, assume_unique=True)]
        if len(unknown_images)
        else unknown_images
    )
    others_d = _disagreements(state, others)
    rest = population - sum(np.bincount(d, minlength=depth) for d in (one_d, many_d, others_d))
    # Each part that holds images: (matches per set, unknown counts, how its answers are split by d).
    parts: list[Part] = []
    if len(one):
        pairs, table = _class_table(object_classes[starts[single]], unknown[one], one_d, len(has_set), depth)
        # One row per (class, unknown count) present: the images holding one known object of that class.
        parts.append(
            (
                has_set[pairs[:, 0]].astype(np.int32).T,
                pairs[:, 1],
                lambda x: np.rint(x @ table).astype(np.int64),
            )
        )
    if len(many_d):
        parts.append((many_matches, many_unknown, lambda x: _by_sorted_disagreement(x, many_d, depth)))
    if len(others):
        parts.append(
            (
                np.zeros((1, len(others)), dtype=np.int32),
                unknown[others],
                lambda x: np.bincount(others_d[x[0]], minlength=depth)[None, :],
            )
        )
    return _answers_by_part(parts, rest, on_nothing, has_set.shape[1], depth)


Part = tuple[npt.NDArray[np.int32], npt.NDArray[Any], Callable[[BoolArray], IntArray]]


def _answers_by_part(
    parts: list[Part], rest: IntArray, on_nothing: dict[str, tuple[int, ...]], n_sets: int, depth: int
) -> dict[str, Counts]:
    """Every kind's (yes, decided) counts by d: each part's answers split by d, plus the rest of the
    population, which holds no free object of the type there and answers alike."""
    counts = {}
    for kind in instantiation_kinds():
        yes, decided = (
            np.zeros((n_sets, depth), dtype=np.int64) + rest * answer for answer in on_nothing[kind.name]
        )
        for matches, unknown_counts, split in parts:
            part_yes, part_decided = truths(kind, matches, unknown_counts)
            yes += split(part_yes)
            decided += split(part_decided)
        counts[kind.name] = Counts(yes, decided)
    return counts


def _run_starts(positions: IntArray) -> IntArray:
    """Where each run of equal values of a sorted array starts."""
    if not len(positions):
        return positions
    return np.concatenate(([True], positions[1:] != positions[:-1])).nonzero()[0]


def _disagreements(state: TrainingState, images: IntArray) -> IntArray:
    classes = state.classes
    d: IntArray = classes.disagreements[classes.of_image[images]]
    return d


def _class_table(
    object_classes: npt.NDArray[np.int32],
    unknown: npt.NDArray[np.uint16],
    d: IntArray,
    n_classes: int,
    depth: int,
) -> tuple[IntArray, FloatArray]:
    """The images holding one known object, counted per (its class, the image's unknown count) and by
    d: the (class, unknown count) pairs present, as two columns, and their counts by d, as floats (a
    matrix product with them is exact: every count is far below 2**53)."""
    n_unknown = int(unknown.max()) + 1 if len(unknown) else 1
    pair = object_classes.astype(np.int64) * n_unknown + unknown
    present = np.bincount(pair, minlength=n_classes * n_unknown).nonzero()[0]
    index = np.zeros(n_classes * n_unknown, dtype=np.int64)
    index[present] = np.arange(len(present))
    table = np.bincount(index[pair] * depth + d, minlength=len(present) * depth).reshape(-1, depth)
    return np.column_stack([present // n_unknown, present % n_unknown]), table.astype(np.float64)


def _per_image(
    state: TrainingState, positions: IntArray, has: BoolArray, unknown: npt.NDArray[np.uint16]
) -> tuple[IntArray, npt.NDArray[np.int32], npt.NDArray[np.uint16]]:
    """For the images holding several known objects (`positions`, one per object, `has` (objects,
    sets)): their d, their matches per set (sets, images) and their unknown counts, sorted by d so
    that one reduceat splits a count by d."""
    if len(positions):
        starts = _run_starts(positions)
        per_image = np.add.reduceat(has, starts, axis=0, dtype=np.int32)  # (images, sets)
        holding = positions[starts]
    else:
        per_image, holding = np.zeros((0, has.shape[1]), dtype=np.int32), positions
    held = _disagreements(state, holding)
    order = np.argsort(held, kind="stable")
    return held[order], per_image[order].T, unknown[holding[order]]


def _by_sorted_disagreement(indicator: BoolArray, disagreements: IntArray, depth: int) -> IntArray:
    """Per row of `indicator` (columns: images sorted by their d, `disagreements`), how many columns
    are true, split by d: shaped (rows, depth). One reduceat over the runs of equal d."""
    counts = np.zeros((indicator.shape[0], depth), dtype=np.int64)
    if len(disagreements):
        starts = _run_starts(disagreements)
        # Along the images' axis of the transpose: one step per run, whole rows of sets at a time.
        counts[:, disagreements[starts]] = np.add.reduceat(indicator.T, starts, axis=0, dtype=np.int64).T
    return counts


def _holds_on_nothing(kind: InstantiationKind) -> bool:
    """Whether a kind's question is answered yes on an image where no object is free (exist: no)."""
    return bool(np.asarray(kind.holds(np.zeros(1, dtype=np.int64)))[0])
