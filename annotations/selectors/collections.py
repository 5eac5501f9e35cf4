"""Reads of collections and members. `access_collection` is the one place where scope is checked."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from django.db.models import Count, Q, QuerySet
from django.utils import timezone

from accounts.roles import COLLECTION_WORKERS, OPERATIONS, Role, is_admin, may, may_as, roles_of
from annotations.errors import AnnotationErrorCode
from annotations.models import Collection, CollectionMembership, Image, Split, Stage
from vtt_site.errors import NotFoundError, PermissionDeniedError
from vtt_site.leases import lease_free


def collections_visible_to(user: Any) -> QuerySet[Collection]:
    collections = Collection.objects.select_related("vocabulary")
    if is_admin(user):
        return collections
    return collections.filter(memberships__user=user)


def collection_list(*, user: Any) -> QuerySet[Collection]:
    return collections_visible_to(user).order_by("name")


def access_collection(*, user: Any, collection_id: int, operation: str | None = None) -> Collection:
    """The collection, if the user is an admin or one of its members. Otherwise a 404, which does not
    tell an outsider whether the collection exists. With `operation`, the member must also hold a role
    there that allows it (`require_member_role`)."""
    collection = collections_visible_to(user).filter(pk=collection_id).first()
    if collection is None:
        raise NotFoundError(
            AnnotationErrorCode.COLLECTION_NOT_FOUND,
            f"There is no collection {collection_id}, or you are not one of its members.",
        )
    require_member_role(user=user, collection=collection, operation=operation)
    return collection


def member_role(*, user: Any, collection: Collection) -> str | None:
    """The role the user's membership of the collection grants (annotator, reviewer, operator)."""
    if not getattr(user, "is_authenticated", False):
        return None
    found = CollectionMembership.objects.filter(collection=collection, user=user)
    return found.values_list("role", flat=True).first()


def memberships_lacking_role(*, user: Any) -> list[CollectionMembership]:
    """The user's memberships whose role they do not hold on the site: an admin added them to the
    collection but not to the role's group, so they may open it and do nothing there (decision 0006: a
    membership grants its role only as far as the global role allows). The home page says so."""
    if not getattr(user, "is_authenticated", False) or is_admin(user):
        return []
    held = [role.value for role in roles_of(user)]
    found = CollectionMembership.objects.filter(user=user).exclude(role__in=held)
    return list(found.select_related("collection").order_by("collection__name"))


def member_may(*, user: Any, collection: Collection, operation: str) -> bool:
    """Decision 0006: inside a collection a user acts only in the role their membership grants there,
    and only as far as their global role allows too. Admins may everything everywhere."""
    if is_admin(user):
        return True
    if OPERATIONS[operation] >= COLLECTION_WORKERS:
        # Any member may: and the collection was reached through `collections_visible_to`, so the user
        # is one. No query.
        return may(user, operation)
    role = member_role(user=user, collection=collection)
    return may_as(user, operation, frozenset({Role(role)}) if role else frozenset())


def require_member_role(*, user: Any, collection: Collection, operation: str | None) -> None:
    if operation is None or member_may(user=user, collection=collection, operation=operation):
        return
    role = member_role(user=user, collection=collection)
    raise PermissionDeniedError(
        AnnotationErrorCode.MEMBER_ROLE_FORBIDS,
        f"You are a member of this collection as {role}, and that role does not allow this here; "
        "an admin can change your membership.",
    )


def member_list(*, collection: Collection) -> QuerySet[CollectionMembership]:
    return collection.memberships.select_related("user").order_by("user__username")


# Not a stored stage: the images of the annotation stage nobody has worked on yet (never annotated, not
# sent back, no live lease), as counted by the collection's progress.
NEW = "new"


def new_images(now=None) -> Q:
    return Q(stage=Stage.ANNOTATE, annotated_at__isnull=True, returned=False) & lease_free(
        now or timezone.now()
    )


def _stage_counts(now) -> dict[str, Count]:
    new = new_images(now)
    return {
        "total": Count("id"),
        "new": Count("id", filter=new),
        "in_annotation": Count("id", filter=Q(stage=Stage.ANNOTATE) & ~new),
        "in_review": Count("id", filter=Q(stage=Stage.REVIEW)),
        "accepted": Count("id", filter=Q(stage=Stage.ACCEPTED)),
    }


def collection_progress(*, collection: Collection) -> dict[str, Any]:
    """Images new (never annotated, nobody on them) / in annotation / in review / accepted, overall
    and per split, in one query."""
    return collections_progress(collections=[collection])[collection.pk]


def collections_progress(*, collections: Iterable[Collection]) -> dict[int, dict[str, Any]]:
    """`collection_progress` for many collections, still in one query (the home page lists them all)."""
    ids = [collection.pk for collection in collections]
    # values() with annotate(**counts): the counts are keys the stubs cannot see.
    rows: Iterable[Mapping[str, Any]] = (
        Image.objects.filter(collection_id__in=ids)
        .values("collection_id", "split")
        .annotate(**_stage_counts(timezone.now()))
        .order_by()
    )
    keys = ("total", "new", "in_annotation", "in_review", "accepted")
    by_collection = {pk: {split.value: dict.fromkeys(keys, 0) for split in Split} for pk in ids}
    for row in rows:
        by_collection[row["collection_id"]][row["split"]] = {key: row[key] for key in keys}
    return {
        pk: {**{key: sum(counts[key] for counts in by_split.values()) for key in keys}, "by_split": by_split}
        for pk, by_split in by_collection.items()
    }


def training_images(*, collection: Collection) -> QuerySet[Image]:
    """The training set of a collection (docs/method.md section 7): reviewed, completely annotated train images."""
    return Image.objects.filter(collection=collection, split=Split.TRAIN, stage=Stage.ACCEPTED)


def collection_find(*, reference: str) -> Collection:
    """A collection by id or by name, for the command line (which is trusted: no membership check)."""
    found = Collection.objects.select_related("vocabulary")
    collection = found.filter(pk=int(reference)).first() if reference.isdigit() else None
    collection = collection or found.filter(name=reference).first()
    if collection is None:
        raise NotFoundError(
            AnnotationErrorCode.COLLECTION_NOT_FOUND, f"No collection has the id or name {reference!r}."
        )
    return collection
