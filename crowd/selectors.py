"""Reads of the crowd's rows. `access_copy` is where a copy's scope is checked: only its annotator."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Avg, Count, Q, QuerySet

from annotations.models import Collection
from annotations.selectors.collections import require_member_role
from annotations.selectors.images import access_image
from crowd.errors import CrowdErrorCode
from crowd.models import Copy, CopyState, CrowdSettings, GoldImage, ImageMerge, MergeState, Pause
from vtt_site.errors import ConflictError, NotFoundError


def crowd_settings_of(collection: Collection) -> CrowdSettings:
    """The collection's crowd settings; the defaults (one annotator per image) when it has none."""
    found = CrowdSettings.objects.filter(collection=collection).first()
    return found if found is not None else CrowdSettings(collection=collection)


def is_crowd(collection: Collection) -> bool:
    return crowd_settings_of(collection).overlap > 1


def require_crowd(collection: Collection) -> CrowdSettings:
    settings = crowd_settings_of(collection)
    if settings.overlap <= 1:
        raise ConflictError(
            CrowdErrorCode.NOT_A_CROWD,
            f"{collection.name} has one annotator per image: it has no crowd queue, merge or gold.",
        )
    return settings


def access_copy(*, user: Any, copy_id: int, operation: str | None = None) -> Copy:
    """The copy, if the user is its annotator: nobody else reads a copy before its merge (a 404 for
    anyone else, which says nothing of whether it exists). With `operation`, the annotator's membership
    of the collection must still allow it (a 403 otherwise)."""
    copy = (
        Copy.objects.select_related("image__collection__vocabulary")
        .filter(pk=copy_id, annotator_id=getattr(user, "pk", None))
        .first()
    )
    if copy is None:
        raise NotFoundError(CrowdErrorCode.COPY_NOT_FOUND, f"You have no image {copy_id} to work on.")
    require_member_role(user=user, collection=copy.image.collection, operation=operation)
    return copy


def active_pause(*, collection: Collection, user: Any) -> Pause | None:
    return Pause.objects.filter(collection=collection, annotator_id=user.pk, lifted_at__isnull=True).first()


def copy_document(copy: Copy) -> dict[str, Any]:
    """What the annotator sees of their copy: their own objects and relationships, and the size of the
    picture. Nothing names the image (its name, its id), so a gold image reads as any other."""
    document = copy.document or {}
    return {
        "width": copy.image.width,
        "height": copy.image.height,
        "objects": document.get("objects", []),
        "relationships": document.get("relationships", []),
    }


def access_merge(*, user: Any, image_id: int, operation: str | None = None) -> ImageMerge:
    """The merge of an image of a collection the user is a member of (a 404 otherwise, or when all of
    its copies are not in yet)."""
    image = access_image(user=user, image_id=image_id, operation=operation)
    merge = ImageMerge.objects.select_related("image__collection__vocabulary").filter(image=image).first()
    if merge is None:
        raise NotFoundError(
            CrowdErrorCode.MERGE_NOT_FOUND,
            f"{image.original_name} has no merge: not all of its annotators' work is in yet.",
        )
    return merge


def merge_versions(merge: ImageMerge) -> list[dict[str, Any]]:
    """Each annotator's version of the merged image, named by their user name, for its reviewers."""
    copies = (
        Copy.objects.filter(image_id=merge.image_id, gold=False, state=CopyState.SUBMITTED)
        .select_related("annotator")
        .order_by("pk")
    )
    return [
        {
            "annotator": copy.annotator.username,
            "objects": (copy.document or {}).get("objects", []),
            "relationships": (copy.document or {}).get("relationships", []),
        }
        for copy in copies
    ]


def merge_disagreements(merge: ImageMerge) -> list[dict[str, Any]]:
    """The merge's disagreements with annotators named by their user names."""
    names = user_names({int(a) for d in merge.disagreements for a in (*d["yes"], *d["no"], *d["sources"])})

    def named(ids):
        return [names.get(int(a), "?") for a in ids]

    return [
        d
        | {
            "yes": named(d["yes"]),
            "no": named(d["no"]),
            "sources": {names.get(int(a), "?"): k for a, k in d["sources"].items()},
        }
        for d in merge.disagreements
    ]


def user_names(ids: set[int]) -> dict[int, str]:
    return dict(get_user_model().objects.filter(pk__in=ids).values_list("pk", "username"))


def merge_list(*, collection: Collection, state: str | None = None) -> QuerySet[ImageMerge]:
    merges = ImageMerge.objects.filter(image__collection=collection).select_related("image")
    if state:
        merges = merges.filter(state=state)
    return merges.order_by("image_id")


def merge_summary(*, collection: Collection) -> dict[str, Any]:
    """The collection's agreement: how many images are merged, waiting for review or accepted, and the
    mean of each agreement figure over its merged images."""
    merges = ImageMerge.objects.filter(image__collection=collection)
    figures = merges.aggregate(
        merged=Count("pk"),
        waiting=Count("pk", filter=Q(state=MergeState.REVIEW)),
        box_f1=Avg("box_f1"),
        attribute_agreement=Avg("attribute_agreement"),
        relationship_agreement=Avg("relationship_agreement"),
    )
    figures["accepted"] = figures["merged"] - figures["waiting"]
    figures["in_progress"] = (
        Copy.objects.filter(image__collection=collection, gold=False, image__crowd_merge__isnull=True)
        .values("image_id")
        .distinct()
        .count()
    )
    figures["gold_images"] = GoldImage.objects.filter(image__collection=collection).count()
    return figures


def pauses_active(*, collection: Collection) -> QuerySet[Pause]:
    return Pause.objects.filter(collection=collection, lifted_at__isnull=True).select_related("annotator")


def copies_export(*, collection: Collection) -> Iterator[dict[str, Any]]:
    """Each annotator's submitted work on the collection's merged images and on its gold images, as
    scene-graph records with who drew them: what the export of the individual copies writes. Work on an
    image not merged yet is left out: nobody reads it before its merge."""
    copies = (
        Copy.objects.filter(image__collection=collection, state=CopyState.SUBMITTED)
        .filter(Q(image__crowd_merge__isnull=False) | Q(gold=True))
        .select_related("image", "annotator")
        .order_by("image_id", "pk")
    )
    for copy in copies.iterator(chunk_size=500):
        document = copy.document or {}
        yield {
            "image": copy.image.original_name,
            "width": copy.image.width,
            "height": copy.image.height,
            "annotator": copy.annotator.username,
            "gold": copy.gold,
            "submitted_at": copy.submitted_at.isoformat() if copy.submitted_at else None,
            "objects": document.get("objects", []),
            "relationships": document.get("relationships", []),
        }
