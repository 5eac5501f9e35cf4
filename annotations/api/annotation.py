"""An image's annotation: read it, save it (the lease holder), submit it for review."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_serializer
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.api.common import (
    ANNOTATION_ERRORS,
    ImageSerializer,
    RecordObjectInputSerializer,
    RecordRelationshipSerializer,
    SceneRecordSerializer,
)
from annotations.selectors.annotation import image_annotation
from annotations.selectors.images import access_image
from annotations.services.annotation import annotation_correct, annotation_save, annotation_submit
from vtt_site.api.parsers import ANNOTATION_BODY_BYTES
from vtt_site.api.schema import ErrorSerializer


class SavedAnnotationSerializer(SceneRecordSerializer):
    lease_expires_at = serializers.DateTimeField(help_text="The lease, renewed by the save.")


class AnnotationApi(APIView):
    operations = {"GET": "annotation.read", "PUT": "annotation.save"}
    error_codes = ANNOTATION_ERRORS
    json_body_max_bytes = ANNOTATION_BODY_BYTES

    @extend_schema_serializer(component_name="AnnotationSave")
    class InputSerializer(serializers.Serializer):
        objects = RecordObjectInputSerializer(many=True)
        relationships = RecordRelationshipSerializer(many=True, required=False, default=list)

    @extend_schema(responses=SceneRecordSerializer, summary="The image's annotation as a scene graph")
    def get(self, request, image_id: int):
        image = access_image(user=request.user, image_id=image_id, operation=request.operation)
        return Response(SceneRecordSerializer(image_annotation(image=image)).data)

    @extend_schema(
        request=InputSerializer,
        responses={200: SavedAnnotationSerializer, 409: ErrorSerializer},
        summary="Replace the image's annotation (all or nothing; you must hold its lease)",
        description="Every rule of the vocabulary is checked: boxes inside the image after clipping and "
        "not degenerate, attribute values of the type, at most one value per exclusive group, no attributes "
        "when they are unknown, relationships allowed for the pair and never from an object to itself. "
        "A symmetric relationship is stored once. On any error nothing is changed.",
    )
    def put(self, request, image_id: int):
        image = access_image(user=request.user, image_id=image_id, operation=request.operation)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        record = annotation_save(image=image, user=request.user, document=data.validated_data)
        image.refresh_from_db(fields=["lease_expires_at"])
        return Response(SavedAnnotationSerializer(record | {"lease_expires_at": image.lease_expires_at}).data)


class AnnotationSubmitApi(APIView):
    operation = "annotation.submit"
    error_codes = ANNOTATION_ERRORS

    @extend_schema(
        request=None,
        responses={200: ImageSerializer, 409: ErrorSerializer},
        summary="Submit the annotation for review (you must hold the image's lease)",
    )
    def post(self, request, image_id: int):
        image = access_image(user=request.user, image_id=image_id, operation=request.operation)
        return Response(ImageSerializer(annotation_submit(image=image, user=request.user)).data)


class ReviewCorrectApi(APIView):
    operation = "review.correct"
    error_codes = ANNOTATION_ERRORS

    @extend_schema(
        request=AnnotationApi.InputSerializer,
        responses={200: SavedAnnotationSerializer, 409: ErrorSerializer},
        summary="Correct the annotation while reviewing it (you must hold its review lease)",
        description="The same rules as saving an annotation; the change is recorded as the reviewer's "
        "(corrected_by on the image), and the annotator stays who drew it. Then accept or send back.",
    )
    def put(self, request, image_id: int):
        image = access_image(user=request.user, image_id=image_id, operation=request.operation)
        data = AnnotationApi.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        record = annotation_correct(image=image, user=request.user, document=data.validated_data)
        image.refresh_from_db(fields=["lease_expires_at"])
        return Response(SavedAnnotationSerializer(record | {"lease_expires_at": image.lease_expires_at}).data)
