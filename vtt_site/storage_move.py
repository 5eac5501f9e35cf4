"""Moving a deployment's files between the filesystem (MEDIA_ROOT) and the bucket (S3_*), both ways
(`manage.py media_move`; docs/storage.md).

Every file of the source is copied under the same name, then its checksum (MD5) is read back from the
target and compared: a copy that differs is an error, never a silent success. Resumable: a file already
at the target with the source's checksum is left alone, one that differs (a copy cut short on a
filesystem) is copied again, so a move stopped anywhere is finished by running it again. Nothing is
deleted from the source; the move is complete when MEDIA_STORAGE is switched.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.files.storage import FileSystemStorage, Storage

from vtt_site.cache import BoundedCache
from vtt_site.storage_sweep import storage_walk

CHUNK = 1024 * 1024


class ChecksumMismatch(Exception):
    def __init__(self, name: str) -> None:
        super().__init__(f"{name}: the copy's checksum differs from the original's; nothing was switched.")
        self.name = name


@dataclass
class MoveReport:
    copied: int = 0
    present: int = 0  # at the target already, with the same checksum
    replaced: int = 0  # at the target with another checksum: copied again
    bytes: int = 0


def filesystem_storage() -> Storage:
    return FileSystemStorage(location=settings.MEDIA_ROOT)


def bucket_storage() -> Storage:
    from vtt_site.bucket import BucketStorage

    options: dict[str, Any] = settings.S3_STORAGE_OPTIONS
    return BucketStorage(**options)


# The bucket's clients by process and options: boto3 makes a client from botocore's service models on
# disk, 0.1 to 0.3 s of CPU each, and a bucket source's sync made one per object it read (decision 0106).
# A client is thread-safe but not to be shared across a fork (its connection pool would be), hence the
# process id in the key; the options are in it too, so a client never outlives the settings it was made for.
_clients: BoundedCache[Any] = BoundedCache(size=4)


def bucket_client() -> Any:
    """The S3 client of the bucket S3_STORAGE_OPTIONS names, made once per process and options."""
    key = (os.getpid(), repr(sorted(settings.S3_STORAGE_OPTIONS.items())))
    return _clients.get_or_build(key, lambda: bucket_storage().connection.meta.client)  # type: ignore[attr-defined]


def checksum(storage: Storage, name: str) -> str:
    """The MD5 of the file's bytes: the bucket's ETag when it is one (an object put in one part), else
    read and hashed."""
    etag = getattr(storage, "checksum", None)
    if etag is not None:
        value = etag(name)
        if "-" not in value:
            return value
    digest = hashlib.md5(usedforsecurity=False)
    with storage.open(name, "rb") as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def media_move(
    *, source: Storage, target: Storage, dry_run: bool = False, each: Callable[[str, str], None] | None = None
) -> MoveReport:
    """Copy every file of `source` to `target` (see the module docstring); `each(name, what)` is told
    what became of each file: copied, present, replaced (or, in a dry run, what would be done)."""
    report = MoveReport()
    for name in storage_walk(source, ""):
        wanted = checksum(source, name)
        what = "copied"
        if target.exists(name):
            if checksum(target, name) == wanted:
                report.present += 1
                if each:
                    each(name, "present")
                continue
            what = "replaced"
            if not dry_run:
                target.delete(name)
        if not dry_run:
            with source.open(name, "rb") as handle:
                saved = target.save(name, handle)
            if saved != name or checksum(target, name) != wanted:
                raise ChecksumMismatch(name)
            report.bytes += target.size(name)
        setattr(report, what, getattr(report, what) + 1)
        if each:
            each(name, what)
    return report
