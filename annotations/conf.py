"""The annotations app's settings (vtt_site.app_settings): read as `conf.NAME`, overridden in a test as a
Django setting of the same name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings

from vtt_site.app_settings import FLOAT, INT, STR, AppSettings, Setting, at_least


def _site_url(earlier: Mapping[str, Any]) -> str:
    # `make run` and `make serve` pass the address they listen on (their HOST and PORT) as SERVED_URL.
    return earlier["SERVED_URL"] or "http://127.0.0.1:8000/"


class AnnotationSettings(AppSettings):
    """Annotations: images and uploads, annotation queues, suggestions from a model"""

    IMAGE_MAX_BYTES = Setting(INT, 25 * 1024 * 1024, "The largest image file (bytes).")
    IMAGE_MAX_PIXELS = Setting(INT, 40_000_000, "The most pixels an image may have.")
    ZIP_MAX_BYTES = Setting(
        INT,
        256 * 1024 * 1024,
        "What all the zip archives of one upload may unpack to, together (checked before each entry).",
    )
    ANNOTATION_MAX_OBJECTS = Setting(
        INT, 1000, "Objects one image's annotation may hold (on a save and on an import).", check=at_least(1)
    )
    ANNOTATION_MAX_RELATIONSHIPS = Setting(
        INT, 20_000, "Relationships one image's annotation may hold (on a save and on an import)."
    )
    LEASE_MINUTES = Setting(
        INT, 30, "How long an annotator or reviewer holds an image of the queue.", check=at_least(1)
    )
    SERVED_URL = Setting(
        STR, "", "Set by `make run` and `make serve` from their HOST and PORT; leave it empty."
    )
    SITE_URL = Setting(
        STR,
        _site_url,
        "Where a model server reaches this site (the signed image URLs it is sent are made from it); empty: "
        "SERVED_URL, else http://127.0.0.1:8000/; behind a proxy, the public address.",
    )
    SUGGESTIONS_URL_SECONDS = Setting(INT, 600, "How long a signed image URL stays valid (seconds).")
    SUGGESTIONS_WAIT_SECONDS = Setting(
        FLOAT, 3.0, "How long the annotator's page waits for a model server's first answer (seconds)."
    )
    SUGGESTIONS_TIMEOUT_SECONDS = Setting(
        FLOAT, 10.0, "How long a fetch ahead, a pre-annotation or a check waits for one answer (seconds)."
    )
    SUGGESTIONS_CONNECT_SECONDS = Setting(FLOAT, 2.0, "The connect timeout to a model server (seconds).")
    SUGGESTIONS_MAX_ANSWER_BYTES = Setting(
        INT, 5 * 1024 * 1024, "The largest answer read from a model server."
    )
    SUGGESTIONS_CREDENTIALS_KEY = Setting(
        STR,
        lambda _: str(settings.SECRET_KEY),
        "The key that seals a model server's credential (empty: SECRET_KEY); changing it makes the stored "
        "credentials unreadable, to be entered again.",
    )


conf = AnnotationSettings()
