"""Writes of collections and their members."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction

from annotations.errors import AnnotationErrorCode
from annotations.models import Collection, CollectionMembership, Image, MemberRole, Vocabulary
from vtt_site.errors import ConflictError, NotFoundError
from vtt_site.leases import lease_release_all


@transaction.atomic
def collection_create(
    *, name: str, vocabulary: Vocabulary, description: str = "", created_by: Any = None
) -> Collection:
    name = name.strip()
    try:
        with transaction.atomic():
            return Collection.objects.create(
                name=name, vocabulary=vocabulary, description=description, created_by=created_by
            )
    except IntegrityError:
        raise ConflictError(
            AnnotationErrorCode.COLLECTION_NAME_TAKEN,
            f"A collection named {name!r} exists already; choose another name.",
            fields={"name": ["Already taken."]},
        ) from None


@transaction.atomic
def membership_set(
    *, collection: Collection, user_id: int, role: MemberRole
) -> tuple[CollectionMembership, bool]:
    """Make the user a member with this role (or change their role); True when they were not a member."""
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        raise NotFoundError(
            AnnotationErrorCode.USER_NOT_FOUND,
            f"There is no active user {user_id}.",
            fields={"user": ["Unknown user."]},
        )
    membership, created = CollectionMembership.objects.select_for_update().get_or_create(
        collection=collection, user=user, defaults={"role": role}
    )
    if not created and membership.role != role:
        membership.role = role
        membership.save(update_fields=["role"])
    return membership, created


@transaction.atomic
def membership_remove(*, collection: Collection, user_id: int) -> None:
    """Remove a member; the images they hold in this collection go back to the queues at once."""
    deleted, _ = CollectionMembership.objects.filter(collection=collection, user_id=user_id).delete()
    if not deleted:
        raise NotFoundError(
            AnnotationErrorCode.MEMBER_NOT_FOUND,
            f"User {user_id} is not a member of collection {collection.name!r}.",
        )
    lease_release_all(Image.objects.filter(collection=collection), user_id)
