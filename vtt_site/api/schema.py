"""OpenAPI: every operation documents the one error shape for the failures it can have, and their codes."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from enum import StrEnum

from drf_spectacular.drainage import warn
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from vtt_site.api.operations import operation_of
from vtt_site.errors import CommonErrorCode, SiteErrorCode


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField(
        help_text="Stable machine-readable code, e.g. `invalid`, `box_outside_image`; every code is listed "
        "in docs/errors.md."
    )
    message = serializers.CharField(help_text="What went wrong, for a person.")
    # A field named like a Serializer attribute: DRF's metaclass takes it out of the class, the stubs
    # do not know that.
    fields = serializers.DictField(  # type: ignore[assignment]
        child=serializers.ListField(child=serializers.CharField()),
        help_text="The messages about each offending value, keyed by its path in the request "
        "(`objects[3].bbox`); `non_field_errors` for the request as a whole; may be empty.",
    )


# What any operation may answer, whatever it does: the request itself, its credentials, and the platform
# (the database down, the request's deadline, a body over the limit the middleware checks on every path).
ANY_OPERATION: tuple[StrEnum, ...] = (
    *CommonErrorCode,
    SiteErrorCode.SERVICE_UNAVAILABLE,
    SiteErrorCode.REQUEST_TIMEOUT,
    SiteErrorCode.REQUEST_TOO_LARGE,
)


@dataclass(frozen=True)
class ErrorCodes:
    """The codes a set of operations may answer, under a name: in the schema their failures are
    `<name>Error`, whose `code` is the enum `<name>ErrorCode` (as Saleor types `AccountError.code`), so a
    client generated from it knows every code it may have to branch on."""

    name: str
    codes: tuple[str, ...]


def error_codes(name: str, *sources: type[StrEnum] | StrEnum) -> ErrorCodes:
    """The codes of ANY_OPERATION and of each source (a whole enum, or one of its members), each once."""
    codes: dict[str, None] = {}
    for source in (*ANY_OPERATION, *sources):
        members = list(source) if isinstance(source, type) else [source]
        codes.update((str(member), None) for member in members)
    return ErrorCodes(name, tuple(codes))


# The operations that answer only what any operation may (their component is the plain `Error`).
COMMON_ERRORS = error_codes("")


def error_code_field(name: str, codes: tuple[str, ...]) -> serializers.CharField:
    """A `code` shown as the enum component `<name>ErrorCode`: a `$ref` a client generator turns into a
    named enum type. A runtime CharField: the response is not checked against it."""
    enum = {
        "type": "string",
        "enum": list(codes),
        "description": "Stable machine-readable code; what each means: docs/errors.md.",
    }
    # A class, not an annotated instance: DRF copies a serializer's fields by constructing them again.
    field = type(f"{name}ErrorCodeField", (serializers.CharField,), {})
    return extend_schema_field(enum, component_name=f"{name}ErrorCode")(field)()


@functools.cache
def error_serializer(codes: ErrorCodes) -> type[serializers.Serializer]:
    """The error shape with `code` narrowed to `codes`; one class per set, so the schema has one
    component per set however many operations answer it."""
    code = error_code_field(codes.name, codes.codes)
    return type(f"{codes.name}Error", (ErrorSerializer,), {"code": code, "__module__": __name__})


ERROR_RESPONSES = {
    "400": "The request is malformed or breaks a rule; nothing was changed.",
    "401": "No valid credentials (session or `Authorization: Token …`).",
    "403": "Your role or membership does not allow this.",
    "404": "No such object, or not visible to you.",
    "429": "Rate limit reached; retry after the `Retry-After` seconds.",
}
# Answered by the operations that take a body (vtt_site.api.parsers, vtt_site.middleware).
BODY_ERROR_RESPONSES = {"413": "The request body is over this operation's limit; nothing was changed."}
# One real example per status (every code is listed in docs/errors.md).
ERROR_EXAMPLES = {
    "400": {
        "code": CommonErrorCode.INVALID.value,
        "message": "name: This field is required.",
        "fields": {"name": ["This field is required."]},
    },
    "401": {
        "code": CommonErrorCode.NOT_AUTHENTICATED.value,
        "message": "Authentication credentials were not provided.",
        "fields": {},
    },
    "403": {
        "code": CommonErrorCode.PERMISSION_DENIED.value,
        "message": "Your role does not allow this operation.",
        "fields": {},
    },
    "404": {"code": CommonErrorCode.NOT_FOUND.value, "message": "Not found.", "fields": {}},
    "413": {
        "code": CommonErrorCode.TOO_LARGE.value,
        "message": "The JSON body has 70,000 bytes; this operation takes at most 65,536 bytes. Send less at once.",
        "fields": {},
    },
    "429": {
        "code": CommonErrorCode.THROTTLED.value,
        "message": "Request was throttled. Expected available in 3 seconds.",
        "fields": {},
    },
}


class VttAutoSchema(AutoSchema):
    def get_operation_id(self):
        """The operation the view declares for the role matrix ("tokens.list" -> "tokens_list")."""
        try:
            return operation_of(self.view, self.method.upper()).replace(".", "_")
        except Exception:  # views of drf-spectacular itself declare none
            return super().get_operation_id()

    def get_serializer_name(self, serializer, direction):
        """`TokenListCreateApi.InputSerializer` becomes the component "TokenListCreateInput": views keep
        their input and output serializers nested, so the bare class names repeat across views."""
        cls = serializer if isinstance(serializer, type) else type(serializer)
        owner, _, name = cls.__qualname__.rpartition(".")
        if owner:
            return owner.split(".")[-1].removesuffix("Api") + name
        return super().get_serializer_name(serializer, direction)

    def _error_codes(self) -> ErrorCodes:
        """What the view declares its operation answers: `error_codes = ...`, or a dict by HTTP method
        beside `operations`."""
        declared = getattr(self.view, "error_codes", None)
        if isinstance(declared, dict):
            declared = declared.get(self.method.upper())
        if not isinstance(declared, ErrorCodes):
            warn(f"{type(self.view).__name__} declares no `error_codes` for {self.method}")
            return COMMON_ERRORS
        return declared

    def resolve_serializer(self, serializer, direction, bypass_extensions=False):
        # Views name the plain ErrorSerializer (alone, in an OpenApiResponse, among polymorphic ones);
        # the schema shows the operation's own codes wherever it appears.
        if serializer is ErrorSerializer or type(serializer) is ErrorSerializer:
            serializer = error_serializer(self._error_codes())()
        return super().resolve_serializer(serializer, direction, bypass_extensions)

    def _get_response_bodies(self, direction="response"):
        bodies = super()._get_response_bodies(direction)
        errors = dict(ERROR_RESPONSES)
        if self.method.upper() in ("POST", "PUT", "PATCH"):
            errors |= BODY_ERROR_RESPONSES
        for code, description in errors.items():
            if code not in bodies:
                body = self._get_response_for_code(ErrorSerializer, code, direction=direction)
                body["description"] = description
                for media in body.get("content", {}).values():
                    media["example"] = ERROR_EXAMPLES[code]
                bodies[code] = body
        return bodies
