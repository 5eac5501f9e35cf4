"""Reads of the crowd's rows. `access_copy` is where a copy's scope is checked: only its annotator."""

from __future__ import annotations

from typing import Any

from annotations.models import Collection
from annotations.selectors.collections import require_member_role
from crowd.errors import CrowdErrorCode
from crowd.models import Copy, CrowdSettings, Pause
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
