"""A scene made ready for answering questions: its objects' attribute masks and region visibility
worked out once, and the binding of a history's labels to its objects. The oracle (`engine.core.oracle`)
and every kind's answer (`kernel.kinds`) read these."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kernel.errors import CoreErrorCode, HistoryError
from kernel.questions import Label
from kernel.scene import Scene
from kernel.visibility import visibility_masks
from kernel.vocabulary import Vocabulary


@dataclass(frozen=True)
class PreparedScene:
    """A scene with its objects' attribute masks and region visibility precomputed."""

    scene: Scene
    vocabulary: Vocabulary
    attribute_masks: tuple[int, ...]
    visibility: tuple[int, ...]

    @classmethod
    def build(cls, scene: Scene, vocabulary: Vocabulary, min_overlap: float = 0.0) -> PreparedScene:
        masks = tuple(vocabulary.object_type(o.type).mask_of(o.attributes) for o in scene.objects)
        boxes = np.array([o.bbox for o in scene.objects], dtype=np.float64).reshape(-1, 4)
        n = len(scene.objects)
        visible = visibility_masks(
            boxes,
            np.full(n, float(scene.width)),
            np.full(n, float(scene.height)),
            vocabulary.regions,
            min_overlap,
        )
        return cls(scene, vocabulary, masks, tuple(int(v) for v in visible))


@dataclass
class Binding:
    """Which annotated object each label refers to, in one scene."""

    objects: dict[Label, int] = field(default_factory=dict)

    def bind(self, label: Label, index: int) -> None:
        self.objects[label] = index

    def object_of(self, label: Label) -> int:
        try:
            return self.objects[label]
        except KeyError:
            raise HistoryError(
                f"{label} has not been instantiated", code=CoreErrorCode.LABEL_NOT_INSTANTIATED
            ) from None
