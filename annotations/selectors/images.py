"""Reads of images, scoped through the collections the user may see."""

from __future__ import annotations

from typing import Any

from django.db.models import Q, QuerySet
from django.urls import reverse

from accounts.roles import is_admin
from annotations.errors import AnnotationErrorCode
from annotations.models import Collection, Image
from annotations.routing import images_hidden
from annotations.selectors.collections import (
    NEW,
    collections_visible_to,
    member_role,
    new_images,
    require_member_role,
)
from vtt_site.errors import NotFoundError, PermissionDeniedError

_USERS = ("annotator", "lease_holder", "reviewed_by", "corrected_by")


def image_list(
    *,
    collection: Collection,
    split: str | None = None,
    stage: str | None = None,
    name: str | None = None,
) -> QuerySet[Image]:
    """`stage` is a stored stage or "new"; `name` matches part of the file name, in any case."""
    images = Image.objects.filter(collection=collection).select_related(*_USERS)
    if split:
        images = images.filter(split=split)
    if stage == NEW:
        images = images.filter(new_images())
    elif stage:
        images = images.filter(stage=stage)
    if name:
        images = images.filter(original_name__icontains=name)
    return images.order_by("id")


# An image without pixels: a scene graph imported without its image file. No vision system can look at
# it and no operator can truth it. The one place that says what "has pixels" means.
_NO_PIXELS = Q(file="")


def without_pixels(images: QuerySet[Image]) -> QuerySet[Image]:
    return images.filter(_NO_PIXELS)


def with_pixels(images: QuerySet[Image]) -> QuerySet[Image]:
    return images.exclude(_NO_PIXELS)


def access_image(*, user: Any, image_id: int, operation: str | None = None) -> Image:
    """The image, if its collection is visible to the user (see `access_collection`); a 404 otherwise.
    With `operation`, the user's membership role there must allow it (a 403 otherwise)."""
    image = (
        Image.objects.select_related("collection__vocabulary", *_USERS)
        .filter(pk=image_id, collection__in=collections_visible_to(user).values("pk"))
        .first()
    )
    if image is None:
        raise NotFoundError(
            AnnotationErrorCode.IMAGE_NOT_FOUND,
            f"There is no image {image_id}, or you are not a member of its collection.",
        )
    require_member_role(user=user, collection=image.collection, operation=operation)
    if images_hidden_from(collection=image.collection, user=user):
        raise NotFoundError(  # as for an image that does not exist: it says nothing of which images do
            AnnotationErrorCode.IMAGE_NOT_FOUND,
            f"There is no image {image_id}, or you are not a member of its collection.",
        )
    return image


def images_hidden_from(*, collection: Collection, user: Any) -> str | None:
    """Why the user may not read the collection's images (annotations.routing), or None: admins always may."""
    if is_admin(user):
        return None
    return images_hidden(collection.pk, member_role(user=user, collection=collection))


def require_images_visible(*, collection: Collection, user: Any) -> None:
    """403 with the reason when the user may not read the collection's images (a list, an export)."""
    said = images_hidden_from(collection=collection, user=user)
    if said is not None:
        raise PermissionDeniedError(AnnotationErrorCode.MEMBER_ROLE_FORBIDS, said)


def image_picture(image: Image) -> dict[str, Any]:
    """What a page needs to draw an image: its name, size and the address of its pixels (None when it
    has none), for the annotation pages and the operator's alike."""
    return {
        "id": image.pk,
        "name": image.original_name,
        "width": image.width,
        "height": image.height,
        "file_url": reverse("api:image-file", args=[image.pk]) if image.file else None,
    }
