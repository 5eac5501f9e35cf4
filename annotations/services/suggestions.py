"""Suggestions from a model (decision 0078, docs/suggestions.md): a collection's model server, and the
boxes it proposes for an image, stored as `Prediction` rows apart from the annotation.

- `model_backend_set` / `model_backend_clear`: a reviewer of the collection or an admin points it at a
  Label Studio ML backend; the credential is sealed (`annotations.suggestions.secrets`).
- `model_backend_check` (annotations.services.suggestion_check): /health, /setup and one real /predict.
- `suggestions_fetch`: ask the server about one image (sent as a signed URL, nothing else) and replace
  that image's pending predictions, all or nothing; accepted and rejected ones stay.
- `suggestions_for_page`: what the annotator's page shows, fetching within a short bound when nothing
  is stored yet; a server that is down, slow or talks nonsense is a note, never an error.
- `suggestions_fetch_ahead`: queue the fetch of an image about to be annotated.
- `suggestion_reject` / `suggestion_restore` (annotations.services.suggestion_decisions): the
  annotator's decisions.

No database lock or transaction is held while the server is asked.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from functools import partial
from typing import Any
from urllib.parse import urlsplit

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from annotations.conf import conf
from annotations.errors import AnnotationErrorCode
from annotations.models import (
    BackendAuth,
    Collection,
    Image,
    ModelBackend,
    Prediction,
    PredictionStatus,
)
from annotations.queues import SUGGESTIONS_FETCH
from annotations.selectors.suggestions import model_backend_missing
from annotations.selectors.vocabularies import core_vocabulary, vocabulary_index
from annotations.services.annotation import lock_image
from annotations.suggestions import client
from annotations.suggestions.answers import AnswerRefused, Reading, Refusal, read_answer
from annotations.suggestions.config import labeling_config
from annotations.suggestions.secrets import SecretUnusable, secret_open, secret_seal
from annotations.suggestions.signing import image_url_for_server
from vtt_site.errors import ApplicationError, CommonErrorCode, ConflictError

logger = logging.getLogger(__name__)

# A header name is an HTTP token; these the client sets itself, or they would change the request.
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$")
_RESERVED_HEADERS = {"host", "content-length", "content-type", "transfer-encoding", "connection", "accept"}
SECRET_MAX = 2000
URL_MAX = 500  # ModelBackend.url's length
NO_PIXELS = "This image has no pixels (it came from an imported scene graph), so no model can look at it."


class SuggestionsUnavailable(Exception):
    """The model server could not give suggestions for the image now; `reason` says why."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class Fetched:
    written: int
    model_version: str
    refused: list[Refusal] = field(default_factory=list)
    kept: bool = False  # suggestions were already stored (written meanwhile): nothing was replaced


# --- The backend --------------------------------------------------------------------------------------


def _invalid(name: str, message: str) -> ApplicationError:
    return ApplicationError(CommonErrorCode.INVALID, message, fields={name: [message]})


def _check_url(url: str) -> str:
    url = url.strip()
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise _invalid("url", "The model server's URL must be an http:// or https:// address with a host.")
    if parts.username or parts.password:
        raise _invalid("url", "Put no credential in the URL: choose basic authentication and enter it there.")
    if parts.query or parts.fragment:
        raise _invalid("url", "The model server's URL is its base address, without a query or a fragment.")
    if len(url) > URL_MAX:
        raise _invalid("url", "The model server's URL is too long.")
    return url


def _check_secret(secret: str) -> None:
    if len(secret) > SECRET_MAX or any(ord(ch) < 32 or ord(ch) == 127 for ch in secret):
        raise _invalid(
            "secret", f"The credential must be at most {SECRET_MAX} characters, without line breaks."
        )
    if not secret.isascii():
        raise _invalid("secret", "The credential must be ASCII text, as HTTP sends it.")


def _check_auth(auth: str, username: str, header_name: str) -> None:
    if auth not in BackendAuth.values:
        raise _invalid("auth", f"auth must be one of {', '.join(BackendAuth.values)}.")
    if auth == BackendAuth.BASIC and (not username or ":" in username):
        raise _invalid("username", "Basic authentication needs a user name (without a colon).")
    if auth == BackendAuth.HEADER and (
        not _HEADER_NAME.match(header_name) or header_name.lower() in _RESERVED_HEADERS
    ):
        raise _invalid(
            "header_name", "Header authentication needs a header name such as Authorization or X-Api-Key."
        )


def model_backend_validate(
    *, url: str, auth: str, username: str, header_name: str, secret: str | None, stored_secret: str
) -> str:
    """Check a model server's settings (400 with the field at fault); the URL as it will be stored.
    `secret` None: the stored credential (`stored_secret`, sealed) is kept."""
    url = _check_url(url)
    _check_auth(auth, username.strip(), header_name.strip())
    if secret is not None:
        _check_secret(secret)
    if auth != BackendAuth.NONE and not (secret if secret is not None else stored_secret):
        raise _invalid("secret", "This authentication needs a credential: enter it.")
    return url


@transaction.atomic
def model_backend_set(
    *,
    collection: Collection,
    user: Any,
    url: str,
    auth: str = BackendAuth.NONE,
    username: str = "",
    header_name: str = "",
    secret: str | None = None,
    enabled: bool = True,
) -> ModelBackend:
    """Set (or change) the collection's model server. `secret` None keeps the stored credential, ""
    removes it; with no authentication there is none. A new URL forgets what the old server said."""
    backend = ModelBackend.objects.select_for_update().filter(collection=collection).first()
    backend = backend or ModelBackend(collection=collection)
    url = model_backend_validate(
        url=url,
        auth=auth,
        username=username,
        header_name=header_name,
        secret=secret,
        stored_secret=backend.secret,
    )
    sealed = backend.secret if secret is None else secret_seal(secret)
    sealed = "" if auth == BackendAuth.NONE else sealed
    if backend.pk is not None and backend.url != url:
        backend.model_version, backend.checked_at, backend.last_error = "", None, ""
    backend.url, backend.auth, backend.enabled, backend.secret = url, auth, enabled, sealed
    backend.username = username.strip() if auth == BackendAuth.BASIC else ""
    backend.header_name = header_name.strip() if auth == BackendAuth.HEADER else ""
    backend.updated_by, backend.updated_at = user, timezone.now()
    backend.save()
    return backend


@transaction.atomic
def model_backend_clear(*, collection: Collection) -> None:
    """The collection no longer asks a model; the suggestions already stored stay (and their decisions)."""
    deleted, _ = ModelBackend.objects.filter(collection=collection).delete()
    if not deleted:
        raise model_backend_missing()


def backend_connection(backend: ModelBackend) -> client.Connection:
    """How to reach the server; raises SecretUnusable when the stored credential cannot be read."""
    return client.Connection(
        url=backend.url,
        auth=backend.auth,
        username=backend.username,
        header_name=backend.header_name,
        secret=secret_open(backend.secret) if backend.auth != BackendAuth.NONE else "",
        connect_seconds=conf.SUGGESTIONS_CONNECT_SECONDS,
        max_answer_bytes=conf.SUGGESTIONS_MAX_ANSWER_BYTES,
    )


def project_uid(collection: Collection) -> str:
    """What Label Studio sends as `project`: its id and creation time (a backend splits it at the dot)."""
    return f"{collection.pk}.{int(collection.created_at.timestamp())}"


# --- Suggestions of one image -------------------------------------------------------------------------


def active_backend(collection_id: int) -> ModelBackend | None:
    return ModelBackend.objects.filter(collection_id=collection_id, enabled=True).first()


def suggestions_fetch(*, image_id: int, seconds: float | None = None, replace: bool = True) -> Fetched:
    """Ask the collection's model server about the image and replace its pending predictions with the
    answer's boxes, in one transaction. `replace=False`: keep the suggestions stored meanwhile (a fetch
    ahead racing the page). Raises SuggestionsUnavailable, having changed nothing, on any fault."""
    image = Image.objects.select_related("collection__vocabulary").get(pk=image_id)
    backend = active_backend(image.collection_id)
    if backend is None:
        raise SuggestionsUnavailable("This collection is connected to no model server.")
    if not image.file:
        raise SuggestionsUnavailable(NO_PIXELS)
    seconds = seconds if seconds is not None else conf.SUGGESTIONS_TIMEOUT_SECONDS
    try:
        reading = backend_ask(image, backend, seconds)
    except SuggestionsUnavailable as exc:
        ModelBackend.objects.filter(pk=backend.pk).update(last_error=exc.reason)
        raise
    # It answered well: an earlier fault is no longer what it does.
    ModelBackend.objects.filter(pk=backend.pk).exclude(last_error="").update(last_error="")
    return _store(image, reading, reading.model_version or backend.model_version, replace=replace)


def backend_ask(image: Image, backend: ModelBackend, seconds: float) -> Reading:
    """The server's answer for the image, read; no transaction is open while it is asked."""
    try:
        answer = client.predict(
            backend_connection(backend), body=_predict_body(image, backend), seconds=seconds
        )
        reading = read_answer(
            answer,
            task_id=image.pk,
            width=image.width,
            height=image.height,
            vocabulary=core_vocabulary(image.collection.vocabulary),
            max_boxes=conf.ANNOTATION_MAX_OBJECTS,
        )
    except (client.BackendFault, AnswerRefused, SecretUnusable) as exc:
        raise SuggestionsUnavailable(exc.reason) from None
    if reading.refused and not reading.candidates:
        # Nothing of the answer fits (every box of unknown labels, say): a fault, not "no objects".
        raise SuggestionsUnavailable(
            f"Every region of the answer was refused ({len(reading.refused)}); the first: {reading.refused[0]}."
        )
    if reading.refused:
        logger.info("Model suggestions for image %s: %d regions refused", image.pk, len(reading.refused))
    return reading


def _store(image: Image, reading: Reading, version: str, *, replace: bool) -> Fetched:
    """The image's pending predictions replaced by the reading's boxes, under the image's row lock."""
    type_ids = vocabulary_index(image.collection.vocabulary).type_ids
    with transaction.atomic():
        locked = lock_image(image.pk)
        if not replace and locked.predictions.exists():
            return Fetched(0, version, reading.refused, kept=True)
        locked.predictions.filter(status=PredictionStatus.PENDING).delete()
        Prediction.objects.bulk_create(
            Prediction(
                image=locked,
                model_version=version,
                object_type_id=type_ids[candidate.type],
                x=candidate.box[0],
                y=candidate.box[1],
                w=candidate.box[2],
                h=candidate.box[3],
                attributes=list(candidate.attributes),
                score=candidate.score,
            )
            for candidate in reading.candidates
        )
    return Fetched(len(reading.candidates), version, reading.refused)


def _predict_body(image: Image, backend: ModelBackend) -> dict[str, Any]:
    """Label Studio's /predict request for one task: the image as a signed URL, nothing else of it."""
    collection = image.collection
    return {
        "tasks": [{"id": image.pk, "data": {"image": image_url_for_server(image)}}],
        "model_version": backend.model_version,
        "project": project_uid(collection),
        "label_config": labeling_config(core_vocabulary(collection.vocabulary)),
        "params": {},
    }


def suggestions_fetch_ahead(*, image_ids: list[int]) -> list[int]:
    """Queue, once the transaction commits, the fetch of each of these images' suggestions (images of a
    collection whose model server is on: the caller, `annotations.services.queues`, checked) unless it
    has some already; the ids queued. The page and Annotate next then find them ready."""
    have = set(Prediction.objects.filter(image_id__in=image_ids).values_list("image_id", flat=True))
    due = [pk for pk in image_ids if pk not in have]
    for pk in due:
        transaction.on_commit(partial(_send_fetch, pk))
    return due


def _send_fetch(image_id: int) -> None:
    SUGGESTIONS_FETCH.send(image_id, what=f"the suggestions of image {image_id}")


def suggestions_prefetch(*, image_id: int) -> Fetched | None:
    """A fetch ahead's work: the image's suggestions unless some are stored by then. A fault is only
    logged: the page asks again when the image is opened, and says why if it fails again."""
    try:
        return suggestions_fetch(image_id=image_id, replace=False)
    except Image.DoesNotExist:
        return None  # deleted meanwhile
    except SuggestionsUnavailable as exc:
        logger.info("Fetching ahead the suggestions of image %s failed: %s", image_id, exc.reason)
        return None


# --- What the annotator's page shows ------------------------------------------------------------------


@dataclass
class PageSuggestions:
    state: str  # ready, unavailable, off
    note: str
    model_version: str
    predictions: list[Prediction]


def suggestions_for_page(*, image: Image) -> PageSuggestions:
    """The image's suggestions; when none is stored and the collection asks a model, fetched now within
    `SUGGESTIONS_WAIT_SECONDS`. A fault is the state "unavailable" with its reason, never an error."""
    backend = active_backend(image.collection_id)
    stored = _stored(image)
    if backend is None:
        return PageSuggestions("off", "", "", [])  # the page shows nothing of suggestions
    if stored:
        return PageSuggestions("ready", "", _version(stored, backend.model_version), stored)
    try:
        fetched = suggestions_fetch(image_id=image.pk, seconds=conf.SUGGESTIONS_WAIT_SECONDS, replace=False)
    except SuggestionsUnavailable as exc:
        # The page says "Suggestions unavailable:" before the reason.
        return PageSuggestions("unavailable", exc.reason, "", [])
    stored = _stored(image)
    return PageSuggestions("ready", "", _version(stored, fetched.model_version), stored)


def _stored(image: Image) -> list[Prediction]:
    """Pending ones first (what the page goes through), each group best score first."""
    stored = image.predictions.select_related("object_type").order_by(F("score").desc(nulls_last=True), "id")
    return sorted(stored, key=lambda p: p.status != PredictionStatus.PENDING)  # a stable sort


def _version(predictions: list[Prediction], default: str) -> str:
    """The model version of the latest answer: the pending suggestions' (else any stored one's)."""
    pending = [p for p in predictions if p.status == PredictionStatus.PENDING]
    latest = pending or predictions
    return latest[0].model_version if latest and latest[0].model_version else default


def refuse_when_disabled(backend: ModelBackend) -> None:
    if not backend.enabled:
        raise ConflictError(
            AnnotationErrorCode.MODEL_BACKEND_DISABLED,
            "The collection's model server is switched off: switch it on first. Nothing was started.",
        )
