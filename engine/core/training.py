"""Instantiation questions on the whole training set at once (docs/method.md section 7, docs/engine.md).

For an existence or uniqueness question q in region w the population is P: the training images
consistent with the reduced history H'_q (every positive uniqueness answer, which fixes which object
each label is, and the existence and uniqueness answers about q's type whose region intersects w).
Each image of P
also has a disagreement count d: how many of the history's instantiation answers (whatever their
region) it disagrees with. Counts are kept per d, so the estimator can take P as it is (the pooled
level) and weighted by lambda^d (the consistency-weighted level; `engine.core.estimates`).

`TrainingState` keeps, for each type t and region w, whether each image is consistent with H'_q for
questions about t in w (one 64-bit region mask per type and image), the vector B of images consistent with every positive
uniqueness answer, and each image's d, and updates them as answers arrive:
- a positive uniqueness answer removes the images where the question is not answered yes from B and
  from every region's population, and binds, in every remaining image, the object it singled out;
- any other instantiation answer removes the images that answer differently only from the populations
  of its own type in the regions that intersect its region;
- every instantiation answer adds one to the d of the images that answer differently.
Attribute and relationship answers never touch it.

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
    """For a batch of k candidates over the pooled population P: how many images answer yes, and how
    many are decidable, split by d, the number of the history's instantiation answers the image
    disagrees with (arrays shaped (k, d + 1)). Summing over d gives the pooled level; weighting by
    lambda^d, the consistency-weighted one (`engine.core.estimates`). Images on which a candidate is
    ambiguous are in neither count."""

    yes: IntArray
    population: IntArray


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
        # disagreements[image]: how many instantiation answers of the history the image disagrees with
        # (meaningful on the images of `consistent`, where every label is bound).
        self.disagreements = np.zeros(n_images, dtype=np.int64)
        self.answered = 0
        # Bit w of population_bits[t, image]: the image is consistent with H'_q for a question about
        # type t localised in region w (a region set has at most 64 regions, as in `obj_vis`).
        every_region = np.uint64((1 << n_regions) - 1) if n_regions < 64 else ~np.uint64(0)
        self.population_bits = np.full((n_types, n_images), every_region, dtype=np.uint64)
        self.bound = np.zeros(stats.n_objects, dtype=bool)
        # label_objects[i][image]: the object bound to the i-th instantiated label in that image (-1 where
        # the label's uniqueness question was not answered yes).
        self.label_objects: list[IntArray] = []
        self.bound_visible = np.zeros((n_images, n_types, n_regions), dtype=np.int32)
        self.bound_unknown = np.zeros((n_images, n_types, n_regions), dtype=np.int32)
        self._region_bits = np.left_shift(np.uint64(1), np.arange(n_regions, dtype=np.uint64))
        self._by_type: dict[int, IntArray] = {}
        # _intersecting_bits[r]: the regions that intersect region r, as a bit mask.
        self._intersecting_bits = np.array(
            [np.bitwise_or.reduce(self._region_bits[self.intersects[r]]) for r in range(n_regions)],
            dtype=np.uint64,
        )

    # --- Recording answers ---------------------------------------------------------------------------

    def record(self, question: InstantiationQuestion, answer: Answer) -> None:
        """Condition on an answered (not rejected) instantiation question."""
        codes, singled_out = self.answers(question)
        region = self.stats.vocabulary.region_index[question.region]
        if question.kind == Kind.UNIQUE and answer == Answer.YES:
            agree = codes == YES
            self.consistent &= agree
            self.population_bits[:, ~agree] = 0
            bound = singled_out[agree[self.stats.obj_image[singled_out]]]
            self._bind(bound)
            per_image = np.full(self.stats.n_images, -1, dtype=np.int64)
            per_image[self.stats.obj_image[bound]] = bound
            self.label_objects.append(per_image)
        else:
            agree = codes == CODE[answer]
            t = self.stats.vocabulary.type_index[question.type]
            self.population_bits[t, ~agree] &= ~self._intersecting_bits[region]
        self.disagreements += ~agree
        self.answered += 1

    def _bind(self, objects: IntArray) -> None:
        stats = self.stats
        self.bound[objects] = True
        images, types = stats.obj_image[objects], stats.obj_type[objects].astype(np.int64)
        visible = ((stats.obj_vis[objects, None] & self._region_bits[None, :]) != 0).astype(np.int32)
        self.bound_visible[images, types] += visible
        unknown = ~stats.obj_known[objects]
        self.bound_unknown[images[unknown], types[unknown]] += visible[unknown]

    def bound_objects(self, label_position: int) -> IntArray:
        """The objects bound to the label instantiated `label_position`-th, one per image consistent with
        every positive uniqueness answer, in image order."""
        return self.label_objects[label_position][self.consistent]

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

    def population_of(self, type_index: int, regions: IntArray, images: IntArray) -> BoolArray:
        """(images, regions): whether each image is in the pooled population of a question about the
        type in each region."""
        bits = self.population_bits[type_index, images]
        in_population: BoolArray = (bits[:, None] & self._region_bits[regions][None, :]) != 0
        return in_population

    def by_disagreement(self, indicator: npt.NDArray[np.bool_], images: IntArray) -> IntArray:
        """Per column of `indicator` (rows: `images`), how many rows are true, split by the images'
        disagreement counts: shaped (columns, answered + 1).

        One pass per disagreement count present (a history of a few dozen answers leaves a handful
        of distinct counts among the images of a population), not a pass per cell."""
        depth = self.answered + 1
        counts = np.zeros((indicator.shape[1], depth), dtype=np.int64)
        disagreements = self.disagreements[images]
        present = np.flatnonzero(np.bincount(disagreements, minlength=depth))
        if len(present) == 1:
            counts[:, present[0]] = np.count_nonzero(indicator, axis=0)
            return counts
        for d in present:
            counts[:, d] = np.count_nonzero(indicator[disagreements == d], axis=0)
        return counts

    def counts_without_attributes(self, type_index: int, regions: Sequence[int]) -> dict[Kind, Counts]:
        """exist(t, {}, w) and unique(t, {}, w) for every w in `regions`, from the count tables alone.

        Without attributes no image is ambiguous. Only images consistent with every positive uniqueness
        answer can be in a population, so only those are read."""
        stats = self.stats
        columns = np.asarray(regions, dtype=np.int64)
        images = np.flatnonzero(self.consistent)
        if len(images) == stats.n_images:
            visible = stats.visible_counts[:, type_index, :][:, columns]
            bound = self.bound_visible[:, type_index, :][:, columns]
        else:
            visible = stats.visible_counts[images[:, None], type_index, columns[None, :]]
            bound = self.bound_visible[images[:, None], type_index, columns[None, :]]
        remaining = visible.astype(np.int32) - bound
        pooled = self.population_of(type_index, columns, images)
        size = self.by_disagreement(pooled, images)
        return {
            Kind.EXIST: Counts(self.by_disagreement((remaining >= 1) & pooled, images), size),
            Kind.UNIQUE: Counts(self.by_disagreement((remaining == 1) & pooled, images), size.copy()),
        }

    def counts_with_attributes(
        self, type_index: int, regions: Sequence[int], attribute_masks: Sequence[int]
    ) -> dict[Kind, list[Counts]]:
        """exist and unique for every (attribute set, region): one `Counts` per region, over the sets."""
        stats = self.stats
        masks = np.asarray(attribute_masks, dtype=np.uint64)
        # Only the images where every label is bound, and their free objects of the type with known
        # attributes, can count; what does not depend on the region is computed once.
        images = np.flatnonzero(self.consistent)
        objects = self._objects_of_type(type_index)
        objects = objects[
            ~self.bound[objects] & stats.obj_known[objects] & self.consistent[stats.obj_image[objects]]
        ]
        object_vis = stats.obj_vis[objects]
        object_population = self.population_bits[type_index, stats.obj_image[objects]]
        has = (stats.obj_attrs[objects, None] & masks[None, :]) == masks[None, :]  # (objects, sets)
        image_population = self.population_bits[type_index, images]
        columns = np.asarray(regions, dtype=np.int64)
        unknown = stats.unknown_counts[images, type_index][:, columns].astype(np.int64)
        unknown -= self.bound_unknown[images, type_index][:, columns]
        results: dict[Kind, list[Counts]] = {Kind.EXIST: [], Kind.UNIQUE: []}
        for c, w in enumerate(columns):
            bit = self._region_bits[w]
            kept = ((object_vis & bit) != 0) & ((object_population & bit) != 0)
            in_population = (image_population & bit) != 0
            exist, unique = self._region_counts(
                objects[kept], has[kept], images, in_population, unknown[:, c]
            )
            results[Kind.EXIST].append(exist)
            results[Kind.UNIQUE].append(unique)
        return results

    def _objects_of_type(self, type_index: int) -> IntArray:
        """Every object of the type, in image order (computed once per stream)."""
        if type_index not in self._by_type:
            self._by_type[type_index] = np.flatnonzero(self.stats.obj_type == type_index)
        return self._by_type[type_index]

    def _region_counts(
        self, objects: IntArray, has: BoolArray, images: IntArray, population: BoolArray, unknown: IntArray
    ) -> tuple[Counts, Counts]:
        """(exist, unique) counts over the population of one region for many attribute sets.

        `objects` are the free known objects of the type visible in the region, in population images, and
        `has` (objects, sets) whether each has each set's attributes; `population` and `unknown` are per
        image of `images` (the images where every label is bound). An image where none of the objects
        matches answers "no" when nothing there has unknown attributes and is ambiguous otherwise; only
        images holding at least one such object need a per-set count.
        """
        stats = self.stats
        n_sets = has.shape[1]
        certain = images[population & (unknown == 0)]
        # Before looking at objects: every certain image answers "no" to every set.
        certain_no = np.broadcast_to(
            np.bincount(self.disagreements[certain], minlength=self.answered + 1), (n_sets, self.answered + 1)
        )
        zeros = np.zeros((n_sets, self.answered + 1), dtype=np.int64)
        if len(objects) == 0:
            return Counts(zeros, certain_no.copy()), Counts(zeros.copy(), certain_no.copy())
        object_images = stats.obj_image[objects]
        starts = np.flatnonzero(np.r_[True, object_images[1:] != object_images[:-1]])
        per_image = np.add.reduceat(has.astype(np.int32), starts, axis=0)  # (images with objects, sets)
        holding = object_images[starts].astype(np.int64)
        no_unknown = (unknown[np.searchsorted(images, holding)] == 0)[:, None]
        some = per_image >= 1
        # Certain images that do hold a match are not "no" after all.
        certain_no = certain_no - self.by_disagreement(some & no_unknown, holding)
        exist_yes = self.by_disagreement(some, holding)
        unique_yes = self.by_disagreement((per_image == 1) & no_unknown, holding)
        unique_no = self.by_disagreement(per_image >= 2, holding) + certain_no
        return Counts(exist_yes, exist_yes + certain_no), Counts(unique_yes, unique_yes + unique_no)


def answer_codes(kind: Kind, matches: IntArray, unknown: IntArray) -> npt.NDArray[np.int8]:
    """`oracle.instantiation_answer`, for every image at once."""
    if kind == Kind.EXIST:
        return np.where(matches >= 1, YES, np.where(unknown > 0, AMBIGUOUS, NO)).astype(np.int8)
    return np.where(
        matches >= 2, NO, np.where(unknown > 0, AMBIGUOUS, np.where(matches == 1, YES, NO))
    ).astype(np.int8)
