"""Reads of annotations as scene-graph records (docs/method.md section 9), for the API and for exports.

Objects get the ids "o1".."oN" in stored order; attributes are in the vocabulary's order and
relationships sorted by (subject, predicate, object), as `kernel.scene.Scene.to_document` does, so
that the same annotation always reads back as the same record.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from annotations.models import Image, ObjectAnnotation, RelationshipAnnotation
from annotations.models.annotation import OBJECT_COLUMNS
from annotations.selectors.vocabularies import VocabularyIndex, vocabulary_index
from kernel.scene import object_document, unknown_to_write


def object_id(position: int) -> str:
    return f"o{position + 1}"


def scene_records(*, images: Sequence[Image], index: VocabularyIndex) -> list[dict[str, Any]]:
    """The records of some images of one vocabulary, in two queries whatever their number."""
    ids = [image.pk for image in images]
    objects: dict[int, list[tuple]] = defaultdict(list)
    position_of: dict[int, int] = {}
    rows = (
        ObjectAnnotation.objects.filter(image_id__in=ids)
        .order_by("image_id", "position")
        .values_list("id", *OBJECT_COLUMNS)
    )
    for row in rows:
        objects[row[1]].append(row)
        position_of[row[0]] = row[2]
    relationships: dict[int, list[tuple[int, str, int]]] = defaultdict(list)
    links = RelationshipAnnotation.objects.filter(image_id__in=ids).values_list(
        "image_id", "subject_id", "relationship_id", "object_id"
    )
    for image_id, subject_id, relationship_id, object_pk in links:
        relationships[image_id].append(
            (position_of[subject_id], index.relationship_names[relationship_id], position_of[object_pk])
        )
    return [_record(image, objects[image.pk], relationships[image.pk], index) for image in images]


def _record(image: Image, objects: list[tuple], links: list[tuple[int, str, int]], index: VocabularyIndex):
    record = {
        "image": image.original_name,
        "width": image.width,
        "height": image.height,
        "objects": [_object(row, index) for row in objects],
        "relationships": [
            {"subject": object_id(s), "predicate": p, "object": object_id(o)} for s, p, o in sorted(links)
        ],
    }
    if image.source_id:
        record["source_id"] = image.source_id
    return record


def _object(row: tuple, index: VocabularyIndex) -> dict[str, Any]:
    _, _, position, type_id, x, y, w, h, attributes, known, unknown, flags, _, source = row
    type_name = index.type_names[type_id]
    return object_document(
        object_id(position),
        type_name,
        [x, y, w, h],
        list(attributes),
        known,
        unknown_to_write(index.core, type_name, unknown),
        list(flags),
        source or None,
    )


def image_annotation(*, image: Image) -> dict[str, Any]:
    """The image's record for the annotation API and the pages: an object accepted from a model's
    suggestion also says so (`suggestion`: its id, the model's version and score, and whether the person
    edited it; decision 0078). Exports are written without it (`scene_records`), and no vision system
    reads annotations at all."""
    record = scene_records(images=[image], index=vocabulary_index(image.collection.vocabulary))[0]
    for position, suggestion in object_suggestions(image).items():
        record["objects"][position]["suggestion"] = suggestion
    return record


def object_suggestions(image: Image) -> dict[int, dict[str, Any]]:
    """Position -> what the object's suggestion was, for the objects accepted from one."""
    rows = (
        ObjectAnnotation.objects.filter(image=image, suggestion__isnull=False)
        .order_by("position")
        .values_list(
            "position", "suggestion_id", "suggestion__model_version", "suggestion__score", "suggestion_edited"
        )
    )
    return {
        position: {"id": pk, "model_version": version, "score": score, "edited": edited}
        for position, pk, version, score, edited in rows
    }


def records_in_chunks(images: Iterable[Image], index: VocabularyIndex, size: int = 500) -> Iterator[dict]:
    """Records of many images, a chunk at a time, so an export of a large collection streams."""
    chunk: list[Image] = []
    for image in images:
        chunk.append(image)
        if len(chunk) == size:
            yield from scene_records(images=chunk, index=index)
            chunk = []
    if chunk:
        yield from scene_records(images=chunk, index=index)
