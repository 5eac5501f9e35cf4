"""Where the platform's files live: one storage, chosen by MEDIA_STORAGE (docs/storage.md).

Every file the platform keeps (uploaded images and their thumbnails, imports, fitted statistics) is
written and read through Django's default storage, so a process needs no folder of its own: the
filesystem under MEDIA_ROOT by default, or an S3-compatible bucket (`vtt_site.bucket.BucketStorage`, through
django-storages and boto3) when MEDIA_STORAGE is `s3`, so that web processes and workers on different
machines share nothing but PostgreSQL, Redis and the bucket.

An image leaves the platform in one of two ways, always after the view's own permission checks
(`file_response`): its bytes in the response (the filesystem, or S3_STREAM_IMAGES for a store clients
cannot reach), or a redirect to a presigned URL that expires after S3_URL_SECONDS, so the bytes do not
pass through a web worker. Object keys are random (`random_key`): a URL tells nothing about the image
beyond what the API that issued it says.

A store that cannot be reached, or answers too slowly (S3_TIMEOUT_SECONDS), is `storage_unavailable`:
a 503 that says to retry in the API (`vtt_site.api.errors`), and a job queued again without counting
the attempt (`vtt_site.jobs.job_run`). Credentials are never put in a message: the store's errors are
reported by their kind only.
"""

from __future__ import annotations

import mimetypes
import re
import uuid
from typing import Any

from botocore.exceptions import (  # type: ignore[import-untyped]
    BotoCoreError,
    ClientError,
    ConnectionError,
    HTTPClientError,
    NoCredentialsError,
)
from django.conf import settings
from django.core.files.storage import Storage, default_storage
from django.db.models.fields.files import FieldFile
from django.http import FileResponse, HttpResponseBase, HttpResponseRedirect

RETRY_AFTER_SECONDS = 5
# What the schema says of a view that answers with an image (`file_response`).
PRESIGNED_REDIRECT = (
    "With the files in a bucket (MEDIA_STORAGE=s3): a redirect (Location) to a presigned URL of the image "
    "that expires after S3_URL_SECONDS; ask again for a fresh one."
)
CACHED = "private, max-age=3600"  # an image served to a member or a system: the bytes never change
STORAGE_UNAVAILABLE = "The file store could not be reached just now. Try again in a moment."


def in_bucket() -> bool:
    """Whether files live in a bucket (and images are handed out as presigned URLs)."""
    return _is_bucket(default_storage)


def _is_bucket(storage: Storage) -> bool:
    # Not an isinstance check: vtt_site.bucket imports this module, and boto3 only when it is used.
    return getattr(storage, "is_bucket", False) is True


RANDOM_KEY = re.compile(r"[a-z]+/[0-9a-f]{32}(\.[a-z0-9]+)?")


def is_random_key(name: str) -> bool:
    """Whether a storage name is one `random_key` made (not an image used where a bucket source had it)."""
    return RANDOM_KEY.fullmatch(name) is not None


def random_key(folder: str, extension: str) -> str:
    """A key that tells nothing about the file: `folder/<32 random hex digits>.<extension>`."""
    extension = extension.lstrip(".").lower()
    return f"{folder}/{uuid.uuid4().hex}{'.' + extension if extension else ''}"


# What the store raises: an outage (`storage_unavailable`) or a refusal (a missing object, bad credentials).
STORAGE_ERRORS = (BotoCoreError, ClientError)


def storage_unavailable(exc: BaseException | None) -> bool:
    """Whether an exception says the store could not be reached or answered too slowly (or with a
    server error), as opposed to a refusal (a missing object, bad credentials)."""
    if exc is None:
        return False
    if isinstance(exc, ConnectionError | HTTPClientError):
        return True
    if isinstance(exc, ClientError):
        status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0
        return status >= 500
    return False


def storage_refusal(exc: BaseException) -> str:
    """What a person reads of a refusal: the store's S3 error code (`NoSuchBucket`, `InvalidAccessKeyId`,
    `AccessDenied`), which names no credential, or what the platform lacks; never a library's name."""
    if isinstance(exc, ClientError):
        return str(exc.response.get("Error", {}).get("Code") or "the store refused")
    if isinstance(exc, NoCredentialsError):
        return "no credentials (set S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY)"
    return "the store refused the request"


def storage_error_kind(exc: BaseException) -> str:
    """What to log about a store's failure: its class, never its text (which may carry an address with
    a signature in it)."""
    return type(exc).__name__


def file_response(
    file: FieldFile,
    *,
    name: str | None = None,
    content_type: str | None = None,
    cache: str,
    random_keys_only: bool = False,
) -> HttpResponseBase:
    """An image for a client that passed the view's checks: a redirect to a presigned URL when the files
    are in a bucket (unless S3_STREAM_IMAGES), else its bytes. `name` is a storage name other than the
    file's own (a thumbnail). `random_keys_only`: a key that may name the image (a bucket source's,
    used where it is) is streamed instead (a vision system learns nothing from a URL)."""
    storage: Any = file.storage
    name = name or file.name or ""
    content_type = content_type or mimetypes.guess_type(name)[0] or "application/octet-stream"
    presign = not settings.S3_STREAM_IMAGES and (is_random_key(name) or not random_keys_only)
    if _is_bucket(storage) and presign:
        response: HttpResponseBase = HttpResponseRedirect(
            storage.url(name, parameters={"ResponseContentType": content_type})
        )
        response["Cache-Control"] = "private, no-store"  # the URL expires; ask again for a fresh one
        response["Referrer-Policy"] = "no-referrer"
        return response
    return FileResponse(storage.open(name, "rb"), content_type=content_type, headers={"Cache-Control": cache})
