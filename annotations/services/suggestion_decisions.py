"""The annotator's decisions on a model's suggestions: rejecting one, taking a rejection back (accepting
is saving: annotations.services.suggestion_links; fetching them: annotations.services.suggestions)."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from annotations.errors import AnnotationErrorCode
from annotations.models import ObjectAnnotation, Prediction, PredictionStatus, Stage
from annotations.services.annotation import lock_image, require_lease
from vtt_site.errors import ConflictError


@transaction.atomic
def suggestion_reject(*, prediction: Prediction, user: Any) -> Prediction:
    """The annotator holding the image says the suggestion is wrong. Rejecting twice changes nothing; a
    suggestion that is a box of the saved annotation is not rejected here (delete the box and save)."""
    locked = _lock_for_decision(prediction, user)
    if locked.status != PredictionStatus.REJECTED:
        locked.status = PredictionStatus.REJECTED
        locked.decided_by = user
        locked.decided_at = timezone.now()
        locked.save(update_fields=["status", "decided_by", "decided_at"])
    return locked


@transaction.atomic
def suggestion_restore(*, prediction: Prediction, user: Any) -> Prediction:
    """A rejection taken back (a slip of the key): the suggestion is pending again."""
    locked = _lock_for_decision(prediction, user)
    if locked.status != PredictionStatus.PENDING:
        locked.status = PredictionStatus.PENDING
        locked.decided_by = None
        locked.decided_at = None
        locked.save(update_fields=["status", "decided_by", "decided_at"])
    return locked


def _lock_for_decision(prediction: Prediction, user: Any) -> Prediction:
    """The suggestion locked, once its image is (as a save locks it): only the holder of the image's
    annotation lease decides, and never on a suggestion a saved box comes from."""
    image = lock_image(prediction.image_id)
    require_lease(image, user, Stage.ANNOTATE)
    locked = Prediction.objects.select_for_update().get(pk=prediction.pk)
    if ObjectAnnotation.objects.filter(suggestion=locked).exists():
        raise ConflictError(
            AnnotationErrorCode.SUGGESTION_ACCEPTED,
            "This suggestion is a box of the saved annotation: delete the box and save to reject it.",
        )
    return locked
