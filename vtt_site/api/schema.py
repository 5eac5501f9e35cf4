"""OpenAPI: every operation documents the one error shape for the failures it can have."""

from __future__ import annotations

from drf_spectacular.openapi import AutoSchema
from rest_framework import serializers

from vtt_site.api.operations import operation_of
from vtt_site.errors import CommonErrorCode


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
