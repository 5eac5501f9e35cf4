"""An annotator's work on their copy: save (checked as an annotation save is), submit, give back.

Submitting the last copy of an image merges the image's copies in the same transaction
(crowd.services.merge; decision 0090); submitting a copy of a gold image has it scored against the gold
answer, and the pause rule applied, by a task once the submit commits (crowd.services.gold). A submit
on gold runs the same statements as any submit that is not an image's last (the merge finds the image
merged already), so that neither its answer nor its time tells an annotator that the image was gold.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction
from django.utils import timezone

from annotations.services.annotation import image_lease_minutes
from annotations.services.decided import annotation_checked
from crowd.errors import CrowdErrorCode
from crowd.models import Copy, CopyState
from crowd.queues import GOLD_SCORE
from crowd.services.merge import merge_if_complete
from vtt_site.errors import ConflictError
from vtt_site.leases import lease_release, lease_renew, lease_require

QUEUE = "the crowd queue"


def _lock(copy: Copy) -> Copy:
    return (
        Copy.objects.select_for_update(of=("self",))
        .select_related("image__collection__vocabulary")
        .get(pk=copy.pk)
    )


def _require_open(locked: Copy, user: Any) -> None:
    if locked.state == CopyState.SUBMITTED:
        raise ConflictError(
            CrowdErrorCode.COPY_SUBMITTED, "You submitted this image already: it can no longer change."
        )
    lease_require(locked, user, what="this image", queue=QUEUE)


@transaction.atomic
def copy_save(*, copy: Copy, user: Any, document: Mapping[str, Any]) -> Copy:
    """Replace the copy's document; refused as an annotation save would be, and then nothing changes."""
    locked = _lock(copy)
    _require_open(locked, user)
    checked = annotation_checked(image=locked.image, document=document)
    locked.document = {"objects": checked["objects"], "relationships": checked["relationships"]}
    locked.save(update_fields=["document"])
    lease_renew(locked, minutes=image_lease_minutes())
    return locked


@transaction.atomic
def copy_submit(*, copy: Copy, user: Any) -> Copy:
    """Hand the copy in (complete, as a submit requires). The last copy of an image merges them all."""
    locked = _lock(copy)
    _require_open(locked, user)
    annotation_checked(image=locked.image, document=locked.document or {}, complete=True)
    locked.state = CopyState.SUBMITTED
    locked.submitted_at = timezone.now()
    locked.save(update_fields=["state", "submitted_at", *locked.clear_lease()])
    if locked.gold:
        copy_id = locked.pk
        transaction.on_commit(lambda: GOLD_SCORE.send(copy_id, what="the score of work on a gold image"))
    # On a gold image this finds the image merged already and does nothing: the same statements as any
    # submit but an image's last (tests/crowd/test_gold.py holds them the same).
    merge_if_complete(image=locked.image)
    return locked


@transaction.atomic
def copy_leave(*, copy: Copy, user: Any) -> None:
    """Give the image back: the copy and its draft are deleted, and its place goes to someone else."""
    locked = _lock(copy)
    _require_open(locked, user)
    lease_release(locked, user, what="this image")
    locked.delete()
