"""The one DRF exception handler: every API failure becomes `{"code", "message", "fields"}`.

Domain errors (`vtt_site.errors.ApplicationError`), engine-core errors (`kernel.errors.EngineError`),
Django's own validation and permission errors and DRF's exceptions all pass through here, so a client
only ever has to understand one shape. `code` is a member of one of the apps' error enums (all listed in
docs/errors.md); `fields` maps the path of each offending value in the request (`objects[3].bbox`,
`name`, `non_field_errors`) to its messages, whoever found the problem. Anything unexpected is logged and
reported as a 500 in the same shape, without internals.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from enum import StrEnum
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation, TooManyFilesSent
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from kombu.exceptions import OperationalError as KombuOperationalError
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from kernel.errors import EngineError
from vtt_site.broker import BROKER_DOWN
from vtt_site.database import DATABASE_UNAVAILABLE, RETRY_AFTER_SECONDS, database_unavailable
from vtt_site.errors import ApplicationError, CommonErrorCode, ServiceUnavailableError
from vtt_site.storage import RETRY_AFTER_SECONDS as STORAGE_RETRY_AFTER_SECONDS
from vtt_site.storage import STORAGE_UNAVAILABLE, storage_error_kind, storage_unavailable

logger = logging.getLogger(__name__)


# Called with the code of every error response; the test suite registers one that checks each code it
# sees against docs/errors.md, the one list of codes.
CODE_OBSERVERS: list[Callable[[str], None]] = []


def error_body(code: StrEnum | str, message: str, fields: dict[str, Any] | None = None) -> dict[str, Any]:
    for observe in CODE_OBSERVERS:
        observe(str(code))
    return {"code": str(code), "message": message, "fields": fields or {}}


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    if isinstance(exc, KombuOperationalError):
        # The broker went away between the readiness check and the queueing of the task.
        logger.error("The task broker is unavailable: %s", exc.__class__.__name__)
        exc = ServiceUnavailableError(BROKER_DOWN)
    if database_unavailable(exc):
        logger.warning(
            "The database is unavailable: %s", str(exc).strip().splitlines()[0] if str(exc) else ""
        )
        exc = ServiceUnavailableError(DATABASE_UNAVAILABLE, retry_after=RETRY_AFTER_SECONDS)
    if storage_unavailable(exc):
        logger.warning("The file store is unavailable: %s", storage_error_kind(exc))
        exc = ServiceUnavailableError(STORAGE_UNAVAILABLE, retry_after=STORAGE_RETRY_AFTER_SECONDS)
    if isinstance(exc, ServiceUnavailableError):
        return Response(exc.as_dict(), status=exc.status, headers={"Retry-After": str(exc.retry_after)})
    if isinstance(exc, ApplicationError):
        # `headers`: what an error adds for the client (a Retry-After while a session is dealt).
        headers = getattr(exc, "headers", None)
        return Response(error_body(exc.code, exc.message, exc.fields), status=exc.status, headers=headers)
    if isinstance(exc, EngineError):
        return Response(error_body(exc.code, str(exc), exc.fields), status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, RequestDataTooBig | TooManyFilesSent):
        # Raised while DRF reads the body: the request is over DATA_UPLOAD_MAX_MEMORY_SIZE or
        # DATA_UPLOAD_MAX_NUMBER_FILES.
        return Response(
            error_body(CommonErrorCode.TOO_LARGE, "The request is too large for this server."),
            status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        )
    if isinstance(exc, SuspiciousOperation):
        return Response(
            error_body(CommonErrorCode.BAD_REQUEST, "The request was refused as malformed."),
            status=status.HTTP_400_BAD_REQUEST,
        )
    if isinstance(exc, DjangoValidationError):
        exc = exceptions.ValidationError(_django_validation_detail(exc))
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()

    response = drf_exception_handler(exc, context)
    if response is None:
        logger.exception("Unhandled error in %s", context.get("view"), exc_info=exc)
        return Response(
            error_body(
                CommonErrorCode.SERVER_ERROR, "The server failed to handle this request; it has been logged."
            ),
            status=status.HTTP_500_INTERNAL_SERVER_ERROR,
        )
    assert isinstance(exc, exceptions.APIException)
    response.data = _reshape(exc)
    return response


def _reshape(exc: exceptions.APIException) -> dict[str, Any]:
    if isinstance(exc, exceptions.ValidationError):
        detail = exc.detail
        fields = flatten_detail(detail if isinstance(detail, dict) else {"non_field_errors": detail})
        path, messages = next(iter(fields.items()), ("", ["Some fields are invalid."]))
        message = messages[0] if path == "non_field_errors" else f"{path}: {messages[0]}"
        return error_body(CommonErrorCode.INVALID, message, fields)
    return error_body(_common_code(exc), str(exc.detail))


def _common_code(exc: exceptions.APIException) -> CommonErrorCode:
    """DRF's own code for its exceptions, which CommonErrorCode lists; anything else by its status."""
    for code in (exc.get_codes(), exc.default_code):
        if isinstance(code, str) and code in CommonErrorCode.__members__.values():
            return CommonErrorCode(code)
    return CommonErrorCode.INVALID if exc.status_code < 500 else CommonErrorCode.SERVER_ERROR


def flatten_detail(detail: Any, path: str = "") -> dict[str, list[str]]:
    """DRF's nested ErrorDetail trees as {path: [messages]}: {"objects": [{}, {"bbox": ["…"]}]} becomes
    {"objects[1].bbox": ["…"]}, the same paths the engine core reports."""
    if isinstance(detail, dict):
        flat: dict[str, list[str]] = {}
        for key, value in detail.items():
            # DRF's ListField reports its items by integer index, as a dict.
            child = f"{path}[{key}]" if isinstance(key, int) else (f"{path}.{key}" if path else str(key))
            flat.update(flatten_detail(value, child))
        return flat
    if isinstance(detail, list):
        if all(not isinstance(item, dict | list) for item in detail):
            return {path or "non_field_errors": [str(item) for item in detail]} if detail else {}
        flat = {}
        for index, item in enumerate(detail):
            flat.update(flatten_detail(item, f"{path}[{index}]"))
        return flat
    return {path or "non_field_errors": [str(detail)]}


def _django_validation_detail(exc: DjangoValidationError) -> Any:
    if hasattr(exc, "error_dict"):
        return exc.message_dict
    return exc.messages
