"""The annotation and review queues: leases on images, and the reviewer's decision.

Taking an image is a race between members asking at the same moment. On PostgreSQL the candidate row is
locked with `SELECT ... FOR UPDATE SKIP LOCKED`, so concurrent requests pass over each other's rows
instead of waiting; the lease is then written by an UPDATE that repeats the "still free" condition,
which is what keeps SQLite (no row locks, writes serialised) correct as well.
"""

from __future__ import annotations

from typing import Any

from django.db import connection, transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts.roles import is_admin
from annotations.errors import AnnotationErrorCode
from annotations.models import Collection, Image, Stage
from annotations.services.annotation import lease_until, lock_image, require_lease
from vtt_site.errors import ApplicationError, ConflictError, PermissionDeniedError

ACCEPT = "accept"
SEND_BACK = "send_back"
DECISIONS = (ACCEPT, SEND_BACK)
TAKE_ATTEMPTS = 5  # only SQLite can see a candidate taken under it; a few more tries then suffice


@transaction.atomic
def annotation_next(*, collection: Collection, user: Any) -> Image | None:
    """The image the annotator should work on: one they hold already, else one a reviewer sent back to
    them, else a free one (never one sent back to someone else). None when nothing is waiting."""
    now = timezone.now()
    waiting = Image.objects.filter(collection=collection, stage=Stage.ANNOTATE)
    held = _renew(waiting.filter(lease_holder=user), now)
    if held is not None:
        return held
    free = waiting.filter(_lease_free(now))
    # A returned image whose annotator was deleted has nobody to return to: it is free for anyone.
    return _take(free.filter(returned=True, annotator=user), user, now) or _take(
        free.filter(Q(returned=False) | Q(annotator__isnull=True)), user, now
    )


@transaction.atomic
def review_next(*, collection: Collection, user: Any) -> Image | None:
    """The image the reviewer should review: one they hold, else a free one they did not annotate."""
    now = timezone.now()
    waiting = Image.objects.filter(collection=collection, stage=Stage.REVIEW)
    held = _renew(waiting.filter(lease_holder=user), now)
    if held is not None:
        return held
    return _take(waiting.filter(_lease_free(now)).exclude(annotator=user), user, now)


@transaction.atomic
def lease_release(*, image: Image, user: Any) -> Image:
    """Give the image back to its queue (an admin may release anyone's lease)."""
    locked = lock_image(image)
    if locked.lease_holder_id is None:
        raise ConflictError(AnnotationErrorCode.LEASE_NOT_HELD, f"Nobody holds image {locked.pk}.")
    if locked.lease_holder_id != user.pk and not is_admin(user):
        raise ConflictError(
            AnnotationErrorCode.LEASE_NOT_HELD,
            f"You do not hold image {locked.pk}, so you cannot release it.",
        )
    locked.lease_holder = None
    locked.lease_expires_at = None
    locked.save(update_fields=["lease_holder", "lease_expires_at"])
    return locked


@transaction.atomic
def review_decide(*, image: Image, user: Any, decision: str, comment: str = "") -> Image:
    """Accept (the image joins the collection's training set when its split is train) or send back to
    its annotator with a comment saying what to fix."""
    locked = lock_image(image)
    if locked.stage == Stage.REVIEW and locked.annotator_id == user.pk:
        raise PermissionDeniedError(
            AnnotationErrorCode.SELF_REVIEW,
            f"You annotated image {locked.pk}; another reviewer must review it.",
        )
    require_lease(locked, user, Stage.REVIEW)
    comment = comment.strip()
    if decision not in DECISIONS:
        raise ApplicationError(
            "invalid", f"decision must be one of {', '.join(DECISIONS)}.", fields={"decision": ["Unknown."]}
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
    locked.lease_holder = None
    locked.lease_expires_at = None
    locked.save(
        update_fields=[
            "stage",
            "returned",
            "review_comment",
            "reviewed_by",
            "reviewed_at",
            "lease_holder",
            "lease_expires_at",
        ]
    )
    return locked


def _lease_free(now) -> Q:
    return Q(lease_holder__isnull=True) | Q(lease_expires_at__lte=now)


def _renew(held: QuerySet[Image], now) -> Image | None:
    image = held.order_by("id").first()
    if image is not None:
        image.lease_expires_at = lease_until(now)
        image.save(update_fields=["lease_expires_at"])
    return image


def _take(candidates: QuerySet[Image], user: Any, now) -> Image | None:
    locking = candidates
    if connection.features.has_select_for_update_skip_locked:
        locking = candidates.select_for_update(skip_locked=True)
    tried: list[int] = []
    for _ in range(TAKE_ATTEMPTS):
        pk = locking.exclude(pk__in=tried).order_by("id").values_list("pk", flat=True).first()
        if pk is None:
            return None
        if candidates.filter(pk=pk).update(lease_holder=user, lease_expires_at=lease_until(now)):
            return Image.objects.select_related("annotator", "lease_holder", "reviewed_by").get(pk=pk)
        tried.append(pk)
    return None
