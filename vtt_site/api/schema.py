"""OpenAPI: every operation documents the one error shape for the failures it can have."""

from __future__ import annotations

from drf_spectacular.openapi import AutoSchema
from rest_framework import serializers

from vtt_site.api.operations import operation_of


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField(
        help_text="Stable machine-readable code, e.g. `invalid`, `box_outside_image`."
    )
    message = serializers.CharField(help_text="What went wrong, for a person.")
    fields = serializers.DictField(help_text="Per-field details, keyed by field path; may be empty.")


ERROR_RESPONSES = {
    "400": "The request is malformed or breaks a rule; nothing was changed.",
    "401": "No valid credentials (session or `Authorization: Token …`).",
    "403": "Your role or membership does not allow this.",
    "404": "No such object, or not visible to you.",
    "429": "Rate limit reached; retry after the `Retry-After` seconds.",
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
        for code, description in ERROR_RESPONSES.items():
            if code not in bodies:
                body = self._get_response_for_code(ErrorSerializer, code, direction=direction)
                body["description"] = description
                bodies[code] = body
        return bodies
