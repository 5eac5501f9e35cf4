"""The free objects of one type: those in the images of the training state's B that no label of the
history is bound to (engine.core.training), with what the estimates read of them."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.core.statistics import FittedStatistics

BoolArray = npt.NDArray[np.bool_]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class FreeObjects:
    """Objects of one type in the images of B, in image order, with what the estimates read of them."""

    objects: IntArray  # indices into the fitted object arrays
    positions: IntArray  # each object's image, as a position in B
    vis: npt.NDArray[np.uint64]
    attrs: npt.NDArray[np.uint64]
    classes: npt.NDArray[np.int32]  # `FittedStatistics.obj_attribute_class` (-1: attributes unknown)

    @property
    def known(self) -> BoolArray:
        known: BoolArray = self.classes >= 0
        return known

    @classmethod
    def of(cls, stats: FittedStatistics, objects: IntArray, positions: IntArray) -> FreeObjects:
        return cls(
            objects,
            positions,
            stats.obj_vis[objects],
            stats.obj_attrs[objects],
            stats.obj_attribute_class[objects],
        )

    def selected(self, keep: BoolArray) -> FreeObjects:
        return FreeObjects(
            self.objects[keep],
            self.positions[keep],
            self.vis[keep],
            self.attrs[keep],
            self.classes[keep],
        )

    def without(self, indices: IntArray) -> FreeObjects:
        keep = np.ones(len(self.objects), dtype=bool)
        keep[indices] = False
        return self.selected(keep)

    def kept(self, images: BoolArray, remap: IntArray) -> FreeObjects:
        """The objects in the images B keeps, with their positions in the new B."""
        kept = self.selected(images[self.positions])
        return dataclasses.replace(kept, positions=remap[kept.positions])
