"""Instantiation questions on the whole training set at once (docs/method.md section 7, first rule, with back-off).

For an existence or uniqueness question q in region w there are two nested populations:
- the *full* one: training images consistent with every answered instantiation question of the history
  (H_I, whatever its region);
- the *pooled* one: training images consistent with the reduced history H'_q: every positive uniqueness
  answer (they fix which object each label is) and the existence and uniqueness answers whose region
  intersects w.
The estimate uses the full population when the question is decidable (not ambiguous) on at least
`full_min` of its images, and backs off to the pooled one otherwise (docs/engine.md states it exactly).
`TrainingState` keeps the full population as one boolean vector and, for each region w of the region
set, the boolean vector of images consistent with H'_q for questions in w, and updates them as answers
arrive:
- a positive uniqueness answer removes the images where the question is not answered yes from every
  region's population, and binds, in every remaining image, the object it singled out;
- any other instantiation answer removes the images that answer differently only from the populations
  of the regions that intersect its own;
- every instantiation answer removes the images that answer differently from the full population.
Attribute and relationship answers never touch it: they are dropped from H'_q.

The answer of a question on an image depends on the objects not yet bound, so the state also keeps,
per image, type and region, how many bound objects are visible there (all, and those with unknown
attributes): an instantiation question without attributes is then answered for every image from two
(images x regions) tables, with no pass over objects.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.core.questions import Answer, InstantiationQuestion, Kind
from engine.core.statistics import FittedStatistics

YES, NO, AMBIGUOUS = np.int8(1), np.int8(0), np.int8(2)
CODE = {Answer.YES: YES, Answer.NO: NO, Answer.AMBIGUOUS: AMBIGUOUS}

BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Counts:
    """For a batch of candidates: how many population images answer yes, and the population size.

    Images on which a candidate is ambiguous are in neither count.
    """

    yes: IntArray
    population: IntArray
    full: BoolArray  # whether the full population was used (else the pooled one)


def region_relations(stats: FittedStatistics) -> tuple[BoolArray, BoolArray]:
    """(intersects, contains) as (regions x regions) boolean matrices."""
    regions = stats.vocabulary.regions
    intersects = np.array([[a.intersects(b) for b in regions] for a in regions], dtype=bool)
    contains = np.array([[a.contains(b) for b in regions] for a in regions], dtype=bool)
    return intersects, contains


class TrainingState:
    def __init__(self, stats: FittedStatistics) -> None:
        self.stats = stats
        n_images, n_types, n_regions = stats.visible_counts.shape
        self.intersects, self.contains = region_relations(stats)
        self.consistent = np.ones(n_images, dtype=bool)
        # full: images consistent with every answered instantiation question of the history.
        self.full = np.ones(n_images, dtype=bool)
        # population[w]: images consistent with H'_q for a question localised in region w.
        self.population = np.ones((n_regions, n_images), dtype=bool)
        self.bound = np.zeros(stats.n_objects, dtype=bool)
        # label_objects[i][image]: the object bound to the i-th instantiated label in that image (-1 where
        # the label's uniqueness question was not answered yes).
        self.label_objects: list[IntArray] = []
        self.bound_visible = np.zeros((n_images, n_types, n_regions), dtype=np.int32)
        self.bound_unknown = np.zeros((n_images, n_types, n_regions), dtype=np.int32)
        self._region_bits = np.left_shift(np.uint64(1), np.arange(n_regions, dtype=np.uint64))

    # --- Recording answers ---------------------------------------------------------------------------

    def record(self, question: InstantiationQuestion, answer: Answer) -> None:
        """Condition on an answered (not rejected) instantiation question."""
        codes, singled_out = self.answers(question)
        region = self.stats.vocabulary.region_index[question.region]
        if question.kind == Kind.UNIQUE and answer == Answer.YES:
            agree = codes == YES
            self.consistent &= agree
            self.population &= agree[None, :]
            bound = singled_out[agree[self.stats.obj_image[singled_out]]]
            self._bind(bound)
            per_image = np.full(self.stats.n_images, -1, dtype=np.int64)
            per_image[self.stats.obj_image[bound]] = bound
            self.label_objects.append(per_image)
        else:
            agree = codes == CODE[answer]
            self.population[self.intersects[region]] &= agree[None, :]
        self.full &= agree

    def _bind(self, objects: IntArray) -> None:
        stats = self.stats
        self.bound[objects] = True
        images, types = stats.obj_image[objects], stats.obj_type[objects].astype(np.int64)
        visible = ((stats.obj_vis[objects, None] & self._region_bits[None, :]) != 0).astype(np.int32)
        self.bound_visible[images, types] += visible
        unknown = ~stats.obj_known[objects]
        self.bound_unknown[images[unknown], types[unknown]] += visible[unknown]

    def objects_in_full(self, label_position: int) -> IntArray:
        """The objects bound to the label instantiated `label_position`-th, in the images of F."""
        objects = self.label_objects[label_position][self.full]
        return objects[objects >= 0]

    # --- Answering one question on every image --------------------------------------------------------

    def answers(self, question: InstantiationQuestion) -> tuple[npt.NDArray[np.int8], IntArray]:
        """Per image the answer code; for a uniqueness question also the objects that single it out.

        Only images still consistent with the positive uniqueness answers matter (elsewhere the labels
        mean nothing); the codes of the others are computed but never used.
        """
        stats = self.stats
        t = stats.vocabulary.type_index[question.type]
        w = stats.vocabulary.region_index[question.region]
        wanted = np.uint64(stats.vocabulary.object_type(question.type).mask_of(question.attributes))
        candidates = (stats.obj_type == t) & ~self.bound & ((stats.obj_vis & self._region_bits[w]) != 0)
        if wanted:
            matching = candidates & stats.obj_known & ((stats.obj_attrs & wanted) == wanted)
            unknown = stats.unknown_counts[:, t, w].astype(np.int64) - self.bound_unknown[:, t, w]
        else:
            matching = candidates
            unknown = np.zeros(stats.n_images, dtype=np.int64)
        matches = np.bincount(stats.obj_image[matching], minlength=stats.n_images)
        codes = answer_codes(question.kind, matches, unknown)
        singled_out = (
            np.flatnonzero(matching) if question.kind == Kind.UNIQUE else np.empty(0, dtype=np.int64)
        )
        return codes, singled_out

    # --- Batched estimates ----------------------------------------------------------------------------

    def counts_without_attributes(
        self, type_index: int, regions: Sequence[int], full_min: int
    ) -> dict[Kind, Counts]:
        """exist(t, {}, w) and unique(t, {}, w) for every w in `regions`, from the count tables alone.

        Without attributes no image is ambiguous, so the full population is used for every region at
        once when it holds at least `full_min` images, and the pooled ones otherwise.
        """
        stats = self.stats
        columns = np.asarray(regions, dtype=np.int64)
        images = np.flatnonzero(self.full)
        if len(images) >= full_min:
            remaining = (
                stats.visible_counts[images[:, None], type_index, columns[None, :]].astype(np.int32)
                - self.bound_visible[images[:, None], type_index, columns[None, :]]
            )
            size = np.full(len(columns), len(images), dtype=np.int64)
            used = np.ones(len(columns), dtype=bool)
            return {
                Kind.EXIST: Counts((remaining >= 1).sum(0), size, used),
                Kind.UNIQUE: Counts((remaining == 1).sum(0), size.copy(), used.copy()),
            }
        remaining = (
            stats.visible_counts[:, type_index, columns].astype(np.int32)
            - self.bound_visible[:, type_index, columns]
        )
        population = self.population[columns].T
        unused = np.zeros(len(columns), dtype=bool)
        return {
            Kind.EXIST: Counts(((remaining >= 1) & population).sum(0), population.sum(0), unused),
            Kind.UNIQUE: Counts(((remaining == 1) & population).sum(0), population.sum(0), unused.copy()),
        }

    def counts_with_attributes(
        self, type_index: int, regions: Sequence[int], attribute_masks: Sequence[int], full_min: int
    ) -> dict[Kind, list[Counts]]:
        """exist and unique for every (attribute set, region): one `Counts` per region, over the sets.

        The full population is tried first; the pooled one is computed only for a region where some
        set is decidable on fewer than `full_min` images of the full population.
        """
        stats = self.stats
        masks = np.asarray(attribute_masks, dtype=np.uint64)
        free_known = (stats.obj_type == type_index) & ~self.bound & stats.obj_known
        results: dict[Kind, list[Counts]] = {Kind.EXIST: [], Kind.UNIQUE: []}
        for w in regions:
            unknown = (
                stats.unknown_counts[:, type_index, w].astype(np.int64) - self.bound_unknown[:, type_index, w]
            )
            visible_free_known = free_known & ((stats.obj_vis & self._region_bits[w]) != 0)
            full = self._region_counts(visible_free_known, masks, self.full, unknown)
            needs_pooled = any(bool((c.population < full_min).any()) for c in full)
            pooled = (
                self._region_counts(visible_free_known, masks, self.population[w], unknown)
                if needs_pooled
                else full
            )
            for kind, f, p in zip((Kind.EXIST, Kind.UNIQUE), full, pooled, strict=True):
                use_full = f.population >= full_min
                results[kind].append(
                    Counts(
                        np.where(use_full, f.yes, p.yes),
                        np.where(use_full, f.population, p.population),
                        use_full,
                    )
                )
        return results

    def _region_counts(
        self, candidates: BoolArray, masks: npt.NDArray[np.uint64], population: BoolArray, unknown: IntArray
    ) -> tuple[Counts, Counts]:
        objects = np.flatnonzero(candidates & population[self.stats.obj_image])
        return _counts_for_region(self.stats, objects, masks, population, unknown)


def answer_codes(kind: Kind, matches: IntArray, unknown: IntArray) -> npt.NDArray[np.int8]:
    """`oracle.instantiation_answer`, for every image at once."""
    if kind == Kind.EXIST:
        return np.where(matches >= 1, YES, np.where(unknown > 0, AMBIGUOUS, NO)).astype(np.int8)
    return np.where(
        matches >= 2, NO, np.where(unknown > 0, AMBIGUOUS, np.where(matches == 1, YES, NO))
    ).astype(np.int8)


def _counts_for_region(
    stats: FittedStatistics,
    objects: IntArray,
    masks: npt.NDArray[np.uint64],
    population: BoolArray,
    unknown: IntArray,
) -> tuple[Counts, Counts]:
    """Counts over the population of one region for many attribute sets.

    `objects` are the free known objects of the type visible in the region, in population images.
    An image where none of them matches answers "no" when nothing there has unknown attributes and is
    ambiguous otherwise; only images holding at least one such object need a per-set count.
    """
    certain_no_base = int((population & (unknown == 0)).sum())
    n_sets = len(masks)
    unused = np.zeros(n_sets, dtype=bool)
    if len(objects) == 0:
        zeros = np.zeros(n_sets, dtype=np.int64)
        base = np.full(n_sets, certain_no_base, dtype=np.int64)
        return Counts(zeros, base, unused), Counts(zeros.copy(), base.copy(), unused.copy())
    has = (stats.obj_attrs[objects, None] & masks[None, :]) == masks[None, :]  # (objects, sets)
    images = stats.obj_image[objects]
    starts = np.flatnonzero(np.r_[True, images[1:] != images[:-1]])
    per_image = np.add.reduceat(has.astype(np.int32), starts, axis=0)  # (images with objects, sets)
    no_unknown = (unknown[images[starts]] == 0)[:, None]
    some = per_image >= 1
    # Images counted in certain_no_base that do hold a match are not "no" after all.
    certain_no = certain_no_base - (some & no_unknown).sum(0)
    exist_yes = some.sum(0)
    unique_yes = ((per_image == 1) & no_unknown).sum(0)
    unique_no = (per_image >= 2).sum(0) + certain_no
    return Counts(exist_yes, exist_yes + certain_no, unused), Counts(
        unique_yes, unique_yes + unique_no, unused
    )
