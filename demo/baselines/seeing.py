"""A baseline that looks at the pixels (Django-free: numpy and scikit-learn).

It learns from the training collection's images and boxes, never from a test image's annotation:
- instantiation questions (exist / unique of type t with attributes A in region w): a gradient-boosted
  classifier on the colour and edge features of the region's pixels (relative to the whole image), the
  region's size, the type and attributes asked for, the kind, and how many objects of that type are
  already labelled in an overlapping region. Training samples are the default regions of every training
  image, with answers counted from its boxes (a random few of the objects treated as already labelled);
- attribute questions: a classifier per attribute on the pixels of the object's box, applied at test
  time to the region of the question that defined the label (the system is never told the box);
  and/or combine the two probabilities as if independent;
- relationship questions: a classifier on the geometry of the two objects' boxes (at test time: the
  regions that defined the two labels) and the relationship asked.
It need not be good; it must be real: everything it knows of a test image comes through the API.
"""

from __future__ import annotations

import io
import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from demo.baselines.features import crop_features, image_features
from kernel.kinds import AttributeKind, Family, instantiation_kinds, kind_of


def _pixels(image_bytes_or_pil: Any) -> np.ndarray:
    from PIL import Image as PILImage

    image = (
        image_bytes_or_pil
        if hasattr(image_bytes_or_pil, "convert")
        else PILImage.open(io.BytesIO(image_bytes_or_pil))
    )
    return np.asarray(image.convert("RGB"))


def _overlaps(a: Sequence[float], b: Sequence[float]) -> bool:
    """Boxes as [x, y, w, h]: positive overlap."""
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


@dataclass
class TrainingImage:
    pixels: np.ndarray
    scene: dict[str, Any]  # the scene graph document (docs/method.md section 9)


class SeeingBaseline:
    def __init__(self, vocabulary: dict[str, Any], regions: Sequence[Sequence[float]], seed: int = 0) -> None:
        self.types = sorted(vocabulary["types"])
        self.attributes = {
            t: [v for g in spec["attribute_groups"] for v in g["values"]]
            for t, spec in vocabulary["types"].items()
        }
        self.all_attributes = sorted({a for values in self.attributes.values() for a in values})
        self.relationships = sorted(r["name"] for r in vocabulary["relationships"])
        self.regions = [tuple(r) for r in regions]  # fractions (x0, y0, x1, y1)
        self.rng = np.random.default_rng(seed)
        self.seed = seed

    # --- features ---------------------------------------------------------------------------------

    def _question_vector(
        self, kind: str, type_: str, attributes: Iterable[str], labelled: int
    ) -> list[float]:
        attrs = set(attributes)
        return [
            *(float(type_ == t) for t in self.types),
            *(float(a in attrs) for a in self.all_attributes),
            # One-hot over the instantiation kinds but the first (with two kinds: "is it unique").
            *(float(kind == other.name) for other in instantiation_kinds()[1:]),
            float(len(attrs)),
            float(labelled),
        ]

    # --- training ---------------------------------------------------------------------------------

    def fit(self, images: Iterable[TrainingImage]) -> SeeingBaseline:
        from sklearn.ensemble import HistGradientBoostingClassifier

        inst_x: list[Any] = []
        inst_y: list[bool] = []
        attr_x: list[Any] = []
        attr_y: list[list[float]] = []
        rel_x: list[Any] = []
        rel_y: list[bool] = []
        for item in images:
            # In this order, image by image: the samples draw from one generator.
            self._instantiation_samples(item.scene, item.pixels, inst_x, inst_y)
            self._attribute_samples(item.scene, item.pixels, attr_x, attr_y)
            self._relationship_samples(item.scene, rel_x, rel_y)
        self.instantiation = HistGradientBoostingClassifier(max_iter=200, random_state=self.seed).fit(
            np.array(inst_x), np.array(inst_y)
        )
        attr_x_arr, attr_y_arr = np.array(attr_x), np.array(attr_y)
        self.attribute_models: dict[str, Any] = {}
        for i, name in enumerate(self.all_attributes):
            target = attr_y_arr[:, i]
            if 0 < target.sum() < len(target):
                self.attribute_models[name] = HistGradientBoostingClassifier(
                    max_iter=100, random_state=self.seed
                ).fit(attr_x_arr, target)
        self.relationship = HistGradientBoostingClassifier(max_iter=100, random_state=self.seed).fit(
            np.array(rel_x), np.array(rel_y)
        )
        self.training_samples = {
            "instantiation": len(inst_y),
            "attribute": len(attr_y),
            "relationship": len(rel_y),
        }
        return self

    def _instantiation_samples(
        self, scene: dict[str, Any], pixels: np.ndarray, xs: list[Any], ys: list[bool]
    ) -> None:
        """Per region, type and a few attribute sets: the region's pixels and the question, and whether
        each instantiation kind holds for the objects left after a random number were labelled."""
        width, height = scene["width"], scene["height"]
        whole = image_features(pixels)
        objects = scene["objects"]
        for region in self.regions:
            x0, y0, x1, y1 = region
            box = (x0 * width, y0 * height, (x1 - x0) * width, (y1 - y0) * height)
            pixel_features = crop_features(pixels, box)
            region_features = np.concatenate([pixel_features, pixel_features[: len(whole)] - whole])
            inside = [o for o in objects if _overlaps(o["bbox"], box)]
            for type_ in self.types:
                of_type = [o for o in inside if o["type"] == type_]
                asked = [()] + [
                    (a,) for a in self.rng.choice(self.attributes[type_], size=3, replace=False).tolist()
                ]
                for attributes in asked:
                    matching = [o for o in of_type if set(attributes) <= set(o.get("attributes", []))]
                    labelled = int(self.rng.integers(0, min(len(matching), 2) + 1)) if matching else 0
                    left = len(matching) - labelled
                    for kind in instantiation_kinds():
                        xs.append(
                            np.concatenate(
                                [
                                    region_features,
                                    self._question_vector(kind.name, type_, attributes, labelled),
                                ]
                            )
                        )
                        ys.append(bool(kind.holds(left)))

    def _attribute_samples(
        self, scene: dict[str, Any], pixels: np.ndarray, xs: list[Any], ys: list[list[float]]
    ) -> None:
        """Per object whose attributes are known: its box's pixels and type, and its attributes."""
        for o in scene["objects"]:
            if not o.get("attributes_known", True):
                continue
            features = crop_features(pixels, o["bbox"])
            xs.append(np.concatenate([features, [float(o["type"] == t) for t in self.types]]))
            ys.append([float(a in o.get("attributes", [])) for a in self.all_attributes])

    def _relationship_samples(self, scene: dict[str, Any], xs: list[Any], ys: list[bool]) -> None:
        """For a random sample of the ordered pairs of objects: each relationship's geometry vector, and
        whether it holds either way."""
        width, height = scene["width"], scene["height"]
        objects = scene["objects"]
        related = {(r["subject"], r["predicate"], r["object"]) for r in scene.get("relationships", [])}
        for a in objects:
            for b in objects:
                if a is b or self.rng.random() > 0.3:  # a sample of the pairs is plenty
                    continue
                for name in self.relationships:
                    xs.append(
                        self._rel_vector(a["bbox"], b["bbox"], a["type"], b["type"], name, width, height)
                    )
                    ys.append((a["id"], name, b["id"]) in related or (b["id"], name, a["id"]) in related)

    def _rel_vector(self, a, b, type_a, type_b, name, width, height) -> np.ndarray:
        ax, ay, aw, ah = a
        bx, by, bw, bh = b
        return np.array(
            [
                ax / width, ay / height, aw / width, ah / height,
                bx / width, by / height, bw / width, bh / height,
                (ay + ah - by - bh) / height, (aw * ah) / max(bw * bh, 1.0),
                float(_overlaps(a, b)),
                *(float(type_a == t) for t in self.types),
                *(float(type_b == t) for t in self.types),
                *(float(name == r) for r in self.relationships),
            ]
        )  # fmt: skip

    # --- answering --------------------------------------------------------------------------------

    def answer(
        self, question: dict[str, Any], labels: list[dict[str, Any]], image: Any, width: int, height: int
    ) -> bool:
        """`question` and `labels` as the API gives them; `image` the pixels (bytes or a Pillow image)."""
        pixels = image if isinstance(image, np.ndarray) else _pixels(image)
        kind = kind_of(question["kind"])
        defining = {entry["label"]: entry["question"] for entry in labels}
        if kind.family == Family.INSTANTIATION:
            box = question["region"]["box"]
            pixel_features = crop_features(pixels, box)
            whole = image_features(pixels)
            region_features = np.concatenate([pixel_features, pixel_features[: len(whole)] - whole])
            labelled = sum(
                1
                for q in defining.values()
                if q["type"] == question["type"] and _overlaps(q["region"]["box"], box)
            )
            vector = np.concatenate(
                [
                    region_features,
                    self._question_vector(kind.name, question["type"], question["attributes"], labelled),
                ]
            )
            return bool(self.instantiation.predict_proba(vector[None, :])[0, 1] > 0.5)
        if isinstance(kind, AttributeKind):
            q = defining.get(question["label"])
            if q is None:
                return False
            features = np.concatenate(
                [crop_features(pixels, q["region"]["box"]), [float(q["type"] == t) for t in self.types]]
            )
            probabilities = [self._attribute_probability(a, features) for a in question["attributes"]]
            return holding_probability(kind, probabilities) > 0.5
        if kind.family == Family.RELATIONSHIP:
            a, b = defining.get(question["subject"]), defining.get(question["object"])
            if a is None or b is None:
                return False
            vector = self._rel_vector(
                a["region"]["box"],
                b["region"]["box"],
                a["type"],
                b["type"],
                question["relationship"],
                width,
                height,
            )
            return bool(self.relationship.predict_proba(vector[None, :])[0, 1] > 0.5)
        return False

    def _attribute_probability(self, attribute: str, features: np.ndarray) -> float:
        model = self.attribute_models.get(attribute)
        if model is None:
            return 0.0
        return float(model.predict_proba(features[None, :])[0, 1])


def holding_probability(kind: AttributeKind, probabilities: Sequence[float]) -> float:
    """The chance that an object answers yes to an attribute question of this kind, its attributes
    independent with these chances: the kind's `holds` summed over every truth of them."""
    total = 0.0
    for has in itertools.product((False, True), repeat=len(probabilities)):
        if kind.holds(list(has)):
            total += math.prod(p if h else 1.0 - p for p, h in zip(probabilities, has, strict=True))
    return total
