"""The one place where reviewed annotations become engine-core inputs.

Three queries, whatever the size of the training set (images, objects, relationships, each ordered by
image and streamed with a server-side cursor on PostgreSQL), merged image by image into
`kernel.scene.Scene` objects. The rows were validated against the vocabulary when they were
saved, so they are not validated again here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from itertools import groupby
from operator import itemgetter
from typing import Any

from annotations.models import Image, ObjectAnnotation, RelationshipAnnotation
from kernel.scene import Scene, SceneObject
from kernel.vocabulary import Vocabulary

CHUNK = 2000


def scenes_of(
    image_ids: Iterable[int], vocabulary: Vocabulary, on_image: Callable[[int], None] | None = None
) -> Iterator[Scene]:
    """The scene graphs of these images, in id order. `on_image(n)` is called after the n-th image."""
    ids = sorted(set(image_ids))
    images = (
        Image.objects.filter(pk__in=ids).order_by("pk").values_list("pk", "original_name", "width", "height")
    )
    # Depictions and group boxes stay with the annotation but are not objects of a test.
    objects = (
        ObjectAnnotation.objects.filter(image_id__in=ids, in_tests=True)
        .order_by("image_id", "position")
        .values_list(
            "image_id", "position", "object_type__name", "x", "y", "w", "h", "attributes", "attributes_known"
        )
    )
    relationships = (
        RelationshipAnnotation.objects.filter(image_id__in=ids, subject__in_tests=True, object__in_tests=True)
        .order_by("image_id", "pk")
        .values_list("image_id", "relationship__name", "subject__position", "object__position")
    )
    symmetric = {r.name for r in vocabulary.relationships if r.symmetric}
    object_rows = _by_image(objects.iterator(chunk_size=CHUNK))
    relationship_rows = _by_image(relationships.iterator(chunk_size=CHUNK))
    for count, (image_id, name, width, height) in enumerate(images.iterator(chunk_size=CHUNK), start=1):
        yield _scene(
            name, width, height, object_rows.take(image_id), relationship_rows.take(image_id), symmetric
        )
        if on_image is not None:
            on_image(count)


def _scene(
    name: str,
    width: int,
    height: int,
    objects: list[tuple[Any, ...]],
    relationships: list[tuple[Any, ...]],
    symmetric: set[str],
) -> Scene:
    index_of = {row[1]: i for i, row in enumerate(objects)}
    # Ids from the stored positions, as the annotation's own ("o3" is the same box in both).
    scene_objects = tuple(
        SceneObject(f"o{position + 1}", type_name, (x, y, w, h), frozenset(attributes), known)
        for _, position, type_name, x, y, w, h, attributes, known in objects
    )
    related = set()
    for _, predicate, subject_position, object_position in relationships:
        subject, obj = index_of[subject_position], index_of[object_position]
        if predicate in symmetric:
            subject, obj = min(subject, obj), max(subject, obj)
        related.add((subject, predicate, obj))
    return Scene(name, width, height, scene_objects, frozenset(related))


class _by_image:
    """Rows ordered by image id, handed out one image at a time as the images go by."""

    def __init__(self, rows: Iterator[tuple[Any, ...]]) -> None:
        self._groups = groupby(rows, key=itemgetter(0))
        self._current: tuple[int, list[tuple[Any, ...]]] | None = None

    def take(self, image_id: int) -> list[tuple[Any, ...]]:
        while self._current is None or self._current[0] < image_id:
            try:
                key, rows = next(self._groups)
            except StopIteration:
                return []
            self._current = (key, list(rows))
        return self._current[1] if self._current[0] == image_id else []
