"""Saving and submitting an image's annotation.

The whole scene graph is validated by `kernel.scene.parse_scene` against the collection's
vocabulary (boxes clipped to the image and not degenerate, attribute values of the type, one value per
exclusive group, relationships allowed for the pair, no self-relationship, symmetric ones kept once),
then the image's annotation is replaced in one transaction: all or nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone

from annotations.conf import conf
from annotations.errors import AnnotationErrorCode
from annotations.models import Image, ObjectAnnotation, RelationshipAnnotation, Stage
from annotations.models.annotation import OBJECT_COLUMNS, RELATIONSHIP_COLUMNS
from annotations.selectors.annotation import image_annotation
from annotations.selectors.vocabularies import VocabularyIndex, vocabulary_index
from annotations.services.bulk import insert_returning_ids, insert_rows
from annotations.services.suggestion_links import suggestions_link, suggestions_record
from kernel.scene import OBJECT_FLAGS, Scene, parse_scene, unfilled_exclusive_groups
from kernel.vocabulary import Vocabulary as CoreVocabulary
from vtt_site.errors import ApplicationError, ConflictError, PermissionDeniedError
from vtt_site.leases import holds_lease, lease_renew, lease_require


@transaction.atomic
def annotation_save(*, image: Image, user: Any, document: Mapping[str, Any]) -> dict[str, Any]:
    """Replace the image's annotation with `{"objects": [...], "relationships": [...]}`; only the
    holder of the image's annotation lease may. Returns the stored record (ids "o1".."oN")."""
    locked = lock_image(image.pk)
    require_lease(locked, user, Stage.ANNOTATE)
    _replace_annotation(locked, document, user)
    now = timezone.now()
    locked.annotator = user
    locked.annotated_at = locked.annotated_at or now
    locked.save(update_fields=["annotator", "annotated_at"])
    lease_renew(locked, minutes=image_lease_minutes(), now=now)  # working on it is a sign of life
    return image_annotation(image=locked)


@transaction.atomic
def annotation_correct(*, image: Image, user: Any, document: Mapping[str, Any]) -> dict[str, Any]:
    """The reviewer holding the image's review lease fixes a small mistake before deciding, instead of
    sending the image back for it. The same rules as a save; the change is recorded as the reviewer's
    (`corrected_by`), and the annotator stays the person who drew the annotation."""
    locked = lock_image(image.pk)
    require_reviewer(locked, user)
    _replace_annotation(locked, document, user)
    now = timezone.now()
    locked.corrected_by = user
    locked.corrected_at = now
    locked.save(update_fields=["corrected_by", "corrected_at"])
    lease_renew(locked, minutes=image_lease_minutes(), now=now)
    return image_annotation(image=locked)


def require_reviewer(locked: Image, user: Any) -> None:
    """The user holds the image's review lease and is not who annotated it."""
    if locked.stage == Stage.REVIEW and locked.annotator_id == user.pk:
        raise PermissionDeniedError(
            AnnotationErrorCode.SELF_REVIEW,
            f"You annotated {locked.original_name}; another reviewer must review it.",
        )
    require_lease(locked, user, Stage.REVIEW)


def _replace_annotation(locked: Image, document: Mapping[str, Any], user: Any) -> None:
    """Everything is checked (the scene, then the suggestions its objects name) before anything is
    written; then the objects, and what they say of the model's suggestions (decision 0078)."""
    index = vocabulary_index(locked.collection.vocabulary)
    scene = parse_annotation(locked, document, index.core)
    links = suggestions_link(locked, document)
    annotation_delete(image_ids=[locked.pk])
    annotation_insert(images=[locked], scenes=[scene], index=index)
    suggestions_record(image=locked, scene=scene, links=links, user=user)


@transaction.atomic
def annotation_submit(*, image: Image, user: Any) -> Image:
    """Hand the annotation over to the review queue (an image with nothing to box is submitted empty)."""
    locked = lock_image(image.pk)
    require_lease(locked, user, Stage.ANNOTATE)
    _require_complete(locked)
    locked.stage = Stage.REVIEW
    locked.annotator = user
    locked.annotated_at = locked.annotated_at or timezone.now()
    locked.returned = False
    locked.save(update_fields=["stage", "annotator", "annotated_at", "returned", *locked.clear_lease()])
    return locked


def _require_complete(image: Image) -> None:
    vocabulary = vocabulary_index(image.collection.vocabulary).core
    require_complete(parse_annotation(image, image_annotation(image=image), vocabulary), vocabulary)


def require_complete(scene: Scene, vocabulary: CoreVocabulary) -> None:
    """Every object with known attributes has a value in each exclusive group (docs/method.md section 2).
    A refusal names every object that lacks one, so the annotator fixes them all in one pass."""
    numbers: dict[str, int] = {}
    gaps: dict[str, list[str]] = {}
    named = []
    for i, obj in enumerate(scene.objects):
        numbers[obj.type] = numbers.get(obj.type, 0) + 1
        missing = unfilled_exclusive_groups(obj, vocabulary)
        if missing:
            # Named as the annotator counts them on the page ("person 2"), never by a stored id.
            gaps[f"objects[{i}].attributes"] = [f"has no {', '.join(missing)}"]
            named.append(f"{obj.type} {numbers[obj.type]} has no {', '.join(missing)}")
    if gaps:
        many = f"{len(named)} objects need attributes: " if len(named) > 1 else ""
        raise ApplicationError(
            AnnotationErrorCode.INCOMPLETE_ATTRIBUTES,
            f'{many}{"; ".join(named)}. Tick one value in each, or switch on "attributes unknown".',
            fields=gaps,
        )


# --- Shared with the queues and the import ---------------------------------------------------------------


def lock_image(image_id: int) -> Image:
    """The image row (with its collection and vocabulary), locked until the transaction ends."""
    return (
        Image.objects.select_for_update(of=("self",))
        .select_related("collection__vocabulary")
        .get(pk=image_id)
    )


def image_lease_minutes() -> int:
    return conf.LEASE_MINUTES


def require_lease(image: Image, user: Any, stage: Stage) -> None:
    """The image is in `stage` and the user holds its lease (vtt_site.leases.lease_require)."""
    if image.stage != stage:
        raise ConflictError(
            AnnotationErrorCode.WRONG_STAGE,
            f"{image.original_name} is {image.get_stage_display()}, not {Stage(stage).label}.",
        )
    queue = "the annotation queue" if stage == Stage.ANNOTATE else "the review queue"
    lease_require(image, user, what=image.original_name, queue=queue)


def holds_image(image: Image, user: Any, stage: Stage) -> bool:
    """`require_lease` as a boolean, for pages."""
    return image.stage == stage and holds_lease(image, user)


def parse_annotation(image: Image, document: Any, vocabulary: CoreVocabulary) -> Scene:
    if not isinstance(document, Mapping):
        document = {"objects": document}  # parse_scene then names what is wrong with it
    scene = {
        "image": image.original_name,
        "width": image.width,
        "height": image.height,
        "objects": document.get("objects", []),
        "relationships": document.get("relationships", []),
    }
    # No root: the paths in errors are those of the document the client sent (`objects[3].bbox`).
    return parse_scene(scene, vocabulary, where="")


def annotation_delete(*, image_ids: Sequence[int]) -> None:
    """Remove the annotations of these images. Call inside a transaction."""
    for chunk in chunked(image_ids):
        RelationshipAnnotation.objects.filter(image_id__in=chunk).delete()
        ObjectAnnotation.objects.filter(image_id__in=chunk).delete()


def annotation_insert(*, images: Sequence[Image], scenes: Sequence[Scene], index: VocabularyIndex) -> None:
    """Store validated scenes as the annotations of images that have none, in bulk."""
    pairs = list(zip(images, scenes, strict=True))
    objects = [row for image, scene in pairs for row in object_rows(image.pk, scene, index)]
    ids = insert_returning_ids(ObjectAnnotation, OBJECT_COLUMNS, objects)
    links: list[tuple] = []
    start = 0
    for image, scene in pairs:
        links.extend(relationship_rows(image.pk, scene, ids[start : start + len(scene.objects)], index))
        start += len(scene.objects)
    insert_rows(RelationshipAnnotation, RELATIONSHIP_COLUMNS, links)


def chunked(items: Sequence[Any], size: int = 2000) -> list[Sequence[Any]]:
    """Slices small enough for an `IN (...)` list on any database (SQLite caps query parameters)."""
    return [items[start : start + size] for start in range(0, len(items), size)]


def object_rows(image_id: int, scene: Scene, index: VocabularyIndex) -> list[tuple]:
    """Values of OBJECT_COLUMNS per object, in the scene's order (which makes their ids o1..oN)."""
    rows = []
    for position, obj in enumerate(scene.objects):
        object_type = index.core.object_type(obj.type)
        rows.append(
            (
                image_id,
                position,
                index.type_ids[obj.type],
                *obj.bbox,
                [a for a in object_type.attributes if a in obj.attributes],
                obj.attributes_known,
                [g.name for g in object_type.groups if g.name in obj.unknown_groups],
                [f for f in OBJECT_FLAGS if f in obj.flags],
                obj.in_tests,
                obj.source or {},
            )
        )
    return rows


def relationship_rows(
    image_id: int, scene: Scene, object_ids: Sequence[int], index: VocabularyIndex
) -> list[tuple]:
    """Values of RELATIONSHIP_COLUMNS per relationship, given the ids of the scene's objects."""
    return [
        (image_id, index.relationship_ids[predicate], object_ids[subject], object_ids[obj])
        for subject, predicate, obj in sorted(scene.relationships)
    ]
