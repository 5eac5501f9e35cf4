"""The storage's part of Django's settings (vtt_site/storage.py): the default storage's entry of STORAGES,
the bucket's options, and the pages' Content-Security-Policy admitting the store's origin for images.
Made from the site's settings (vtt_site/conf.py) without Django, as vtt_site/settings.py is."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from vtt_site.conf import conf as env


def s3_storage_options() -> dict[str, Any]:
    """The bucket's options, whether or not it is the default storage: `manage.py media_move` copies
    between the filesystem and the bucket either way (vtt_site/storage.py). Functions, not values: the
    settings module calls them once it has read .env."""
    return {
        "bucket_name": env.S3_BUCKET,
        "endpoint_url": env.S3_ENDPOINT_URL or None,
        "public_endpoint_url": env.S3_PUBLIC_ENDPOINT_URL or env.S3_ENDPOINT_URL or None,
        "region_name": env.S3_REGION,
        "location": env.S3_PREFIX,
        "access_key": env.S3_ACCESS_KEY_ID or None,
        "secret_key": env.S3_SECRET_ACCESS_KEY or None,
        "querystring_expire": env.S3_URL_SECONDS,
        "timeout": env.S3_TIMEOUT_SECONDS,
    }


def default_storage_entry() -> dict[str, Any]:
    """The default storage's entry of STORAGES (vtt_site/storage.py). The filesystem's folder is
    MEDIA_ROOT, read when the storage is made (a test's override moves it)."""
    if env.MEDIA_STORAGE != "s3":
        return {"BACKEND": "django.core.files.storage.FileSystemStorage"}
    return {"BACKEND": "vtt_site.bucket.BucketStorage", "OPTIONS": s3_storage_options()}


def bucket_images_allowed(policy: str) -> str:
    """With the files in a bucket, a page's images come from presigned URLs of the store's public
    address (vtt_site/storage.py): that origin joins the policy's img-src."""
    endpoint = env.S3_PUBLIC_ENDPOINT_URL or env.S3_ENDPOINT_URL
    if env.MEDIA_STORAGE != "s3" or env.S3_STREAM_IMAGES or not endpoint:
        return policy
    parts = urlsplit(endpoint)
    origin = f"{parts.scheme}://{parts.netloc}"
    return "; ".join(
        f"{item.strip()} {origin}" if item.strip().startswith("img-src") else item.strip()
        for item in policy.split(";")
    )
