"""What several views of the annotation API share: output serializers, and reading an upload's form."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFilesSent
from django.urls import reverse
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from annotations.conf import conf
from annotations.errors import AnnotationErrorCode
from annotations.models import Image
from kernel.errors import CoreErrorCode
from vtt_site.api.schema import error_codes
from vtt_site.errors import SiteErrorCode, TooLargeError
from vtt_site.leases import LeaseErrorCode

# What the annotation API's operations answer: the app's codes, the engine core's (a scene or vocabulary
# read), a lease not held, and an import's job limit.
ANNOTATION_ERRORS = error_codes(
    "Annotation", AnnotationErrorCode, CoreErrorCode, LeaseErrorCode, SiteErrorCode.TOO_MANY_JOBS
)


def multipart_data(request) -> Any:
    """`request.data` of an upload. Django refuses an oversized multipart body while DRF parses it, with
    exceptions DRF does not turn into responses; here they become a 413 that says what the limit is."""
    try:
        return request.data
    except TooManyFilesSent:
        raise TooLargeError(
            AnnotationErrorCode.TOO_MANY_FILES,
            f"At most {settings.DATA_UPLOAD_MAX_NUMBER_FILES} files per request; send the rest in another "
            "request, or put them in a zip archive.",
        ) from None
    except RequestDataTooBig:
        raise TooLargeError(
            AnnotationErrorCode.REQUEST_TOO_LARGE,
            f"The form fields of this request exceed {settings.DATA_UPLOAD_MAX_MEMORY_SIZE:,} bytes.",
        ) from None


class UserRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()


class VocabularyRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    version = serializers.IntegerField()


class ImageSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    collection = serializers.IntegerField(source="collection_id")
    original_name = serializers.CharField()
    width = serializers.IntegerField()
    height = serializers.IntegerField()
    format = serializers.CharField(help_text="JPEG, PNG or WEBP; empty for an imported image without pixels.")
    file_url = serializers.SerializerMethodField()
    split = serializers.CharField()
    stage = serializers.CharField(help_text="annotate, review or accepted.")
    annotator = UserRefSerializer(allow_null=True)
    annotated_at = serializers.DateTimeField(allow_null=True)
    lease_holder = UserRefSerializer(allow_null=True)
    lease_expires_at = serializers.DateTimeField(allow_null=True)
    returned = serializers.BooleanField(help_text="Sent back by a reviewer; see review_comment.")
    review_comment = serializers.CharField()
    review_comment_object = serializers.CharField(
        help_text='The box the review comment is about ("o3"), or empty: the whole image.'
    )
    reviewed_by = UserRefSerializer(allow_null=True)
    reviewed_at = serializers.DateTimeField(allow_null=True)
    corrected_by = UserRefSerializer(
        allow_null=True, help_text="The reviewer who corrected the annotation while reviewing it."
    )
    corrected_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_file_url(self, image: Image) -> str | None:
        """The authenticated URL of the pixels (there is no public media URL)."""
        return reverse("api:image-file", kwargs={"image_id": image.pk}) if image.file else None


class _PerImageList(serializers.ListSerializer):
    """A list whose length is checked against a setting before any item is: 300,000 objects are refused
    at once instead of being validated one by one until the worker times out."""

    limit_setting = ""
    noun = ""

    def to_internal_value(self, data):
        limit = getattr(conf, self.limit_setting)
        if isinstance(data, list) and len(data) > limit:
            raise serializers.ValidationError(
                [f"An image may have at most {limit:,} {self.noun}; this one has {len(data):,}."]
            )
        return super().to_internal_value(data)


class ObjectList(_PerImageList):
    limit_setting, noun = "ANNOTATION_MAX_OBJECTS", "objects"


class RelationshipList(_PerImageList):
    limit_setting, noun = "ANNOTATION_MAX_RELATIONSHIPS", "relationships"


def _source_text(**kwargs):
    # As the source wrote it: "Bike " keeps its space, so that an export gives it back.
    return serializers.CharField(trim_whitespace=False, allow_blank=True, max_length=200, **kwargs)


class RecordSourceSerializer(serializers.Serializer):
    """Who an object is in the file it was imported from; kept and written back by exports."""

    id = _source_text(required=False, help_text="The object's id in its source.")
    names = serializers.ListField(child=_source_text(), required=False, max_length=50)
    synsets = serializers.ListField(child=_source_text(), required=False, max_length=50)
    label = _source_text(required=False, help_text="Open Images' class code (`/m/01g317`).")


class SuggestionRefSerializer(serializers.Serializer):
    """The model's suggestion an object was accepted from (decision 0078)."""

    id = serializers.IntegerField(help_text="The suggestion (GET /images/{id}/suggestions/).")
    model_version = serializers.CharField(help_text="The model's version that proposed it.")
    score = serializers.FloatField(allow_null=True)
    edited = serializers.BooleanField(
        help_text="Whether the saved type, box (beyond a pixel) or attributes differ from the suggestion's; "
        "worked out by the server."
    )


@extend_schema_field(
    {
        "oneOf": [
            {"type": "integer"},
            {"type": "object", "properties": {"id": {"type": "integer"}}, "required": ["id"]},
        ],
        "nullable": True,
        "description": "The model's suggestion this object is accepted from: its id, or the `suggestion` "
        "object of a read as it came. Leave it out (or null) for a box drawn by hand.",
    }
)
class SuggestionIdField(serializers.Field):
    """An id, or the record's `{"id": ...}` given back as read, so that a record read can be saved again."""

    default_error_messages = {"invalid": "A suggestion's id (a whole number), or null."}

    def to_internal_value(self, data: Any) -> int:
        if isinstance(data, dict):
            data = data.get("id")
        if isinstance(data, bool) or not isinstance(data, int) or data < 1:
            self.fail("invalid")
        return data

    def to_representation(self, value: Any) -> Any:
        return value


def bbox_field() -> serializers.ListField:
    """A box as the API gives and takes it: an object's, a model's suggestion's."""
    return serializers.ListField(
        child=serializers.FloatField(),
        min_length=4,
        max_length=4,
        help_text="[x, y, width, height] in pixels.",
    )


class RecordObjectSerializer(serializers.Serializer):
    id = serializers.CharField(help_text='Client ids in a request; "o1".."oN" in stored order in a response.')
    type = serializers.CharField()
    bbox = bbox_field()
    attributes = serializers.ListField(
        child=serializers.CharField(), default=list, help_text="The values known to hold."
    )
    attributes_known = serializers.BooleanField(default=True, help_text="False while any group is unknown.")
    unknown = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="The attribute groups nobody has told yet (left out: none, or all of them when "
        "attributes_known is false).",
    )
    flags = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="What the source said of the box: occluded, truncated, inside, depiction, group, added. "
        "A depiction or a group box is never an object of a test.",
    )
    source = RecordSourceSerializer(required=False)  # type: ignore[assignment]  # DRF's Field.source
    suggestion = SuggestionRefSerializer(
        required=False, help_text="Only on an object accepted from a model's suggestion."
    )

    class Meta:
        list_serializer_class = ObjectList


class RecordObjectInputSerializer(RecordObjectSerializer):
    """An object of a save: it may name the suggestion it is accepted from (accepting is saving)."""

    suggestion = SuggestionIdField(required=False, allow_null=True)  # type: ignore[assignment]

    class Meta:
        list_serializer_class = ObjectList


class RecordRelationshipSerializer(serializers.Serializer):
    subject = serializers.CharField()
    predicate = serializers.CharField()
    object = serializers.CharField()

    class Meta:
        list_serializer_class = RelationshipList


class SceneRecordSerializer(serializers.Serializer):
    """A scene graph as in docs/method.md section 9."""

    image = serializers.CharField()
    width = serializers.IntegerField()
    height = serializers.IntegerField()
    objects = RecordObjectSerializer(many=True)
    relationships = RecordRelationshipSerializer(many=True)
    source_id = serializers.CharField(required=False, help_text="The image's id in the file it came from.")
