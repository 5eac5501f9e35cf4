"""A collection filled from a bucket ("source storage"; docs/storage.md), and exports written to one
("target storage").

A source is a bucket and a prefix that the platform's own credentials (S3_*) reach. A sync lists the
objects under the prefix, checks each new image as an upload is checked, and either copies it into the
platform's storage under a random key, or, when the source is the platform's own bucket and `copy` is
off, makes the image's row point at the object where it is. Objects a sync has made images of are
remembered (`BucketObject`): the next sync adds only new ones and reports those the bucket no longer
holds, without deleting their images. An image used where it is keeps its key, which may name it: a
vision system is sent its bytes through the platform, never a presigned URL of that key
(vtt_site.storage.file_response).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile
from django.db import transaction
from django.utils import timezone

from annotations.files import Refused, check_image
from annotations.models import Collection, Split
from annotations.services.images import image_store, limits_from_settings
from datasets.models import BucketObject, BucketSource
from vtt_site.errors import ApplicationError, CommonErrorCode
from vtt_site.storage import STORAGE_ERRORS, in_bucket, storage_refusal, storage_unavailable
from vtt_site.storage_move import bucket_client

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp")
SYNC_LIMIT = (
    200  # new images one request adds (API, page); a larger bucket is synced again, or by the command
)


@dataclass
class SyncReport:
    listed: int = 0  # images under the prefix
    added: int = 0
    present: int = 0  # made into images by an earlier sync
    refused: list[tuple[str, str]] = field(default_factory=list)  # (key, why)
    removed: list[str] = field(default_factory=list)  # synced before, gone from the bucket now
    left: int = 0  # new ones beyond the limit of this sync: sync again

    def as_dict(self) -> dict[str, Any]:
        return {
            "listed": self.listed,
            "added": self.added,
            "present": self.present,
            "refused": [{"key": key, "message": why} for key, why in self.refused],
            "removed": self.removed,
            "left": self.left,
        }


def _refusal(message: str, name: str = "bucket") -> ApplicationError:
    return ApplicationError(CommonErrorCode.INVALID, message, fields={name: [message]})


def bucket_source_set(
    *, collection: Collection, bucket: str, prefix: str = "", copy: bool = True, split: str = Split.TRAIN
) -> BucketSource:
    """Point the collection at a bucket and prefix, once the platform can list it; `copy` off only in
    the platform's own bucket, whose objects it can hand out."""
    prefix = prefix.lstrip("/")
    if split not in Split.values:
        raise _refusal(f"split must be one of {', '.join(Split.values)}.", "split")
    if not copy and not (in_bucket() and bucket == settings.S3_STORAGE_OPTIONS["bucket_name"]):
        raise _refusal("Images can be used without copying only from the platform's own bucket.", "copy")
    location = _location()
    if not copy and location and not prefix.startswith(f"{location}/"):
        raise _refusal(
            f"Without copying, the prefix must be inside the platform's folder {location}/.", "prefix"
        )
    next(_listed(bucket, prefix), None)  # can the platform list it? (a refusal is said here, not later)
    with transaction.atomic():
        source, _ = BucketSource.objects.update_or_create(
            collection=collection, defaults={"bucket": bucket, "prefix": prefix, "copy": copy, "split": split}
        )
    return source


def bucket_source_sync(
    *, source: BucketSource, uploaded_by: Any = None, limit: int | None = None
) -> SyncReport:
    """Add the images under the source's prefix that no sync has added yet (at most `limit`), and
    report the ones it added before that the bucket no longer holds."""
    report = SyncReport()
    known = set(source.synced.values_list("key", flat=True))
    listed: set[str] = set()
    for key in _listed(source.bucket, source.prefix):
        listed.add(key)
        report.listed += 1
        if key in known:
            report.present += 1
        elif limit is not None and report.added + len(report.refused) >= limit:
            report.left += 1
        else:
            _add(source, key, report, uploaded_by)
    report.removed = sorted(known - listed)
    source.synced_at = timezone.now()
    source.save(update_fields=["synced_at"])
    return report


def _add(source: BucketSource, key: str, report: SyncReport, uploaded_by: Any) -> None:
    client = bucket_client()
    try:
        data = client.get_object(Bucket=source.bucket, Key=key)["Body"].read()
        checked = check_image(data, limits_from_settings())
        stored_name = "" if source.copy else _storage_name(key)
        with transaction.atomic():
            image, _ = image_store(
                collection=source.collection,
                name=os.path.basename(key),
                checked=checked,
                split=source.split,
                uploaded_by=uploaded_by,
                stored_name=stored_name,
            )
            BucketObject.objects.create(source=source, key=key, image=image)
    except Refused as refused:
        report.refused.append((key, refused.message))
        return
    report.added += 1


def _storage_name(key: str) -> str:
    location = _location()
    return key[len(location) + 1 :] if location else key


def _location() -> str:
    """The platform's folder of its bucket (S3_PREFIX), without slashes."""
    return str(settings.S3_STORAGE_OPTIONS.get("location") or "").strip("/")


def _listed(bucket: str, prefix: str) -> Iterator[str]:
    """The keys of the images under the prefix, in the bucket's order; a bucket the platform cannot
    read is a 400 that says so (by the store's error code, never a credential), one it cannot reach a
    503."""
    pages = bucket_client().get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
    try:
        for page in pages:
            for item in page.get("Contents", []):
                if item["Key"].lower().endswith(IMAGE_SUFFIXES):
                    yield item["Key"]
    except STORAGE_ERRORS as exc:
        if storage_unavailable(exc):
            raise
        raise _refusal(f"The bucket {bucket!r} cannot be listed: {storage_refusal(exc)}.") from None


def export_to_bucket(*, bucket: str, key: str, chunks: Iterator[bytes]) -> int:
    """An export written to a bucket ("target storage"): its bytes under `key`; the size written."""
    data = b"".join(chunks)
    try:
        bucket_client().put_object(Bucket=bucket, Key=key.lstrip("/"), Body=ContentFile(data))
    except STORAGE_ERRORS as exc:
        if storage_unavailable(exc):
            raise
        raise _refusal(f"The export cannot be written to {bucket!r}: {storage_refusal(exc)}.") from None
    return len(data)
