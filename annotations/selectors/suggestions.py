"""Reads of a model's suggestions for an image (decision 0078): what the annotator's page draws.

Only stored `Prediction` rows are read here; asking the model server for them is the server side's
(`annotations.suggestions`). The answer's shape is the one the page reads whatever the source:
`state` "off" (the collection has no model server, or it is switched off), "ready", or "unavailable"
with a `note` a person can read.
"""

from __future__ import annotations

from typing import Any

from annotations.errors import AnnotationErrorCode
from annotations.models import Image, ModelBackend, Prediction, PredictionStatus
from annotations.selectors.collections import collections_visible_to, require_member_role
from vtt_site.errors import NotFoundError

OFF, READY, UNAVAILABLE = "off", "ready", "unavailable"


def image_suggestions(*, image: Image) -> dict[str, Any]:
    """The image's suggestions, pending ones first (then by score, best first), with the state of the
    collection's model server. Decided ones are listed too: the page offers to take a rejection back."""
    backend = ModelBackend.objects.filter(collection_id=image.collection_id).first()
    if backend is None or not backend.enabled:
        return suggestions_answer(OFF)
    predictions = list(Prediction.objects.filter(image=image).select_related("object_type"))
    predictions.sort(key=lambda p: (p.status != PredictionStatus.PENDING, -(p.score or 0.0), p.pk))
    version = backend.model_version or next((p.model_version for p in predictions if p.model_version), "")
    return suggestions_answer(
        READY, model_version=version, suggestions=[suggestion_item(p) for p in predictions]
    )


def suggestions_answer(
    state: str, *, note: str = "", model_version: str = "", suggestions: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    return {"state": state, "note": note, "model_version": model_version, "suggestions": suggestions or []}


def suggestion_item(prediction: Prediction) -> dict[str, Any]:
    return {
        "id": prediction.pk,
        "type": prediction.object_type.name,
        "bbox": [prediction.x, prediction.y, prediction.w, prediction.h],
        "attributes": list(prediction.attributes),
        "score": prediction.score,
        "status": prediction.status,
        "model_version": prediction.model_version,
    }


def access_prediction(*, user: Any, prediction_id: int, operation: str | None = None) -> Prediction:
    """The suggestion, if its image's collection is visible to the user (a 404 otherwise); with
    `operation`, the user's role in that collection must allow it (a 403 otherwise)."""
    prediction = (
        Prediction.objects.select_related("image__collection")
        .filter(pk=prediction_id, image__collection__in=collections_visible_to(user).values("pk"))
        .first()
    )
    if prediction is None:
        raise NotFoundError(
            AnnotationErrorCode.SUGGESTION_NOT_FOUND,
            f"There is no suggestion {prediction_id}, or you are not a member of its image's collection.",
        )
    require_member_role(user=user, collection=prediction.image.collection, operation=operation)
    return prediction
