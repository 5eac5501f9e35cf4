"""The one DRF exception handler: every API failure becomes `{"code", "message", "fields"}`.

Domain errors (`vtt_site.errors.ApplicationError`), engine-core errors (`engine.core.errors.EngineError`),
Django's own validation and permission errors and DRF's exceptions all pass through here, so a client
only ever has to understand one shape. Anything unexpected is logged and reported as a 500 in the same
shape, without internals.
"""

from __future__ import annotations

import logging
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation, TooManyFilesSent
from django.core.exceptions import ValidationError as DjangoValidationError
from django.http import Http404
from kombu.exceptions import OperationalError as KombuOperationalError
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from engine.core.errors import EngineError
from vtt_site.broker import BROKER_DOWN
from vtt_site.errors import ApplicationError, ServiceUnavailableError

logger = logging.getLogger(__name__)


def error_body(code: str, message: str, fields: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"code": code, "message": message, "fields": fields or {}}


def api_exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    if isinstance(exc, KombuOperationalError):
        # The broker went away between the readiness check and the queueing of the task.
        logger.error("The task broker is unavailable: %s", exc.__class__.__name__)
        exc = ServiceUnavailableError(BROKER_DOWN)
    if isinstance(exc, ServiceUnavailableError):
        return Response(exc.as_dict(), status=exc.status, headers={"Retry-After": str(exc.retry_after)})
    if isinstance(exc, ApplicationError):
        return Response(exc.as_dict(), status=exc.status)
    if isinstance(exc, EngineError):
        return Response(error_body(exc.code, str(exc), exc.fields), status=status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, RequestDataTooBig | TooManyFilesSent):
        # Raised while DRF reads the body: the request is over DATA_UPLOAD_MAX_MEMORY_SIZE or
        # DATA_UPLOAD_MAX_NUMBER_FILES.
        return Response(
            error_body("too_large", f"The request is too large: {exc}."),
            status=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE,
        )
    if isinstance(exc, SuspiciousOperation):
        return Response(
            error_body("bad_request", "The request was refused as malformed."),
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
            error_body("server_error", "The server failed to handle this request; it has been logged."),
            status=status.HTTP_500_INTERNAL_SERVER_ERROR,
        )
    assert isinstance(exc, exceptions.APIException)
    response.data = _reshape(exc)
    return response


def _reshape(exc: exceptions.APIException) -> dict[str, Any]:
    if isinstance(exc, exceptions.ValidationError):
        detail = exc.detail
        if isinstance(detail, dict):
            fields = _plain(detail)
            return error_body("invalid", _first_message(fields) or "Some fields are invalid.", fields)
        messages = _plain(detail)
        message = "; ".join(str(m) for m in messages) if isinstance(messages, list) else str(messages)
        return error_body("invalid", message, {"non_field_errors": messages})
    code = exc.get_codes()
    return error_body(code if isinstance(code, str) else exc.default_code, str(exc.detail))


def _plain(detail: Any) -> Any:
    """ErrorDetail trees into plain dicts, lists and strings."""
    if isinstance(detail, dict):
        return {str(key): _plain(value) for key, value in detail.items()}
    if isinstance(detail, list):
        return [_plain(item) for item in detail]
    return str(detail)


def _first_message(fields: Any, path: str = "") -> str:
    """`objects.2.bbox: Box lies outside the image.`: the first concrete problem, with where it is."""
    if isinstance(fields, dict):
        for key, value in fields.items():
            found = _first_message(value, f"{path}.{key}" if path else str(key))
            if found:
                return found
    elif isinstance(fields, list):
        for index, value in enumerate(fields):
            if isinstance(value, str):
                return f"{path}: {value}" if path else value
            found = _first_message(value, f"{path}.{index}")
            if found:
                return found
    elif isinstance(fields, str):
        return f"{path}: {fields}" if path else fields
    return ""


def _django_validation_detail(exc: DjangoValidationError) -> Any:
    if hasattr(exc, "error_dict"):
        return exc.message_dict
    return exc.messages
