"""The only URL a model server is given: an image's pixels at a signed address that expires.

The token is the image's id signed with the site's SECRET_KEY and a timestamp (django.core.signing,
its own salt), valid for SUGGESTIONS_URL_SECONDS (annotations.conf); the view that serves it needs no
login (`annotations.api.signed`). The absolute address is made from SITE_URL, where the server reaches
the site.
"""

from __future__ import annotations

from urllib.parse import urljoin

from django.conf import settings
from django.core import signing
from django.urls import reverse

from annotations.conf import conf
from annotations.models import Image
from vtt_site.storage import in_bucket

SALT = "annotations.suggestions.image-url"


class TokenExpired(Exception):
    pass


class TokenInvalid(Exception):
    pass


def image_token(image_id: int) -> str:
    return signing.dumps(image_id, salt=SALT)


def image_from_token(token: str) -> int:
    """The image id a token stands for; `TokenExpired` or `TokenInvalid` otherwise."""
    try:
        image_id = signing.loads(token, salt=SALT, max_age=conf.SUGGESTIONS_URL_SECONDS)
    except signing.SignatureExpired:
        raise TokenExpired() from None
    except signing.BadSignature:
        raise TokenInvalid() from None
    if isinstance(image_id, bool) or not isinstance(image_id, int):
        raise TokenInvalid()
    return image_id


def signed_image_url(image_id: int) -> str:
    path = reverse("api:image-signed", kwargs={"token": image_token(image_id)})
    return urljoin(conf.SITE_URL, path)


def image_url_for_server(image: Image) -> str:
    """The URL a model server is sent: with the files in a bucket, a presigned URL of the object that
    expires after S3_URL_SECONDS (the server fetches from the store, not through a web worker); else, or
    with S3_STREAM_IMAGES, the site's signed address."""
    if image.file and in_bucket() and not settings.S3_STREAM_IMAGES:
        return image.file.storage.url(image.file.name)
    return signed_image_url(image.pk)
