"""Instantiation questions on the whole training set at once (docs/method.md section 7, docs/engine.md).

For an existence or uniqueness question q in region w the population is P: the training images
consistent with the reduced history H'_q (every positive uniqueness answer, which fixes which object
each label is, and the existence and uniqueness answers about q's type whose region intersects w).
Each image of P
also has a disagreement count d: how many of the history's instantiation answers (whatever their
region) it disagrees with. Counts are kept per d, so the estimator can take P as it is (the pooled
level) and weighted by lambda^d (the consistency-weighted level; `kernel.estimates`).

`TrainingState` keeps B, the images consistent with every positive uniqueness answer, and for each
image of B its d and, for each type t and region w, whether it is consistent with H'_q for questions
about t in w (one 64-bit region mask per type and image). It updates them as answers arrive:
- a positive uniqueness answer shrinks B to the images where the question is answered yes and binds,
  in each, the object it singled out;
- any other instantiation answer removes the images that answer differently only from the populations
  of its own type in the regions that intersect its region;
- every instantiation answer adds one to the d of the images that answer differently.
Attribute and relationship answers never touch it.

Every per-image array is kept over B alone, compacted each time B shrinks: a stream's answers halve B
again and again, so most proposals read a small part of a large training set (at a million images
this is what keeps a proposal in milliseconds).

The answer of a question on an image depends on the objects not yet bound, so the state also keeps,
per image of B, type and region, how many free (unbound) objects are visible there (all, and those
with unknown attributes): an instantiation question without attributes is then answered for every
image from two (images x regions) tables, with no pass over objects; with attributes, from the free
objects of the type, kept per type.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

from engine.core import instantiation_counts
from engine.core.free_objects import FreeObjects
from engine.core.history_classes import HistoryClasses
from engine.core.instantiation_counts import Counts
from engine.core.statistics import FittedStatistics
from engine.core.truths import CODE, YES, answer_codes, instantiation_kind
from kernel.questions import Answer, InstantiationQuestion

BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]


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
        # B, the images consistent with every positive uniqueness answer (the only ones where the labels
        # mean something), in image order. Every per-image array below is over B alone and is compacted
        # when B shrinks, so a proposal late in a stream reads the few images still consistent, not the
        # whole training set.
        self.images: IntArray = np.arange(n_images, dtype=np.int64)
        # disagreements[b]: how many instantiation answers of the history image b disagrees with.
        self.disagreements = np.zeros(n_images, dtype=np.int64)
        self.answered = 0
        # Bit w of population_bits[t, b]: image b is consistent with H'_q for a question about type t
        # localised in region w (a region set has at most 64 regions, as in `obj_vis`).
        every_region = np.uint64((1 << n_regions) - 1) if n_regions < 64 else ~np.uint64(0)
        self.population_bits = np.full((n_types, n_images), every_region, dtype=np.uint64)
        # free_visible[t, w, b]: the objects of type t visible in region w of image b that no label is
        # bound to; free_unknown: those of them whose attributes are unknown. Region-major, so that the
        # images of one region are contiguous. The fitted tables themselves (read only) until the
        # first binding, which compacts them into copies first.
        self.free_visible: npt.NDArray[np.uint16] = stats.visible_by_region
        self.free_unknown: npt.NDArray[np.uint16] = stats.unknown_by_region
        # label_objects[i][b]: the object bound to the i-th instantiated label in image b.
        self.label_objects: list[IntArray] = []
        self.region_bits = np.left_shift(np.uint64(1), np.arange(n_regions, dtype=np.uint64))
        # The images of B by their d and population bits (what the batched counts sum over).
        self.classes = HistoryClasses(n_images, n_types, every_region)
        self._free: dict[int, FreeObjects] = {}
        # Per (type, region), the images of B where an object of the type is (or was, before a binding)
        # free there: all of them, and those with unknown attributes. Until the first binding B is the
        # whole training set and the lists are the statistics' own, shared by every stream.
        self._occupied: dict[tuple[str, int, int], npt.NDArray[np.int32]] = stats.memo.setdefault(
            "occupied", {}
        )
        self._known_visible: dict[tuple[int, int], npt.NDArray[np.int32]] = stats.memo.setdefault(
            "known visible", {}
        )
        # _pair_masks[(i, j)][b]: the relationships between the objects bound to the i-th and j-th
        # instantiated labels in image b (as in `FittedStatistics.pair_masks`).
        self._pair_masks: dict[tuple[int, int], npt.NDArray[np.uint64]] = {}
        # _intersecting_bits[r]: the regions that intersect region r, as a bit mask.
        self._intersecting_bits = np.array(
            [np.bitwise_or.reduce(self.region_bits[self.intersects[r]]) for r in range(n_regions)],
            dtype=np.uint64,
        )

    # --- Recording answers ---------------------------------------------------------------------------

    def record(self, question: InstantiationQuestion, answer: Answer) -> None:
        """Condition on an answered (not rejected) instantiation question."""
        codes, singled_out = self.answers(question)
        t = self.stats.vocabulary.type_index[question.type]
        if instantiation_kind(question).labels and answer == Answer.YES:
            agree = codes == YES
            free = self._free_objects(t)
            chosen = singled_out[agree[free.positions[singled_out]]]  # one per image answering yes
            per_image = np.full(len(self.images), -1, dtype=np.int64)
            per_image[free.positions[chosen]] = free.objects[chosen]
            self.label_objects.append(per_image)
            self._set_free(t, free.without(chosen))
            self._keep(agree)
            self._bind(t, self.label_objects[-1])
        else:
            agree = codes == CODE[answer]
            region = self.stats.vocabulary.region_index[question.region]
            self.population_bits[t, ~agree] &= ~self._intersecting_bits[region]
            self.disagreements += ~agree
            self.classes.split(~agree, t, self._intersecting_bits[region])
        self.answered += 1

    def _keep(self, agree: BoolArray) -> None:
        """Shrink B to the images where `agree`, and every per-image array with it (copies: the fitted
        tables are never written)."""
        remap = np.cumsum(agree) - 1  # an image's position in the new B
        self.images = self.images[agree]
        self.disagreements = self.disagreements[agree]
        self.population_bits = self.population_bits[:, agree]
        self.free_visible = self.free_visible[:, :, agree]
        self.free_unknown = self.free_unknown[:, :, agree]
        self.label_objects = [objects[agree] for objects in self.label_objects]
        # A positive uniqueness answer makes a new latest label, and the proposer asks only about pairs
        # with the latest label: the cached pairs would not be read again (and are looked up anew if
        # they are).
        self._pair_masks = {}
        self._free = {t: free.kept(agree, remap) for t, free in self._free.items()}
        self.classes.keep(agree)
        self._occupied, self._known_visible = {}, {}

    def _bind(self, type_index: int, objects: IntArray) -> None:
        """Take one newly bound object per image of B out of the free counts."""
        stats = self.stats
        visible = ((self.region_bits[:, None] & stats.obj_vis[None, objects]) != 0).astype(np.uint16)
        self.free_visible[type_index] -= visible
        self.free_unknown[type_index] -= visible * ~stats.obj_known[None, objects]

    def bound_objects(self, label_position: int) -> IntArray:
        """The objects bound to the label instantiated `label_position`-th, one per image of B."""
        return self.label_objects[label_position]

    def pair_masks(self, subject_position: int, object_position: int) -> npt.NDArray[np.uint64]:
        """Per image of B, the relationship mask between the objects bound to two labels (given by
        their instantiation order); looked up once per pair while B stays the same."""
        key = (subject_position, object_position)
        if key not in self._pair_masks:
            self._pair_masks[key] = self.stats.pair_masks(
                self.label_objects[subject_position], self.label_objects[object_position]
            )
        return self._pair_masks[key]

    # --- The free objects of a type --------------------------------------------------------------------

    def _free_objects(self, type_index: int) -> FreeObjects:
        """The objects of the type in the images of B that no label is bound to, in image order (built
        once per stream and type, then kept up to date by bindings and compactions)."""
        if type_index not in self._free:
            self._free[type_index] = self._before_any_label(("free", type_index), self._build_free)
        return self._free[type_index]

    def _build_free(self, type_index: int) -> FreeObjects:
        stats = self.stats
        objects = np.flatnonzero(stats.obj_type == type_index)
        position = np.full(stats.n_images, -1, dtype=np.int64)
        position[self.images] = np.arange(len(self.images))
        positions = position[stats.obj_image[objects]]
        objects, positions = objects[positions >= 0], positions[positions >= 0]
        return FreeObjects.of(stats, objects, positions)

    def _before_any_label(self, key: tuple[str, int], build: Callable[[int], FreeObjects]) -> FreeObjects:
        """`build(type)`; before the first label (B is every training image, nothing is bound) the
        same for every stream, so built once per process (at a million images, half a second a type)."""
        if self.label_objects:
            return build(key[1])
        shared: dict[tuple[str, int], FreeObjects] = self.stats.memo.setdefault("free objects", {})
        if key not in shared:
            shared[key] = build(key[1])
        return shared[key]

    def _set_free(self, type_index: int, free: FreeObjects) -> None:
        self._free[type_index] = free
        self._known_visible = {key: v for key, v in self._known_visible.items() if key[0] != type_index}

    def free_objects(self, type_index: int) -> FreeObjects:
        return self._free_objects(type_index)

    def known_visible(self, type_index: int, region: int) -> npt.NDArray[np.int32]:
        """Which of the type's free objects (`free_objects`) have known attributes and are visible in
        the region (kept until they change)."""
        key = (type_index, region)
        if key not in self._known_visible:
            free = self._free_objects(type_index)
            chosen = free.known & ((free.vis & self.region_bits[region]) != 0)
            self._known_visible[key] = chosen.nonzero()[0].astype(np.int32)
        return self._known_visible[key]

    # --- Answering one question on every image --------------------------------------------------------

    def answers(self, question: InstantiationQuestion) -> tuple[npt.NDArray[np.int8], IntArray]:
        """Per image of B the answer code; for a uniqueness question also the objects that single it
        out (as indices into the type's free objects)."""
        stats = self.stats
        t = stats.vocabulary.type_index[question.type]
        w = stats.vocabulary.region_index[question.region]
        wanted = np.uint64(stats.vocabulary.object_type(question.type).mask_of(question.attributes))
        free = self._free_objects(t)
        matching = (free.vis & self.region_bits[w]) != 0
        if wanted:
            matching &= free.known & ((free.attrs & wanted) == wanted)
            unknown = self.free_unknown[t, w].astype(np.int64)
        else:
            unknown = np.zeros(len(self.images), dtype=np.int64)
        matches = np.bincount(free.positions[matching], minlength=len(self.images))
        kind = instantiation_kind(question)
        codes = answer_codes(kind, matches, unknown)
        singled_out = np.flatnonzero(matching) if kind.labels else np.empty(0, dtype=np.int64)
        return codes, singled_out

    # --- Batched estimates ----------------------------------------------------------------------------

    def population_of(self, type_index: int, regions: IntArray) -> BoolArray:
        """(regions, images of B): whether each image is in the pooled population of a question about
        the type in each region."""
        bits = self.population_bits[type_index]
        in_population: BoolArray = (bits[None, :] & self.region_bits[regions][:, None]) != 0
        return in_population

    def occupied(self, type_index: int, region: int) -> npt.NDArray[np.int32]:
        """The images of B where an object of the type was free in the region when B last shrank (a
        binding since then may have taken it: its free count is then 0)."""
        return self._images_with(("visible", type_index, region), self.free_visible[type_index, region])

    def with_unknown(self, type_index: int, region: int) -> npt.NDArray[np.int32]:
        """Likewise, the images where such an object has unknown attributes."""
        return self._images_with(("unknown", type_index, region), self.free_unknown[type_index, region])

    def _images_with(
        self, key: tuple[str, int, int], counts: npt.NDArray[np.uint16]
    ) -> npt.NDArray[np.int32]:
        if key not in self._occupied:
            self._occupied[key] = counts.nonzero()[0].astype(np.int32)
        return self._occupied[key]

    def counts_without_attributes(self, type_index: int, regions: Sequence[int]) -> dict[str, Counts]:
        """Every instantiation kind's question about the type with no attributes, for every w in
        `regions` (`engine.core.instantiation_counts`)."""
        return instantiation_counts.counts_without_attributes(self, type_index, regions)

    def counts_with_attributes(
        self, type_index: int, regions: Sequence[int], attribute_masks: Sequence[int]
    ) -> dict[str, list[Counts]]:
        """Every instantiation kind's question for every (attribute set, region): one `Counts` per
        region, over the sets (`engine.core.instantiation_counts`)."""
        return instantiation_counts.counts_with_attributes(self, type_index, regions, attribute_masks)
