"""Exports of a collection's annotations as JSON Lines scene graphs or one COCO document."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.db.models import QuerySet

from annotations.formats import coco_document, jsonl_line
from annotations.models import Collection, Image
from annotations.selectors.annotation import records_in_chunks
from annotations.selectors.vocabularies import vocabulary_index


def export_images(*, collection: Collection, stage: str | None = None) -> QuerySet[Image]:
    """The annotated images (never-annotated ones have no scene graph to export), oldest first."""
    images = Image.objects.filter(collection=collection, annotated_at__isnull=False)
    if stage:
        images = images.filter(stage=stage)
    return images.only("id", "original_name", "width", "height").order_by("id")


def jsonl_export(*, collection: Collection, stage: str | None = None) -> Iterator[str]:
    """One line per image, produced a chunk of images at a time so a large export streams."""
    index = vocabulary_index(collection.vocabulary)
    for record in records_in_chunks(list(export_images(collection=collection, stage=stage)), index):
        yield jsonl_line(record)


def coco_export(*, collection: Collection, stage: str | None = None) -> dict[str, Any]:
    index = vocabulary_index(collection.vocabulary)
    records = records_in_chunks(list(export_images(collection=collection, stage=stage)), index)
    return coco_document(records, [t.name for t in index.core.types], description=collection.name)
