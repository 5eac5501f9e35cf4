"""The annotation and review queues: leases on images (vtt_site.leases), and the reviewer's decision."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from accounts.roles import is_admin
from annotations.errors import AnnotationErrorCode
from annotations.models import Collection, Image, Stage
from annotations.routing import require_own_queue
from annotations.selectors.annotation import image_annotation
from annotations.services.annotation import image_lease_minutes, lock_image, require_reviewer
from annotations.services.suggestions import active_backend, suggestions_fetch_ahead
from vtt_site.errors import ApplicationError, CommonErrorCode
from vtt_site.leases import lease_free, lease_renew_held, lease_take
from vtt_site.leases import lease_release as release

ACCEPT = "accept"
SEND_BACK = "send_back"
DECISIONS = (ACCEPT, SEND_BACK)
IMAGE_RELATED = ("annotator", "lease_holder", "reviewed_by", "corrected_by")


@transaction.atomic
def annotation_next(*, collection: Collection, user: Any) -> Image | None:
    """The image the annotator should work on: one they hold already, else one a reviewer sent back to
    them, else a free one (never one sent back to someone else). None when nothing is waiting. When the
    collection asks a model, its suggestions for this image and the next are fetched ahead."""
    require_own_queue(collection.pk)
    now, minutes = timezone.now(), image_lease_minutes()
    waiting = Image.objects.filter(collection=collection, stage=Stage.ANNOTATE)
    held = lease_renew_held(waiting, user, minutes=minutes, now=now)
    if held is not None:
        suggestions_ask_ahead(image=held, user=user)
        return held
    for candidates in _annotation_candidates(waiting, user):
        taken = lease_take(candidates, user, minutes=minutes, related=IMAGE_RELATED, now=now)
        if taken is not None:
            suggestions_ask_ahead(image=taken, user=user)
            return taken
    return None


def _annotation_candidates(waiting: QuerySet[Image], user: Any) -> tuple[QuerySet[Image], ...]:
    """Where the annotator's next image comes from, in order: sent back to them, then free ones. A returned
    image whose annotator was deleted has nobody to return to: it is free for anyone."""
    return (
        waiting.filter(returned=True, annotator=user),
        waiting.filter(Q(returned=False) | Q(annotator__isnull=True)),
    )


def annotation_next_ahead(*, collection: Collection, user: Any, count: int = 1) -> list[int]:
    """The images `annotation_next` would give the annotator next (at most `count`): those nobody holds,
    so not the one they just took. Whoever takes one first gets it: a good guess, not a promise."""
    waiting = Image.objects.filter(lease_free(timezone.now()), collection=collection, stage=Stage.ANNOTATE)
    ahead: list[int] = []
    for candidates in _annotation_candidates(waiting, user):
        ahead += (
            candidates.exclude(pk__in=ahead).order_by("pk").values_list("pk", flat=True)[: count - len(ahead)]
        )
        if len(ahead) >= count:
            break
    return ahead


def suggestions_ask_ahead(*, image: Image, user: Any) -> None:
    """While the annotator works on the image they took, the model server is asked for its suggestions
    and for those of the image they will probably take next, so that neither the page nor "Annotate
    next" waits for them (decision 0078). Only for a collection connected to a model server; the asking
    is queued once this transaction commits (`suggestions_fetch_ahead`)."""
    if active_backend(image.collection_id) is None:
        return
    ahead = annotation_next_ahead(collection=image.collection, user=user)
    suggestions_fetch_ahead(image_ids=[image.pk, *ahead])


@transaction.atomic
def review_next(*, collection: Collection, user: Any) -> Image | None:
    """The image the reviewer should review: one they hold, else a free one they did not annotate."""
    require_own_queue(collection.pk)
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
def review_decide(*, image: Image, user: Any, decision: str, comment: str = "", object_id: str = "") -> Image:
    """Accept (the image joins the collection's training set when its split is train) or send back to
    its annotator with a comment saying what to fix, pinned to one box (`object_id`, "o3") or not."""
    locked = lock_image(image.pk)
    require_reviewer(locked, user)
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
    if object_id and object_id not in {o["id"] for o in image_annotation(image=locked)["objects"]}:
        raise ApplicationError(
            CommonErrorCode.INVALID,
            f"The annotation has no box {object_id}: pin the comment to one of its boxes, or to none.",
            fields={"object": ["Not a box of this annotation."]},
        )
    locked.stage = Stage.ACCEPTED if decision == ACCEPT else Stage.ANNOTATE
    locked.returned = decision == SEND_BACK
    locked.review_comment = comment
    locked.review_comment_object = object_id if comment else ""
    locked.reviewed_by = user
    locked.reviewed_at = timezone.now()
    locked.save(
        update_fields=[
            "stage",
            "returned",
            "review_comment",
            "review_comment_object",
            "reviewed_by",
            "reviewed_at",
            *locked.clear_lease(),
        ]
    )
    return locked
