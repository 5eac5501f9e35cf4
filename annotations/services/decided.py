"""Annotations decided outside this app's queues: the crowd's work (crowd/) checks its annotators'
documents here, and writes the merge it accepts as the image's annotation, so that the engine, truthing
and the exports read the image as any other and never learn that a crowd made it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.utils import timezone

from annotations.models import Image, Stage
from annotations.selectors.annotation import image_annotation
from annotations.selectors.vocabularies import vocabulary_index
from annotations.services.annotation import (
    annotation_delete,
    annotation_insert,
    lock_image,
    parse_annotation,
    require_complete,
)


def annotation_checked(
    *, image: Image, document: Mapping[str, Any], complete: bool = False
) -> dict[str, Any]:
    """The document as the annotation of `image` would store it (ids "o1".."oN", attributes in the
    vocabulary's order), or the refusal a save would give; with `complete`, the refusal a submit would
    give too. Writes nothing."""
    vocabulary = vocabulary_index(image.collection.vocabulary).core
    scene = parse_annotation(image, document, vocabulary)
    if complete:
        require_complete(scene, vocabulary)
    document = scene.to_document(vocabulary)
    # Numbered as the stored record numbers them, whatever ids the client gave (kernel.scene keeps them).
    ids = {obj["id"]: f"o{n + 1}" for n, obj in enumerate(document["objects"])}
    for obj in document["objects"]:
        obj["id"] = ids[obj["id"]]
    for link in document["relationships"]:
        link["subject"], link["object"] = ids[link["subject"]], ids[link["object"]]
    return document


@transaction.atomic
def image_wait_for_review(*, image: Image) -> Image:
    """The image leaves annotation for review (its annotation is decided elsewhere: nothing is written)."""
    locked = lock_image(image.pk)
    locked.stage = Stage.REVIEW
    locked.save(update_fields=["stage", *locked.clear_lease()])
    return locked


@transaction.atomic
def annotation_accept_decided(
    *, image: Image, document: Mapping[str, Any], decided_by: Any
) -> dict[str, Any]:
    """Write the decided document as the image's annotation and accept the image (the training set when
    its split is train). `decided_by` is the reviewer who accepted it, or None for an automatic accept."""
    locked = lock_image(image.pk)
    index = vocabulary_index(locked.collection.vocabulary)
    scene = parse_annotation(locked, document, index.core)
    annotation_delete(image_ids=[locked.pk])
    annotation_insert(images=[locked], scenes=[scene], index=index)
    now = timezone.now()
    locked.stage = Stage.ACCEPTED
    locked.annotated_at = locked.annotated_at or now
    locked.returned = False
    locked.reviewed_by = decided_by
    locked.reviewed_at = now
    locked.save(
        update_fields=[
            "stage",
            "annotated_at",
            "returned",
            "reviewed_by",
            "reviewed_at",
            *locked.clear_lease(),
        ]
    )
    return image_annotation(image=locked)
