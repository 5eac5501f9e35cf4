"""The crowd queue and an annotator's own work on an image.

What an annotator is given names no image: a number of their work (`id`), the picture's size and its
address under that number. A gold image is handed out, drawn, saved and submitted exactly as any other.
"""

from __future__ import annotations

from django.urls import reverse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.api.annotation import AnnotationApi
from annotations.selectors.collections import access_collection
from crowd.api.common import CROWD_ERRORS
from crowd.errors import CrowdErrorCode
from crowd.selectors import access_copy, copy_document
from crowd.services.copies import copy_leave, copy_save, copy_submit
from crowd.services.queue import copy_next
from vtt_site.api.files import FileApiView
from vtt_site.api.parsers import ANNOTATION_BODY_BYTES
from vtt_site.api.schema import ErrorSerializer
from vtt_site.errors import NotFoundError
from vtt_site.storage import CACHED, PRESIGNED_REDIRECT, file_response


@extend_schema_serializer(component_name="CrowdWork")
class WorkSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="Your work's number: the addresses below are under it.")
    width = serializers.IntegerField()
    height = serializers.IntegerField()
    file_url = serializers.CharField()
    state = serializers.CharField()
    lease_expires_at = serializers.DateTimeField(allow_null=True)


def work_data(copy) -> dict:
    return {
        "id": copy.pk,
        "width": copy.image.width,
        "height": copy.image.height,
        "file_url": reverse("api:crowd-work-file", args=[copy.pk]),
        "state": copy.state,
        "lease_expires_at": copy.lease_expires_at,
    }


class CrowdQueueApi(APIView):
    operation = "crowd.queue.next"
    error_codes = CROWD_ERRORS

    @extend_schema(
        request=None,
        responses={
            200: WorkSerializer,
            204: OpenApiResponse(description="Nothing is waiting for you."),
            409: ErrorSerializer,
        },
        summary="Take the next image of a crowd collection",
        description="The image you hold already, else a new one nobody has given you before. Each image "
        "goes to as many different annotators as the collection's overlap; you see only your own work.",
    )
    def post(self, request, collection_id: int):
        collection = access_collection(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        copy = copy_next(collection=collection, user=request.user)
        if copy is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        return Response(WorkSerializer(work_data(copy)).data)


class WorkDocumentSerializer(serializers.Serializer):
    width = serializers.IntegerField()
    height = serializers.IntegerField()
    objects = serializers.ListField(child=serializers.DictField())
    relationships = serializers.ListField(child=serializers.DictField())


class WorkAnnotationApi(APIView):
    operations = {"GET": "crowd.work.read", "PUT": "crowd.work.save"}
    error_codes = CROWD_ERRORS
    json_body_max_bytes = ANNOTATION_BODY_BYTES

    @extend_schema(responses=WorkDocumentSerializer, summary="Your own annotation of the image")
    def get(self, request, work_id: int):
        return Response(
            copy_document(access_copy(user=request.user, copy_id=work_id, operation=request.operation))
        )

    @extend_schema(
        request=AnnotationApi.InputSerializer,
        responses={200: WorkDocumentSerializer, 409: ErrorSerializer},
        summary="Replace your annotation of the image (the rules of an annotation save)",
    )
    def put(self, request, work_id: int):
        copy = access_copy(user=request.user, copy_id=work_id, operation=request.operation)
        data = AnnotationApi.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        saved = copy_save(copy=copy, user=request.user, document=data.validated_data)
        return Response(copy_document(saved) | {"lease_expires_at": saved.lease_expires_at})


class WorkSubmitApi(APIView):
    operation = "crowd.work.submit"
    error_codes = CROWD_ERRORS

    @extend_schema(
        request=None, responses={200: WorkSerializer, 409: ErrorSerializer}, summary="Hand your annotation in"
    )
    def post(self, request, work_id: int):
        copy = copy_submit(
            copy=access_copy(user=request.user, copy_id=work_id, operation=request.operation),
            user=request.user,
        )
        return Response(WorkSerializer(work_data(copy)).data)


class WorkLeaseApi(APIView):
    operation = "crowd.work.release"
    error_codes = CROWD_ERRORS

    @extend_schema(
        request=None, responses={204: None, 409: ErrorSerializer}, summary="Give the image back unfinished"
    )
    def delete(self, request, work_id: int):
        copy_leave(
            copy=access_copy(user=request.user, copy_id=work_id, operation=request.operation),
            user=request.user,
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class WorkFileApi(FileApiView):
    operation = "crowd.work.file"
    error_codes = CROWD_ERRORS

    @extend_schema(
        responses={
            (200, "image/jpeg"): OpenApiTypes.BINARY,
            (200, "image/png"): OpenApiTypes.BINARY,
            302: OpenApiResponse(description=PRESIGNED_REDIRECT),
        },
        summary="The picture you are annotating",
    )
    def get(self, request, work_id: int):
        copy = access_copy(user=request.user, copy_id=work_id, operation=request.operation)
        if not copy.image.file:
            raise NotFoundError(CrowdErrorCode.COPY_NOT_FOUND, "This image has no pixels on the platform.")
        return file_response(copy.image.file, cache=CACHED)
