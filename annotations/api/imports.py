"""Imports (a Celery task with progress) and exports (a streamed file) of scene graphs."""

from __future__ import annotations

import json
from collections.abc import Iterator

from django.http import StreamingHttpResponse
from django.utils.text import slugify
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_serializer
from rest_framework import serializers, status
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.api.common import multipart_data
from annotations.models import SceneFormat, Split, Stage
from annotations.selectors.collections import access_collection
from annotations.selectors.exports import coco_export, jsonl_export
from annotations.selectors.imports import access_import, import_list
from annotations.services.imports import import_create
from vtt_site.api.fields import NonEmptyFileField, QueryChoiceField
from vtt_site.api.pagination import page_response, paginated
from vtt_site.api.schema import ErrorSerializer

CHUNK_CHARS = 64 * 1024


class ImportJobSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    collection = serializers.IntegerField(source="collection_id")
    format = serializers.CharField()
    original_name = serializers.CharField()
    split = serializers.CharField()
    mark_reviewed = serializers.BooleanField()
    status = serializers.CharField(help_text="queued, validating, writing, done or failed.")
    progress = serializers.FloatField(help_text="From 0 to 1: the records validated, then 1 when done.")
    message = serializers.CharField(
        help_text="For a person: why it failed, or what a queued import waits for (empty otherwise)."
    )
    lines_total = serializers.IntegerField()
    lines_done = serializers.IntegerField(help_text="Records validated so far.")
    errors = serializers.ListField(
        child=serializers.DictField(),
        help_text="Every bad record: {line, message}. Line null: the whole file, or a COCO entry, whose "
        "place in the document starts the message (images[3]: ..., annotations[12]: ...).",
    )
    images_created = serializers.IntegerField()
    images_updated = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)


class ImportListCreateApi(APIView):
    operations = {"GET": "import.list", "POST": "import.create"}
    parser_classes = [MultiPartParser, FormParser]

    @extend_schema_serializer(component_name="ImportCreate")
    class InputSerializer(serializers.Serializer):
        file = NonEmptyFileField(help_text="JSON Lines scene graphs, or one COCO JSON document; not empty.")
        format = serializers.ChoiceField(choices=SceneFormat.choices)
        split = serializers.ChoiceField(
            choices=Split.choices, default=Split.TRAIN, help_text="Split of the images the import creates."
        )
        mark_reviewed = serializers.BooleanField(
            default=False, help_text="Accept the annotations at once (an existing reviewed dataset)."
        )

    @extend_schema(responses=paginated(ImportJobSerializer), summary="The collection's imports, newest first")
    def get(self, request, collection_id: int):
        collection = access_collection(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        return page_response(request, self, import_list(collection=collection), ImportJobSerializer)

    @extend_schema(
        request={"multipart/form-data": InputSerializer},
        responses={202: ImportJobSerializer, 409: ErrorSerializer, 413: ErrorSerializer},
        summary="Import scene graphs into a collection (runs in the background; poll the job)",
    )
    def post(self, request, collection_id: int):
        collection = access_collection(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        data = self.InputSerializer(data=multipart_data(request))
        data.is_valid(raise_exception=True)
        job = import_create(collection=collection, created_by=request.user, **data.validated_data)
        return Response(ImportJobSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class ImportDetailApi(APIView):
    operation = "import.read"

    @extend_schema(responses=ImportJobSerializer, summary="An import's status, progress and errors")
    def get(self, request, job_id: int):
        return Response(
            ImportJobSerializer(
                access_import(user=request.user, job_id=job_id, operation=request.operation)
            ).data
        )


class ExportApi(APIView):
    operation = "export.read"

    class FilterSerializer(serializers.Serializer):
        stage = QueryChoiceField(choices=Stage.choices, required=False)

    @extend_schema(
        parameters=[
            FilterSerializer,
            OpenApiParameter(
                "scene_format", OpenApiTypes.STR, OpenApiParameter.PATH, enum=SceneFormat.values
            ),
        ],
        responses={
            (200, "application/x-ndjson"): OpenApiTypes.STR,
            (200, "application/json"): OpenApiTypes.OBJECT,
        },
        summary="Export the annotated images of a collection as JSON Lines or COCO (a streamed file)",
    )
    def get(self, request, collection_id: int, scene_format: str):
        collection = access_collection(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        stage = filters.validated_data.get("stage")
        if scene_format == SceneFormat.JSONL:
            chunks, content_type = jsonl_export(collection=collection, stage=stage), "application/x-ndjson"
        else:
            document = coco_export(collection=collection, stage=stage)
            chunks, content_type = _buffered(json.JSONEncoder().iterencode(document)), "application/json"
        response = StreamingHttpResponse(chunks, content_type=content_type)
        extension = "jsonl" if scene_format == SceneFormat.JSONL else "coco.json"
        name = f"{slugify(collection.name) or 'collection'}-{stage or 'all'}.{extension}"
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response


def _buffered(pieces: Iterator[str]) -> Iterator[str]:
    """The encoder yields tiny pieces; send them in chunks of a useful size."""
    buffer: list[str] = []
    size = 0
    for piece in pieces:
        buffer.append(piece)
        size += len(piece)
        if size >= CHUNK_CHARS:
            yield "".join(buffer)
            buffer, size = [], 0
    if buffer:
        yield "".join(buffer)
