"""The images of the training state's B grouped by what the history says of them (docs/engine.md, "Why it
is fast"; decision 0100).

What an instantiation estimate needs of an image besides its objects is its disagreement count d and,
per type, its pooled-population bits (`TrainingState.population_bits`). Images alike in both form one
*history class*, and a history of a few dozen answers leaves a few dozen classes among a million
images. So the population of a question about a type in a region, split by d, is a sum over classes,
not a pass over images: the estimates pass only over the images that hold an object of interest there,
and count the others as the population minus those.

The classes are kept up to date as answers arrive, in a few passes over B per answer: an answer that
does not label an object splits each class into the images that agree and those that do not, and
classes that end alike are merged; a labelling answer keeps the images that answered yes.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]
U64 = npt.NDArray[np.uint64]


class HistoryClasses:
    def __init__(self, n_images: int, n_types: int, every_region: np.uint64) -> None:
        # of_image[b]: the class of the b-th image of B; per class, its d and its bits per type.
        self.of_image: IntArray = np.zeros(n_images, dtype=np.int64)
        self.disagreements: IntArray = np.zeros(1, dtype=np.int64)
        self.bits: U64 = np.full((1, n_types), every_region, dtype=np.uint64)
        self._sizes: IntArray | None = None

    def split(self, disagree: BoolArray, type_index: int, cleared: np.uint64) -> None:
        """An answer that labels nothing: the images that `disagree` get one more disagreement and lose
        the `cleared` region bits of the type (those of the regions that intersect the question's)."""
        n = len(self.disagreements)
        key = self.of_image * 2 + disagree
        present = np.flatnonzero(np.bincount(key, minlength=2 * n))
        old, moved = present // 2, (present % 2) == 1
        bits = self.bits[old]
        bits[moved, type_index] &= ~cleared
        lookup = np.zeros(2 * n, dtype=np.int64)
        lookup[present] = np.arange(len(present))
        self.of_image = lookup[key]
        self._merge(self.disagreements[old] + moved, bits)

    def keep(self, agree: BoolArray) -> None:
        """B shrinks to the images where `agree` (a labelling answer)."""
        self.of_image = self.of_image[agree]
        used = np.flatnonzero(np.bincount(self.of_image, minlength=len(self.disagreements)))
        lookup = np.zeros(len(self.disagreements), dtype=np.int64)
        lookup[used] = np.arange(len(used))
        self.of_image = lookup[self.of_image]
        self.disagreements, self.bits = self.disagreements[used], self.bits[used]
        self._sizes = None

    def _merge(self, disagreements: IntArray, bits: U64) -> None:
        """Classes alike in d and in every type's bits become one."""
        table = np.column_stack([disagreements.astype(np.uint64), bits])
        unique, inverse = np.unique(table, axis=0, return_inverse=True)
        self.of_image = inverse.reshape(-1)[self.of_image]
        self.disagreements = unique[:, 0].astype(np.int64)
        self.bits = np.ascontiguousarray(unique[:, 1:])
        self._sizes = None

    def sizes(self) -> IntArray:
        """How many images of B each class holds."""
        if self._sizes is None:
            self._sizes = np.bincount(self.of_image, minlength=len(self.disagreements))
        return self._sizes

    def in_population(self, type_index: int, region_bits: U64) -> BoolArray:
        """(regions, classes): whether a class's images are in the pooled population of a question about
        the type in each region (`region_bits`: one bit per region)."""
        in_population: BoolArray = (self.bits[None, :, type_index] & region_bits[:, None]) != 0
        return in_population

    def population_by_disagreement(self, type_index: int, region_bits: U64, depth: int) -> IntArray:
        """(regions, depth): the images of each region's pooled population, split by d."""
        by_class = self.in_population(type_index, region_bits) * self.sizes()[None, :]
        one_hot = np.zeros((len(self.disagreements), depth), dtype=np.int64)
        one_hot[np.arange(len(self.disagreements)), self.disagreements] = 1
        counts: IntArray = by_class @ one_hot
        return counts
