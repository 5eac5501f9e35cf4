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

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from engine.core.truths import truths
from kernel.kinds import InstantiationKind, instantiation_kinds

if TYPE_CHECKING:
    from engine.core.training import Counts, TrainingState

BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]


def counts_without_attributes(
    state: TrainingState, type_index: int, regions: Sequence[int]
) -> dict[str, Counts]:
    """Every instantiation kind's question about the type with no attributes, for every w in
    `regions`, from the free counts (without attributes no image is ambiguous)."""
    from engine.core.training import Counts

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
    free = state.free_known_objects(type_index)
    distinct = state.stats.attribute_histograms[type_index].masks
    # (distinct masks, sets): gathered by object, a row per object, so that summing an image's objects
    # adds whole rows (one step per image, not one per image and set).
    has_set = (distinct[:, None] & masks[None, :]) == masks[None, :]
    classes, depth = state.classes, state.answered + 1
    columns = np.asarray(regions, dtype=np.int64)
    bits = state.region_bits[columns]
    population = classes.population_by_disagreement(type_index, bits, depth)
    in_population = classes.in_population(type_index, bits)
    object_class = classes.of_image[free.positions]
    results: dict[str, list[Counts]] = {kind.name: [] for kind in instantiation_kinds()}
    for row, w in enumerate(columns):
        kept = ((free.vis & bits[row]) != 0) & in_population[row, object_class]
        unknown_images = state.with_unknown(type_index, int(w))
        unknown_images = unknown_images[in_population[row, classes.of_image[unknown_images]]]
        by_kind = _region_counts(
            state,
            free.positions[kept],
            has_set[free.classes[kept]],
            unknown_images,
            population[row],
            state.free_unknown[type_index, w],
        )
        for name, counts in by_kind.items():
            results[name].append(counts)
    return results


def _region_counts(
    state: TrainingState,
    positions: IntArray,
    has: BoolArray,
    unknown_images: IntArray,
    population: IntArray,
    unknown: npt.NDArray[np.uint16],
) -> dict[str, Counts]:
    """Every instantiation kind's counts over the population of one region for many attribute sets.

    `positions` are the images (in B) of the free known objects of the type visible in the region, in
    population images, in image order, and `has` (objects, sets) whether each has each set's
    attributes; `unknown_images` the population images where an object of the type with unknown
    attributes may be free there, `population` the population by d and `unknown` the unknown counts
    per image of B. Images holding a known object get a count per set; the others match nothing, and
    differ only by their unknown count: those with one are taken one by one, the rest all at once.
    """
    from engine.core.training import Counts

    classes, depth = state.classes, state.answered + 1
    n_sets = has.shape[1]
    if len(positions):
        starts = np.flatnonzero(np.r_[True, positions[1:] != positions[:-1]])
        per_image = np.add.reduceat(has, starts, axis=0, dtype=np.int32)  # (images with objects, sets)
        holding = positions[starts]
    else:
        per_image, holding = np.zeros((0, n_sets), dtype=np.int32), np.zeros(0, dtype=np.int64)
    held = classes.disagreements[classes.of_image[holding]]
    order = np.argsort(held, kind="stable")  # by d, so that one reduceat splits a count by d
    held, matches, held_unknown = held[order], per_image[order].T, unknown[holding[order]]
    others = unknown_images[~np.isin(unknown_images, holding, assume_unique=True)]
    others_d = classes.disagreements[classes.of_image[others]]
    others_unknown = unknown[others]
    rest = population - np.bincount(held, minlength=depth) - np.bincount(others_d, minlength=depth)
    nothing = np.zeros(1, dtype=np.int32)
    counts = {}
    for kind in instantiation_kinds():
        yes, decided = truths(kind, matches, held_unknown)
        others_yes, others_decided = truths(kind, np.zeros(len(others), dtype=np.int32), others_unknown)
        rest_yes, rest_decided = truths(kind, nothing, nothing)
        counts[kind.name] = Counts(
            _by_sorted_disagreement(yes, held, depth)
            + np.bincount(others_d[others_yes], minlength=depth)
            + rest * int(rest_yes[0]),
            _by_sorted_disagreement(decided, held, depth)
            + np.bincount(others_d[others_decided], minlength=depth)
            + rest * int(rest_decided[0]),
        )
    return counts


def _by_sorted_disagreement(indicator: BoolArray, disagreements: IntArray, depth: int) -> IntArray:
    """Per row of `indicator` (columns: images sorted by their d, `disagreements`), how many columns
    are true, split by d: shaped (rows, depth). One reduceat over the runs of equal d."""
    counts = np.zeros((indicator.shape[0], depth), dtype=np.int64)
    if len(disagreements):
        starts = np.flatnonzero(np.r_[True, disagreements[1:] != disagreements[:-1]])
        # Along the images' axis of the transpose: one step per run, whole rows of sets at a time.
        counts[:, disagreements[starts]] = np.add.reduceat(indicator.T, starts, axis=0, dtype=np.int64).T
    return counts


def _holds_on_nothing(kind: InstantiationKind) -> bool:
    """Whether a kind's question is answered yes on an image where no object is free (exist: no)."""
    return bool(np.asarray(kind.holds(np.zeros(1, dtype=np.int64)))[0])
