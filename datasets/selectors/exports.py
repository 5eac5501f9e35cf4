"""Exports of a collection's annotations in any registered scene format (datasets.formats)."""

from __future__ import annotations

from collections.abc import Iterator

from django.db.models import QuerySet
from django.utils.text import slugify

from annotations.models import Collection, Image
from annotations.selectors.annotation import records_in_chunks
from annotations.selectors.vocabularies import vocabulary_index
from datasets.formats import SceneFormat, WriteContext


def export_images(*, collection: Collection, stage: str | None = None) -> QuerySet[Image]:
    """The annotated images (never-annotated ones have no scene graph to export), oldest first."""
    images = Image.objects.filter(collection=collection, annotated_at__isnull=False)
    if stage:
        images = images.filter(stage=stage)
    return images.only("id", "original_name", "source_id", "width", "height").order_by("id")


def scene_export(
    *, collection: Collection, scene_format: SceneFormat, stage: str | None = None
) -> Iterator[bytes]:
    """The file's bytes, produced a chunk of images at a time as far as the format allows, so a large
    export streams."""
    index = vocabulary_index(collection.vocabulary)
    records = records_in_chunks(list(export_images(collection=collection, stage=stage)), index)
    return scene_format.write(records, WriteContext(vocabulary=index.core, description=collection.name))


def export_file_name(*, collection: Collection, scene_format: SceneFormat, stage: str | None = None) -> str:
    return f"{slugify(collection.name) or 'collection'}-{stage or 'all'}.{scene_format.extension}"
