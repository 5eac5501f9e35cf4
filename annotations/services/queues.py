"""The annotation and review queues: leases on images (vtt_site.leases), and the reviewer's decision."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from accounts.roles import is_admin
from annotations.errors import AnnotationErrorCode
from annotations.models import Collection, Image, Stage
from annotations.services.annotation import image_lease_minutes, lock_image, require_lease
from vtt_site.errors import ApplicationError, CommonErrorCode, PermissionDeniedError
from vtt_site.leases import lease_release as release
from vtt_site.leases import lease_renew_held, lease_take

ACCEPT = "accept"
SEND_BACK = "send_back"
DECISIONS = (ACCEPT, SEND_BACK)
IMAGE_RELATED = ("annotator", "lease_holder", "reviewed_by")


@transaction.atomic
def annotation_next(*, collection: Collection, user: Any) -> Image | None:
    """The image the annotator should work on: one they hold already, else one a reviewer sent back to
    them, else a free one (never one sent back to someone else). None when nothing is waiting."""
    now, minutes = timezone.now(), image_lease_minutes()
    waiting = Image.objects.filter(collection=collection, stage=Stage.ANNOTATE)
    held = lease_renew_held(waiting, user, minutes=minutes, now=now)
    if held is not None:
        return held
    # A returned image whose annotator was deleted has nobody to return to: it is free for anyone.
    for candidates in (
        waiting.filter(returned=True, annotator=user),
        waiting.filter(Q(returned=False) | Q(annotator__isnull=True)),
    ):
        taken = lease_take(candidates, user, minutes=minutes, related=IMAGE_RELATED, now=now)
        if taken is not None:
            return taken
    return None


@transaction.atomic
def review_next(*, collection: Collection, user: Any) -> Image | None:
    """The image the reviewer should review: one they hold, else a free one they did not annotate."""
    now, minutes = timezone.now(), image_lease_minutes()
    waiting = Image.objects.filter(collection=collection, stage=Stage.REVIEW)
    held = lease_renew_held(waiting, user, minutes=minutes, now=now)
    if held is not None:
        return held
    return lease_take(waiting.exclude(annotator=user), user, minutes=minutes, related=IMAGE_RELATED, now=now)


@transaction.atomic
def image_leave(*, image: Image, user: Any) -> Image:
    """Give the image back to its queue (an admin may release anyone's lease)."""
    locked = lock_image(image.pk)
    release(locked, user, what=locked.original_name, may_release_any=is_admin(user))
    return locked


@transaction.atomic
def review_decide(*, image: Image, user: Any, decision: str, comment: str = "") -> Image:
    """Accept (the image joins the collection's training set when its split is train) or send back to
    its annotator with a comment saying what to fix."""
    locked = lock_image(image.pk)
    if locked.stage == Stage.REVIEW and locked.annotator_id == user.pk:
        raise PermissionDeniedError(
            AnnotationErrorCode.SELF_REVIEW,
            f"You annotated {locked.original_name}; another reviewer must review it.",
        )
    require_lease(locked, user, Stage.REVIEW)
    comment = comment.strip()
    if decision not in DECISIONS:
        raise ApplicationError(
            CommonErrorCode.INVALID,
            f"decision must be one of {', '.join(DECISIONS)}.",
            fields={"decision": ["Unknown."]},
        )
    if decision == SEND_BACK and not comment:
        raise ApplicationError(
            AnnotationErrorCode.COMMENT_REQUIRED,
            "Say what the annotator should fix: sending an image back needs a comment.",
            fields={"comment": ["Required when sending back."]},
        )
    locked.stage = Stage.ACCEPTED if decision == ACCEPT else Stage.ANNOTATE
    locked.returned = decision == SEND_BACK
    locked.review_comment = comment
    locked.reviewed_by = user
    locked.reviewed_at = timezone.now()
    locked.save(
        update_fields=[
            "stage",
            "returned",
            "review_comment",
            "reviewed_by",
            "reviewed_at",
            *locked.clear_lease(),
        ]
    )
    return locked
