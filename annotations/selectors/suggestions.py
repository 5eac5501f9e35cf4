"""Reads of suggestions from a model (decision 0078): a collection's model server, pre-annotation jobs,
who may see an image's suggestions or decide on one, and a suggestion as the annotator's page reads it."""

from __future__ import annotations

from typing import Any

from accounts.roles import is_admin
from annotations.errors import AnnotationErrorCode
from annotations.models import Image, ModelBackend, PreannotationJob, Prediction
from annotations.selectors.collections import (
    access_collection,
    collections_visible_to,
    member_may,
    require_member_role,
)
from annotations.selectors.images import access_image
from annotations.suggestions.secrets import UNUSABLE, secret_usable
from vtt_site.errors import NotFoundError
from vtt_site.leases import holds_lease, lease_require

# Who may change or read a collection's model server may also read every image's suggestions there.
BACKEND_READ = "suggestions.backend.read"


def access_model_backend(*, user: Any, collection_id: int, operation: str) -> ModelBackend:
    """The collection's model server, for a member whose role there allows `operation`; 404 when none."""
    collection = access_collection(user=user, collection_id=collection_id, operation=operation)
    backend = ModelBackend.objects.select_related("collection__vocabulary", "updated_by").filter(
        collection=collection
    )
    found = backend.first()
    if found is None:
        raise model_backend_missing()
    return found


def model_backend_missing() -> NotFoundError:
    return NotFoundError(
        AnnotationErrorCode.MODEL_BACKEND_NOT_SET, "This collection is connected to no model server."
    )


def secret_problem(backend: ModelBackend) -> str:
    """What is wrong with the stored credential, for a person; "" when nothing is (or there is none)."""
    return "" if secret_usable(backend.secret) else UNUSABLE


def access_preannotation(*, user: Any, job_id: int, operation: str) -> PreannotationJob:
    job = (
        PreannotationJob.objects.select_related("collection", "created_by")
        .filter(pk=job_id, collection__in=collections_visible_to(user).values("pk"))
        .first()
    )
    if job is None:
        raise NotFoundError(
            AnnotationErrorCode.PREANNOTATION_NOT_FOUND,
            f"There is no pre-annotation {job_id}, or you are not a member of its collection.",
        )
    access_collection(user=user, collection_id=job.collection_id, operation=operation)
    return job


def access_image_suggestions(*, user: Any, image_id: int, operation: str) -> Image:
    """The image, for the person holding its lease (its annotator, or its reviewer while reviewing), a
    reviewer of its collection, or an admin. Others get 409 (take it from the queue first)."""
    image = access_image(user=user, image_id=image_id, operation=operation)
    if holds_lease(image, user) or is_admin(user):
        return image
    if member_may(user=user, collection=image.collection, operation=BACKEND_READ):
        return image
    lease_require(image, user, what=image.original_name, queue="the annotation queue")
    return image


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
