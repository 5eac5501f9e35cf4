"""Fitted statistics: the training scenes turned into arrays, saved in one versioned file.

Fitting flattens every annotated object of the training set into parallel arrays (image, type,
attribute bit mask, attributes known, region visibility mask), sorted by image, and precomputes:
- per image, type and region, the number of visible objects and of visible objects whose attributes
  are unknown (instantiation questions without attributes are answered from these tables alone);
- per type, the histogram of attribute masks of the objects with known attributes (attribute
  questions pool over objects, docs/method.md section 7, so the histogram is all they need);
- per ordered pair of types, the histogram of relationship masks over ordered pairs of objects of the
  same image (forward bits, then the reverse direction's bits shifted by the number of relationships);
- the related ordered pairs themselves (`rel_subject`, `rel_object`, `rel_bits`, sorted by subject then
  object), so that the relationships of the objects a history has bound can be looked up per image.

The file (`engine.core.statistics_file`) is an uncompressed `.npz` (loads in milliseconds, no pickle)
with the vocabulary, the settings and the counts in a JSON `meta` entry.
"""

from __future__ import annotations

import time
from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.core.pairs import ordered_pairs, pair_masks, related_pairs
from kernel.errors import StatisticsError
from kernel.scene import Scene
from kernel.visibility import visibility_masks
from kernel.vocabulary import Vocabulary

U64 = npt.NDArray[np.uint64]
I64 = npt.NDArray[np.int64]
# Pairs per block when splitting pair histograms by region (`_split_by_region_pairs`): a multiple of 64,
# small enough that a block's (regions x pairs) booleans stay a few tens of megabytes.
PAIR_BLOCK = 1 << 20


@dataclass(frozen=True)
class Histogram:
    """Distinct bit masks and how many items carry each; `by_region` splits the counts by the regions
    the items are visible in: (regions, masks) for objects (those visible in region w), (regions,
    regions, masks) for ordered pairs (subject visible in w, object visible in v). An item visible in
    several regions counts once in each."""

    masks: U64
    counts: I64
    by_region: I64

    @property
    def total(self) -> int:
        return int(self.counts.sum())


@dataclass(frozen=True)
class FittedStatistics:
    vocabulary: Vocabulary
    min_overlap: float
    image_names: npt.NDArray[np.str_]
    image_width: npt.NDArray[np.int32]
    image_height: npt.NDArray[np.int32]
    image_start: I64  # objects of image i are obj_*[image_start[i]:image_start[i + 1]]
    obj_image: npt.NDArray[np.int32]
    obj_type: npt.NDArray[np.int8]
    obj_attrs: U64
    obj_known: npt.NDArray[np.bool_]
    obj_vis: U64
    visible_counts: npt.NDArray[np.uint16]  # (images, types, regions)
    unknown_counts: npt.NDArray[np.uint16]  # (images, types, regions), attributes unknown only
    attribute_histograms: tuple[Histogram, ...]  # per type
    pair_histograms: dict[tuple[int, int], Histogram]  # per (subject type, object type)
    # Every ordered pair of objects with at least one relationship, sorted by (subject, object): the
    # relationships' bits (forward direction only; a symmetric one is stored both ways).
    rel_subject: I64
    rel_object: I64
    rel_bits: U64
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def n_images(self) -> int:
        return len(self.image_start) - 1

    @property
    def n_objects(self) -> int:
        return len(self.obj_image)

    @cached_property
    def memo(self) -> dict[Any, Any]:
        """What proposers working on these statistics compute once and share within a process (the
        candidates for an empty history, per settings)."""
        return {}

    @cached_property
    def visible_by_region(self) -> npt.NDArray[np.uint16]:
        """`visible_counts` laid out (types, regions, images): a region's counts over every image are
        contiguous, which is how the estimates read them. Built once per process, not stored."""
        return np.ascontiguousarray(self.visible_counts.transpose(1, 2, 0))

    @cached_property
    def unknown_by_region(self) -> npt.NDArray[np.uint16]:
        """`unknown_counts` laid out (types, regions, images), like `visible_by_region`."""
        return np.ascontiguousarray(self.unknown_counts.transpose(1, 2, 0))

    @cached_property
    def obj_attribute_class(self) -> npt.NDArray[np.int32]:
        """Per object, the position of its attribute mask among its type's distinct masks (the masks of
        `attribute_histograms`), -1 where its attributes are unknown: an attribute set is then tested
        on the few distinct masks instead of on every object. Computed once per process, not stored."""
        classes = np.full(self.n_objects, -1, dtype=np.int32)
        for t, histogram in enumerate(self.attribute_histograms):
            chosen = (self.obj_type == t) & self.obj_known
            classes[chosen] = np.searchsorted(histogram.masks, self.obj_attrs[chosen])
        return classes

    @cached_property
    def rel_subject_start(self) -> I64:
        """Per object, where its run of related pairs starts in `rel_subject` (one past the last object:
        the end), so that a subject's pairs are found by two reads instead of two binary searches over
        tens of millions of pairs. Computed once per process, not stored."""
        start: I64 = np.zeros(self.n_objects + 1, dtype=np.int64)
        np.cumsum(np.bincount(self.rel_subject, minlength=self.n_objects), out=start[1:])
        return start

    def pair_masks(self, subjects: I64, objects: I64) -> U64:
        """The relationship mask of each ordered pair of objects, as in `pair_histograms`."""
        n_relationships = len(self.vocabulary.relationships)
        return pair_masks(
            self.rel_subject,
            self.rel_object,
            self.rel_bits,
            n_relationships,
            subjects,
            objects,
            self.rel_subject_start,
        )

    def summary(self) -> dict[str, Any]:
        """Counts for people: images, objects, pairs, per-type attribute frequencies."""
        vocabulary = self.vocabulary
        types: dict[str, Any] = {}
        for t, object_type in enumerate(vocabulary.types):
            histogram = self.attribute_histograms[t]
            known = histogram.total
            frequencies = {
                value: (
                    int(histogram.counts[(histogram.masks >> np.uint64(bit)) & np.uint64(1) == 1].sum())
                    / known
                )
                if known
                else None
                for bit, value in enumerate(object_type.attributes)
            }
            types[object_type.name] = {
                "objects": int((self.obj_type == t).sum()),
                "attributes_known": known,
                "attribute_frequencies": frequencies,
            }
        return {
            "images": self.n_images,
            "objects": self.n_objects,
            "pairs": int(sum(h.total for h in self.pair_histograms.values())),
            "types": types,
        }


# --- Fitting --------------------------------------------------------------------------------------------


def fit(vocabulary: Vocabulary, scenes: Iterable[Scene], min_overlap: float = 0.0) -> FittedStatistics:
    started = time.perf_counter()
    columns = _flatten(vocabulary, scenes)
    n_images = len(columns["image_names"])
    image_start = np.zeros(n_images + 1, dtype=np.int64)
    np.cumsum(columns["objects_per_image"], out=image_start[1:])
    obj_image = np.repeat(np.arange(n_images, dtype=np.int32), columns["objects_per_image"])
    widths = np.asarray(columns["widths"], dtype=np.int32)
    heights = np.asarray(columns["heights"], dtype=np.int32)
    boxes = np.frombuffer(columns["boxes"], dtype=np.float64).reshape(-1, 4)
    obj_vis = visibility_masks(
        boxes,
        widths[obj_image].astype(np.float64),
        heights[obj_image].astype(np.float64),
        vocabulary.regions,
        min_overlap,
    )
    obj_type = np.asarray(columns["types"], dtype=np.int8)
    obj_attrs = np.asarray(columns["attrs"], dtype=np.uint64)
    obj_known = np.asarray(columns["known"], dtype=np.bool_)
    visible_counts, unknown_counts = _region_counts(
        vocabulary, obj_image, obj_type, obj_known, obj_vis, n_images
    )
    rel_subject, rel_object, rel_bits = related_pairs(columns["relationships"], len(obj_type))
    attribute_histograms, pair_histograms = region_tables(
        vocabulary, image_start, obj_type, obj_attrs, obj_known, obj_vis, rel_subject, rel_object, rel_bits
    )
    stats = FittedStatistics(
        vocabulary=vocabulary,
        min_overlap=float(min_overlap),
        image_names=np.asarray(columns["image_names"], dtype=np.str_),
        image_width=widths,
        image_height=heights,
        image_start=image_start,
        obj_image=obj_image,
        obj_type=obj_type,
        obj_attrs=obj_attrs,
        obj_known=obj_known,
        obj_vis=obj_vis,
        visible_counts=visible_counts,
        unknown_counts=unknown_counts,
        attribute_histograms=attribute_histograms,
        pair_histograms=pair_histograms,
        rel_subject=rel_subject,
        rel_object=rel_object,
        rel_bits=rel_bits,
    )
    stats.meta.update(stats.summary())
    stats.meta["fit_seconds"] = round(time.perf_counter() - started, 3)
    return stats


def _flatten(vocabulary: Vocabulary, scenes: Iterable[Scene]) -> dict[str, Any]:
    """One pass over the scenes into flat lists and buffers (the only loop over images, at fit time)."""
    columns: dict[str, Any] = {
        key: []
        for key in ("image_names", "widths", "heights", "objects_per_image", "types", "attrs", "known")
    }
    # Flat typed buffers: a million boxes or relationships as Python tuples cost seconds to convert.
    columns["boxes"] = array("d")
    columns["relationships"] = array("q")
    relationship_bit = {r.name: i for i, r in enumerate(vocabulary.relationships)}
    symmetric = {r.name for r in vocabulary.relationships if r.symmetric}
    object_types = vocabulary.types
    type_index = vocabulary.type_index
    offset = 0
    for scene in scenes:
        columns["image_names"].append(scene.image)
        columns["widths"].append(scene.width)
        columns["heights"].append(scene.height)
        columns["objects_per_image"].append(len(scene.objects))
        for obj in scene.objects:
            t = type_index[obj.type]
            columns["types"].append(t)
            columns["attrs"].append(object_types[t].mask_of(obj.attributes))
            columns["known"].append(obj.attributes_known)
            columns["boxes"].extend(obj.bbox)
        for subject, predicate, obj_index in scene.relationships:
            bit = relationship_bit[predicate]
            columns["relationships"].extend((offset + subject, bit, offset + obj_index))
            if predicate in symmetric:
                columns["relationships"].extend((offset + obj_index, bit, offset + subject))
        offset += len(scene.objects)
    if not columns["image_names"]:
        raise StatisticsError("the training set is empty: fitting needs at least one annotated scene")
    return columns


def _region_counts(
    vocabulary: Vocabulary,
    obj_image: npt.NDArray[np.int32],
    obj_type: npt.NDArray[np.int8],
    obj_known: npt.NDArray[np.bool_],
    obj_vis: U64,
    n_images: int,
) -> tuple[npt.NDArray[np.uint16], npt.NDArray[np.uint16]]:
    n_types, n_regions = len(vocabulary.types), len(vocabulary.regions)
    cell = obj_image.astype(np.int64) * n_types + obj_type
    visible = np.zeros((n_images * n_types, n_regions), dtype=np.uint16)
    unknown = np.zeros((n_images * n_types, n_regions), dtype=np.uint16)
    for r in range(n_regions):
        in_region = ((obj_vis >> np.uint64(r)) & np.uint64(1)).astype(bool)
        visible[:, r] = np.bincount(cell[in_region], minlength=n_images * n_types)
        unknown[:, r] = np.bincount(cell[in_region & ~obj_known], minlength=n_images * n_types)
    shape = (n_images, n_types, n_regions)
    return visible.reshape(shape), unknown.reshape(shape)


def region_tables(
    vocabulary: Vocabulary,
    image_start: I64,
    obj_type: npt.NDArray[np.int8],
    obj_attrs: U64,
    obj_known: npt.NDArray[np.bool_],
    obj_vis: U64,
    rel_subject: I64,
    rel_object: I64,
    rel_bits: U64,
) -> tuple[tuple[Histogram, ...], dict[tuple[int, int], Histogram]]:
    """The attribute histograms per type and the pair histograms per type pair, with their region
    splits, from the per-object arrays (at fit time, and when loading a version 2 file)."""
    n_regions = len(vocabulary.regions)
    return (
        _attribute_histograms(vocabulary, obj_type, obj_attrs, obj_known, obj_vis, n_regions),
        _pair_histograms(vocabulary, image_start, obj_type, obj_vis, rel_subject, rel_object, rel_bits),
    )


def _attribute_histograms(
    vocabulary: Vocabulary,
    obj_type: npt.NDArray[np.int8],
    obj_attrs: U64,
    obj_known: npt.NDArray[np.bool_],
    obj_vis: U64,
    n_regions: int,
) -> tuple[Histogram, ...]:
    histograms = []
    for t in range(len(vocabulary.types)):
        chosen = (obj_type == t) & obj_known
        masks, inverse, counts = np.unique(obj_attrs[chosen], return_inverse=True, return_counts=True)
        by_region = _split_by_regions(obj_vis[chosen], inverse.reshape(-1), len(masks), n_regions)
        histograms.append(Histogram(masks.astype(np.uint64), counts.astype(np.int64), by_region))
    return tuple(histograms)


def _split_by_regions(vis: U64, classes: I64, n_classes: int, n_regions: int) -> I64:
    """(regions, classes): per region, how many items of each class are visible there."""
    table = np.zeros((n_regions, n_classes), dtype=np.int64)
    for r in range(n_regions):
        inside = ((vis >> np.uint64(r)) & np.uint64(1)).astype(bool)
        table[r] = np.bincount(classes[inside], minlength=n_classes)
    return table


def _split_by_region_pairs(
    subject_vis: U64, object_vis: U64, classes: I64, n_classes: int, n_regions: int
) -> I64:
    """(regions, regions, classes): per (w, v), how many pairs of each class have their subject visible
    in w and their object visible in v.

    Per class and block of pairs, the region memberships are packed 64 pairs to a word, region by
    region, so that a (w, v) count is the population count of (subject in w) AND (object in v): integer
    work of regions^2 x pairs / 64, no BLAS (whose threads crawl on a shared machine) and no temporary
    larger than a block's (regions x block) booleans."""
    table = np.zeros((n_regions, n_regions, n_classes), dtype=np.int64)
    bits = np.left_shift(np.uint64(1), np.arange(n_regions, dtype=np.uint64))
    order = np.argsort(classes, kind="stable")
    bounds = np.searchsorted(classes[order], np.arange(n_classes + 1))
    for c in range(n_classes):
        rows = order[bounds[c] : bounds[c + 1]]
        for start in range(0, len(rows), PAIR_BLOCK):
            block = rows[start : start + PAIR_BLOCK]
            in_subject = _packed_membership(subject_vis[block], bits)
            in_object = _packed_membership(object_vis[block], bits)
            for w in range(n_regions):
                both = np.bitwise_count(in_subject[w][None, :] & in_object)
                table[w, :, c] += both.sum(axis=1, dtype=np.int64)
    return table


def _packed_membership(vis: U64, bits: U64) -> U64:
    """(regions, words): bit i of word k of row r says whether item 64k + i is visible in region r."""
    padded = -len(vis) % 64
    member = (vis[None, :] & bits[:, None]) != 0
    if padded:
        member = np.pad(member, ((0, 0), (0, padded)))
    packed: U64 = np.packbits(member, axis=1).view(np.uint64)
    return packed


def _pair_histograms(
    vocabulary: Vocabulary,
    image_start: I64,
    obj_type: npt.NDArray[np.int8],
    obj_vis: U64,
    rel_subject: I64,
    rel_object: I64,
    rel_bits: U64,
) -> dict[tuple[int, int], Histogram]:
    subjects, objects = ordered_pairs(image_start)
    n_relationships = len(vocabulary.relationships)
    masks = pair_masks(rel_subject, rel_object, rel_bits, n_relationships, subjects, objects)
    n_types, n_regions = len(vocabulary.types), len(vocabulary.regions)
    type_pair = obj_type[subjects].astype(np.int64) * n_types + obj_type[objects]
    histograms = {}
    for s in range(n_types):
        for o in range(n_types):
            chosen = type_pair == s * n_types + o
            values, inverse, counts = np.unique(masks[chosen], return_inverse=True, return_counts=True)
            by_region = _split_by_region_pairs(
                obj_vis[subjects[chosen]],
                obj_vis[objects[chosen]],
                inverse.reshape(-1),
                len(values),
                n_regions,
            )
            histograms[(s, o)] = Histogram(values.astype(np.uint64), counts.astype(np.int64), by_region)
    return histograms
