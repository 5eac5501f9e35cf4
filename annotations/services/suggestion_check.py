"""Checking a collection's model server the way it will be used: /health, /setup, then one real
/predict on one of the collection's pictures (issue 46, item 2).

A check that never sent an image passed while every pre-annotation failed: under `make run PORT=N` the
signed image URLs pointed at port 8000, where nothing answered, and the model server could not fetch a
single picture. The /predict of the check fails the same way, and when it does, the platform fetches
its own signed URL to say whether the fault is the address the URLs are made from (`SITE_URL`) or the
model server.
"""

from __future__ import annotations

from django.utils import timezone

from annotations.conf import conf
from annotations.models import Image, ModelBackend
from annotations.selectors.vocabularies import core_vocabulary
from annotations.services.suggestions import (
    SuggestionsUnavailable,
    backend_ask,
    backend_connection,
    project_uid,
)
from annotations.suggestions import client
from annotations.suggestions.config import labeling_config
from annotations.suggestions.secrets import SecretUnusable
from annotations.suggestions.signing import image_url_for_server
from vtt_site import outbound


def model_backend_check(*, backend: ModelBackend) -> ModelBackend:
    """Ask /health, /setup with the labeling configuration, and /predict on one picture; keep the
    model's version or the reason it failed (`last_error`, blank when all went well)."""
    seconds = conf.SUGGESTIONS_TIMEOUT_SECONDS
    collection = backend.collection
    version, error = backend.model_version, ""
    try:
        connection = backend_connection(backend)
        client.health(connection, seconds=seconds)
        schema = labeling_config(core_vocabulary(collection.vocabulary))
        answer = client.setup(connection, project=project_uid(collection), schema=schema, seconds=seconds)
        if not isinstance(answer, dict):
            raise client.BackendFault("The model server's answer to /setup is not an object.")
        version = str(answer.get("model_version") or "")[:200]
        backend.model_version = version
        _predict_one_picture(backend, seconds)
    except (client.BackendFault, SecretUnusable) as exc:
        error = exc.reason
    now = timezone.now()
    ModelBackend.objects.filter(pk=backend.pk).update(model_version=version, checked_at=now, last_error=error)
    backend.model_version, backend.checked_at, backend.last_error = version, now, error
    return backend


def _predict_one_picture(backend: ModelBackend, seconds: float) -> None:
    """/predict on the collection's first picture (none: nothing more to try); nothing is stored."""
    image = (
        Image.objects.filter(collection_id=backend.collection_id)
        .exclude(file="")
        .select_related("collection__vocabulary")
        .order_by("pk")
        .first()
    )
    if image is None:
        return
    try:
        backend_ask(image, backend, seconds)
    except SuggestionsUnavailable as exc:
        reason = f"/predict on one picture failed: {exc.reason} {_image_url_diagnosis(image)}"
        raise client.BackendFault(reason) from None


def _image_url_diagnosis(image: Image) -> str:
    """Whether this site answers at the address its signed image URLs are made from."""
    site = conf.SITE_URL
    try:
        outbound.exchange(
            "GET",
            image_url_for_server(image),
            headers={"User-Agent": client.USER_AGENT},
            body=None,
            seconds=3.0,
            connect_seconds=2.0,
            max_bytes=conf.SUGGESTIONS_MAX_ANSWER_BYTES * 20,
            check_status=_refuse_unless_ok,
        )
    except (outbound.Unreachable, outbound.TimedOut, outbound.Broken, outbound.TooLarge, _NotOk):
        return (
            f"The picture's address is made from SITE_URL ({site}), where this site itself does not serve "
            "it: set SITE_URL to the address at which the model server reaches this site."
        )
    return (
        f"This site serves the picture at {site} (SITE_URL): check that the model server reaches that "
        "address too, and look at its log."
    )


class _NotOk(Exception):
    pass


def _refuse_unless_ok(status: int) -> None:
    if status != 200:
        raise _NotOk()
