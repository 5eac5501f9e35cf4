"""Vocabularies: everyone reads them; admins create them and edit those no annotation uses yet."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.api.common import ANNOTATION_ERRORS
from annotations.selectors.vocabularies import vocabulary_document, vocabulary_get, vocabulary_list
from annotations.services.vocabularies import vocabulary_import, vocabulary_update
from vtt_site.api.pagination import page_response, paginated
from vtt_site.api.parsers import VOCABULARY_BODY_BYTES
from vtt_site.api.schema import ErrorSerializer


class DocumentSerializer(serializers.Serializer):
    """The vocabulary document of docs/method.md section 9; kernel.vocabulary validates its content."""

    name = serializers.CharField(max_length=100)
    description = serializers.CharField(required=False, allow_blank=True)
    types = serializers.DictField(
        child=serializers.DictField(), help_text='{"person": {"attribute_groups": [...]}, ...}'
    )
    relationships = serializers.ListField(child=serializers.DictField(), required=False)
    regions = serializers.JSONField(
        required=False, help_text='"default", or a list of {"id", "box": [x0, y0, x1, y1]} in fractions.'
    )


class VocabularySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    version = serializers.IntegerField()
    description = serializers.CharField()
    created_at = serializers.DateTimeField()
    in_use = serializers.BooleanField(help_text="Annotations use it, so it can no longer be edited.")


class VocabularyDetailSerializer(VocabularySerializer):
    document = serializers.DictField(help_text="The vocabulary document (docs/method.md section 9).")


def _detail(vocabulary_id: int) -> dict:
    vocabulary = vocabulary_get(vocabulary_id=vocabulary_id)
    data = VocabularySerializer(vocabulary).data
    return VocabularyDetailSerializer(data | {"document": vocabulary_document(vocabulary)}).data


class VocabularyListCreateApi(APIView):
    operations = {"GET": "vocabulary.list", "POST": "vocabulary.create"}
    error_codes = ANNOTATION_ERRORS
    json_body_max_bytes = VOCABULARY_BODY_BYTES

    @extend_schema(responses=paginated(VocabularySerializer), summary="List vocabularies, every version")
    def get(self, request):
        return page_response(request, self, vocabulary_list(), VocabularySerializer)

    @extend_schema(
        request=DocumentSerializer,
        responses={201: VocabularyDetailSerializer},
        summary="Create a vocabulary from its document (an existing name gets the next version)",
    )
    def post(self, request):
        document = DocumentSerializer(data=request.data)
        document.is_valid(raise_exception=True)
        vocabulary = vocabulary_import(document=dict(document.validated_data))
        return Response(_detail(vocabulary.pk), status=status.HTTP_201_CREATED)


class VocabularyDetailApi(APIView):
    operations = {"GET": "vocabulary.read", "PUT": "vocabulary.update"}
    error_codes = ANNOTATION_ERRORS
    json_body_max_bytes = VOCABULARY_BODY_BYTES

    @extend_schema(responses=VocabularyDetailSerializer, summary="A vocabulary with its document")
    def get(self, request, vocabulary_id: int):
        return Response(_detail(vocabulary_id))

    @extend_schema(
        request=DocumentSerializer,
        responses={200: VocabularyDetailSerializer, 409: ErrorSerializer},
        summary="Replace a vocabulary's content while no annotation uses it (409 once one does)",
    )
    def put(self, request, vocabulary_id: int):
        document = DocumentSerializer(data=request.data)
        document.is_valid(raise_exception=True)
        vocabulary = vocabulary_update(
            vocabulary=vocabulary_get(vocabulary_id=vocabulary_id), document=dict(document.validated_data)
        )
        return Response(_detail(vocabulary.pk))
