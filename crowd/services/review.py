"""The crowd's review: a reviewer takes a merge waiting for review (a lease on the merge, vtt_site.leases),
may correct it or pick an annotator's version instead, and accepts it; accepting writes it as the
image's annotation (annotations.services.decided). A reviewer never reviews an image they drew."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.roles import is_admin
from annotations.errors import AnnotationErrorCode
from annotations.models import Collection
from annotations.services.annotation import image_lease_minutes
from annotations.services.decided import annotation_accept_decided, annotation_checked
from crowd.errors import CrowdErrorCode
from crowd.models import Copy, ImageMerge, MergeState
from crowd.selectors import require_crowd
from vtt_site.errors import ConflictError, PermissionDeniedError
from vtt_site.leases import lease_release, lease_renew, lease_renew_held, lease_require, lease_take

QUEUE = "the crowd review"


@transaction.atomic
def merge_review_next(*, collection: Collection, user: Any) -> ImageMerge | None:
    """The merge the reviewer holds, else the oldest waiting one of an image they did not draw."""
    require_crowd(collection)
    minutes = image_lease_minutes()
    waiting = ImageMerge.objects.filter(image__collection=collection, state=MergeState.REVIEW)
    held = lease_renew_held(waiting, user, minutes=minutes)
    if held is not None:
        return held
    drawn = Copy.objects.filter(annotator=user, image__collection=collection).values("image_id")
    return lease_take(waiting.exclude(image_id__in=drawn), user, minutes=minutes, related=("image",))


def _lock(merge: ImageMerge) -> ImageMerge:
    return (
        ImageMerge.objects.select_for_update(of=("self",))
        .select_related("image__collection__vocabulary")
        .get(pk=merge.pk)
    )


def _require_reviewer(locked: ImageMerge, user: Any) -> None:
    if locked.state != MergeState.REVIEW:
        raise ConflictError(
            CrowdErrorCode.MERGE_DECIDED, f"{locked.image.original_name} was accepted already."
        )
    if Copy.objects.filter(image_id=locked.image_id, annotator_id=user.pk).exists():
        raise PermissionDeniedError(
            AnnotationErrorCode.SELF_REVIEW,
            f"You drew {locked.image.original_name}; another reviewer must review it.",
        )
    lease_require(locked, user, what=locked.image.original_name, queue=QUEUE)


@transaction.atomic
def merge_correct(*, merge: ImageMerge, user: Any, document: Mapping[str, Any]) -> ImageMerge:
    """The reviewer's change to the merge (an edit, or an annotator's version picked), checked as an
    annotation save is; it is what Accept then writes."""
    locked = _lock(merge)
    _require_reviewer(locked, user)
    checked = annotation_checked(image=locked.image, document=document)
    locked.merged = {"objects": checked["objects"], "relationships": checked["relationships"]}
    locked.save(update_fields=["merged"])
    lease_renew(locked, minutes=image_lease_minutes())
    return locked


@transaction.atomic
def merge_accept(*, merge: ImageMerge, user: Any) -> ImageMerge:
    """Write the merge (as corrected) as the image's annotation and accept the image."""
    locked = _lock(merge)
    _require_reviewer(locked, user)
    annotation_accept_decided(image=locked.image, document=locked.merged, decided_by=user)
    locked.state = MergeState.ACCEPTED
    locked.decided_by = user
    locked.decided_at = timezone.now()
    locked.save(update_fields=["state", "decided_by", "decided_at", *locked.clear_lease()])
    return locked


@transaction.atomic
def merge_leave(*, merge: ImageMerge, user: Any) -> None:
    locked = _lock(merge)
    lease_release(locked, user, what=locked.image.original_name, may_release_any=is_admin(user))
