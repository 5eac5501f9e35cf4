"""Each annotator's quality in a crowd collection, as JSON or CSV."""

from __future__ import annotations

import csv
import io
import json

from django.http import HttpResponse, StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.selectors.collections import access_collection
from crowd.api.common import CROWD_ERRORS
from crowd.quality import COLUMNS, annotator_quality
from crowd.selectors import copies_export, require_crowd
from vtt_site.api.schema import ErrorSerializer
from vtt_site.errors import ApplicationError, CommonErrorCode


class QualitySerializer(serializers.Serializer):
    annotator = serializers.CharField()
    images_done = serializers.IntegerField()
    seconds_per_image = serializers.FloatField(allow_null=True, help_text="Median, taking to submitting.")
    gold_images = serializers.IntegerField()
    gold_accuracy = serializers.FloatField(allow_null=True)
    gold_low = serializers.FloatField(allow_null=True, help_text="95% Wilson interval.")
    gold_high = serializers.FloatField(allow_null=True)
    merge_agreement = serializers.FloatField(
        allow_null=True, help_text="Mean box F1 against accepted merges."
    )
    sensitivity = serializers.FloatField(allow_null=True, help_text="Dawid-Skene estimate.")
    specificity = serializers.FloatField(allow_null=True)
    reliability_decisions = serializers.IntegerField()
    paused = serializers.BooleanField()


class QualityApi(APIView):
    operation = "crowd.quality.read"
    error_codes = CROWD_ERRORS

    @extend_schema(
        parameters=[OpenApiParameter("as", str, enum=["json", "csv"], required=False)],
        responses={
            200: QualitySerializer(many=True),
            (200, "text/csv"): OpenApiTypes.STR,
            409: ErrorSerializer,
        },
        summary="Each annotator's quality in the collection (as=csv for a spreadsheet)",
    )
    def get(self, request, collection_id: int):
        collection = access_collection(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        require_crowd(collection)
        wanted = request.query_params.get("as", "json")
        if wanted not in ("json", "csv"):
            raise ApplicationError(
                CommonErrorCode.INVALID, "as must be json or csv.", fields={"as": ["Unknown."]}
            )
        rows = QualitySerializer(annotator_quality(collection=collection), many=True).data
        if wanted == "json":
            return Response(rows)
        out = io.StringIO()
        writer = csv.DictWriter(out, fieldnames=COLUMNS)
        writer.writeheader()
        writer.writerows(rows)
        response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="quality-{collection.pk}.csv"'
        return response


class CopiesExportApi(APIView):
    operation = "crowd.copies.export"
    error_codes = CROWD_ERRORS

    @extend_schema(
        responses={(200, "application/x-ndjson"): OpenApiTypes.STR, 409: ErrorSerializer},
        summary="Each annotator's own work on the merged and gold images, one JSON record a line",
        description="The training set is the merged annotations (the collection's exports); this is the "
        "individual work behind them, with who drew it. Work on images not merged yet is left out.",
    )
    def get(self, request, collection_id: int):
        collection = access_collection(
            user=request.user, collection_id=collection_id, operation=request.operation
        )
        require_crowd(collection)
        lines = (
            json.dumps(record, ensure_ascii=False) + "\n" for record in copies_export(collection=collection)
        )
        response = StreamingHttpResponse(lines, content_type="application/x-ndjson; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="crowd-work-{collection.pk}.jsonl"'
        return response
