"""Serializer fields whose behaviour matches what the schema says of them."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.fields import empty
from rest_framework.utils import html


class QueryChoiceField(serializers.ChoiceField):
    """A query-string filter whose empty value (`?stage=`) is refused like any value outside the enum.

    DRF treats an empty optional form or query value as absent, which the schema (an enum) does not
    say; schema fuzzing found the disagreement. Absent stays absent."""

    def get_value(self, dictionary):
        if html.is_html_input(dictionary) and self.field_name in dictionary:
            return dictionary[self.field_name]
        return empty


@extend_schema_field({"type": "string", "format": "binary", "minLength": 1})
class NonEmptyFileField(serializers.FileField):
    """An uploaded file that must not be empty, and a schema that says so."""

    def __init__(self, **kwargs):
        kwargs["allow_empty_file"] = False
        super().__init__(**kwargs)
