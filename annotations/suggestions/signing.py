"""The only URL a model server is given: an image's pixels at a signed address that expires.

The token is the image's id signed with the site's SECRET_KEY and a timestamp (django.core.signing,
its own salt), valid for SUGGESTIONS_URL_SECONDS (annotations.conf); the view that serves it needs no
login (`annotations.api.signed`). The absolute address is made from SITE_URL, where the server reaches
the site.
"""

from __future__ import annotations

from urllib.parse import urljoin

from django.core import signing
from django.urls import reverse

from annotations.conf import conf

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
