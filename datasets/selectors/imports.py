"""Reads of import jobs, scoped like their collection."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from annotations.errors import AnnotationErrorCode
from annotations.models import Collection
from annotations.selectors.collections import collections_visible_to, require_member_role
from datasets.models import ImportJob
from vtt_site.errors import NotFoundError


def access_import(*, user: Any, job_id: int, operation: str | None = None) -> ImportJob:
    job = (
        ImportJob.objects.select_related("collection", "created_by")
        .filter(pk=job_id, collection__in=collections_visible_to(user).values("pk"))
        .first()
    )
    if job is None:
        raise NotFoundError(
            AnnotationErrorCode.IMPORT_NOT_FOUND,
            f"There is no import {job_id}, or you are not a member of its collection.",
        )
    require_member_role(user=user, collection=job.collection, operation=operation)
    return job


def import_list(*, collection: Collection) -> QuerySet[ImportJob]:
    """The collection's imports, newest first (the caller checked access to the collection)."""
    return ImportJob.objects.filter(collection=collection).order_by("-created_at", "-id")
