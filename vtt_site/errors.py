"""The error types every service raises.

A service never returns an error value and never raises an HTTP exception: it raises an
`ApplicationError` carrying a stable machine-readable `code` (each app lists its codes in its own
`errors.py`), a message a person can act on, and optionally per-field details. The API exception handler
(`vtt_site.api.errors`) renders all of them in the one shape `{"code", "message", "fields"}`; commands and
tasks print or store the same message.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any


class CommonErrorCode(StrEnum):
    """Codes of failures any operation can have (the request itself, authentication, the platform)."""

    INVALID = "invalid"
    PARSE_ERROR = "parse_error"
    BAD_REQUEST = "bad_request"
    TOO_LARGE = "too_large"
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
    NOT_ACCEPTABLE = "not_acceptable"
    NOT_AUTHENTICATED = "not_authenticated"
    AUTHENTICATION_FAILED = "authentication_failed"
    PERMISSION_DENIED = "permission_denied"
    NOT_FOUND = "not_found"
    METHOD_NOT_ALLOWED = "method_not_allowed"
    THROTTLED = "throttled"
    SERVER_ERROR = "server_error"


class SiteErrorCode(StrEnum):
    """Codes of failures that belong to no app: the platform itself is short of something."""

    SERVICE_UNAVAILABLE = "service_unavailable"
    TOO_MANY_JOBS = "too_many_jobs"
    REQUEST_TOO_LARGE = "request_too_large"
    REQUEST_TIMEOUT = "request_timeout"


class ApplicationError(Exception):
    """Bad input or a forbidden state change. Nothing was written when this is raised."""

    status = 400

    def __init__(self, code: str, message: str, *, fields: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.code = str(code)
        self.message = message
        self.fields = fields or {}

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "message": self.message, "fields": self.fields}


class NotFoundError(ApplicationError):
    status = 404


class PermissionDeniedError(ApplicationError):
    status = 403


class ConflictError(ApplicationError):
    """The request is well formed but clashes with the current state (a lease held, a stage passed)."""

    status = 409


class TooLargeError(ApplicationError):
    status = 413


class ServiceUnavailableError(ApplicationError):
    """A service the operation needs (the task broker) is down; the client may retry after a while."""

    status = 503

    def __init__(self, message: str, *, retry_after: int = 30) -> None:
        super().__init__(SiteErrorCode.SERVICE_UNAVAILABLE, message)
        self.retry_after = retry_after


class RequestTimeoutError(ServiceUnavailableError):
    """The request ran past REQUEST_TIMEOUT_SECONDS and was stopped; its transaction is rolled back."""

    def __init__(self) -> None:
        super().__init__(
            "The request took too long and was stopped; nothing was changed. Send less at once.",
            retry_after=5,
        )
        self.code = SiteErrorCode.REQUEST_TIMEOUT
