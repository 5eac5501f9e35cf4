"""A collection's bucket source and exports written to a bucket (docs/storage.md): thin views over
datasets.services.bucket."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.api.common import ANNOTATION_ERRORS
from annotations.models import Split, Stage
from annotations.selectors.collections import access_collection
from datasets.formats import SceneFormat, format_values
from datasets.models import BucketSource
from datasets.selectors.exports import export_file_name, scene_export
from datasets.services.bucket import SYNC_LIMIT, bucket_source_set, bucket_source_sync, export_to_bucket
from vtt_site.api.schema import ErrorSerializer
from vtt_site.errors import CommonErrorCode, NotFoundError


class BucketSourceSerializer(serializers.Serializer):
    bucket = serializers.CharField(max_length=63)
    prefix = serializers.CharField(max_length=500, required=False, allow_blank=True, default="")
    copy = serializers.BooleanField(default=True, help_text="Copy each image into the platform's storage.")
    split = serializers.ChoiceField(choices=Split.choices, default=Split.TRAIN)
    synced_at = serializers.DateTimeField(read_only=True, allow_null=True)


class SyncReportSerializer(serializers.Serializer):
    listed = serializers.IntegerField(help_text="Images under the prefix.")
    added = serializers.IntegerField()
    present = serializers.IntegerField(help_text="Added by an earlier sync.")
    refused = serializers.ListField(child=serializers.DictField(), help_text="Each key refused, and why.")
    removed = serializers.ListField(child=serializers.CharField(), help_text="Added before, gone now.")
    left = serializers.IntegerField(help_text="New images beyond this request's limit: sync again.")


def _source(collection) -> BucketSource:
    source = BucketSource.objects.filter(collection=collection).first()
    if source is None:
        raise NotFoundError(CommonErrorCode.NOT_FOUND, "This collection has no bucket source.")
    return source


class BucketSourceApi(APIView):
    operations = {"GET": "bucket_source.read", "PUT": "bucket_source.set"}
    error_codes = ANNOTATION_ERRORS

    @extend_schema(responses={200: BucketSourceSerializer, 404: ErrorSerializer}, summary="The bucket source")
    def get(self, request, collection_id: int):
        collection = access_collection(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        return Response(BucketSourceSerializer(_source(collection)).data)

    @extend_schema(
        request=BucketSourceSerializer,
        responses={200: BucketSourceSerializer, 400: ErrorSerializer},
        summary="Fill the collection from a bucket and prefix (checked: the platform must list it)",
    )
    def put(self, request, collection_id: int):
        collection = access_collection(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        data = BucketSourceSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = {k: v for k, v in data.validated_data.items() if k != "synced_at"}
        return Response(BucketSourceSerializer(bucket_source_set(collection=collection, **values)).data)


class BucketSourceSyncApi(APIView):
    operation = "bucket_source.sync"
    error_codes = ANNOTATION_ERRORS

    @extend_schema(
        request=None,
        responses={200: SyncReportSerializer, 404: ErrorSerializer},
        summary=f"Add the bucket's new images (at most {SYNC_LIMIT}) and report the removed ones",
    )
    def post(self, request, collection_id: int):
        collection = access_collection(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        report = bucket_source_sync(source=_source(collection), uploaded_by=request.user, limit=SYNC_LIMIT)
        return Response(report.as_dict())


class ExportToBucketApi(APIView):
    operation = "export.bucket"
    error_codes = ANNOTATION_ERRORS

    class InputSerializer(serializers.Serializer):
        bucket = serializers.CharField(max_length=63)
        key = serializers.CharField(max_length=1000, required=False, allow_blank=True, default="")
        stage = serializers.ChoiceField(choices=Stage.choices, required=False)

    class OutputSerializer(serializers.Serializer):
        bucket = serializers.CharField()
        key = serializers.CharField()
        bytes = serializers.IntegerField()

    @extend_schema(
        request=InputSerializer,
        parameters=[
            OpenApiParameter("scene_format", OpenApiTypes.STR, OpenApiParameter.PATH, enum=format_values())
        ],
        responses={200: OutputSerializer, 400: ErrorSerializer},
        summary="Write an export of the collection to a bucket (target storage)",
    )
    def post(self, request, collection_id: int, scene_format: SceneFormat):
        collection = access_collection(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        stage = data.validated_data.get("stage")
        key = data.validated_data["key"] or export_file_name(
            collection=collection, scene_format=scene_format, stage=stage
        )
        chunks = scene_export(collection=collection, scene_format=scene_format, stage=stage)
        size = export_to_bucket(bucket=data.validated_data["bucket"], key=key, chunks=iter(chunks))
        return Response({"bucket": data.validated_data["bucket"], "key": key.lstrip("/"), "bytes": size})
