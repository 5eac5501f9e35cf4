"""Engine API: fitted statistics (list, ask for a fit, read) and estimates after a history."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from annotations.errors import AnnotationErrorCode
from annotations.selectors.collections import access_collection
from engine import selectors, services
from engine.errors import EngineErrorCode
from kernel.errors import CoreErrorCode
from vtt_site.api.pagination import page_response, paginated
from vtt_site.api.schema import ErrorSerializer, error_codes
from vtt_site.errors import SiteErrorCode

# The engine's codes, the core's (a question or history read, a setting), the collections a fit reads
# (annotations' access_collection), and the fit's job limit.
STATISTICS_ERRORS = error_codes(
    "Statistics",
    EngineErrorCode,
    CoreErrorCode,
    AnnotationErrorCode.COLLECTION_NOT_FOUND,
    AnnotationErrorCode.MEMBER_ROLE_FORBIDS,
    SiteErrorCode.TOO_MANY_JOBS,
)


class StatisticsOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.CharField()
    progress = serializers.FloatField()
    message = serializers.CharField()
    vocabulary = serializers.SerializerMethodField()
    collections = serializers.SerializerMethodField()
    settings = serializers.JSONField()
    images = serializers.IntegerField(source="n_images")
    objects = serializers.IntegerField(source="n_objects")
    pairs = serializers.IntegerField(source="n_pairs")
    summary = serializers.JSONField(
        help_text="Per type: objects, objects with known attributes, attribute frequencies."
    )
    file_size = serializers.IntegerField()
    fit_seconds = serializers.FloatField(allow_null=True)
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)

    def get_vocabulary(self, obj) -> dict:
        return {"id": obj.vocabulary_id, "name": obj.vocabulary.name, "version": obj.vocabulary.version}

    def get_collections(self, obj) -> list[dict]:
        return [{"id": c.pk, "name": c.name} for c in obj.collections.all()]


class StatisticsListCreateApi(APIView):
    operations = {"GET": "statistics.list", "POST": "statistics.create"}
    error_codes = STATISTICS_ERRORS

    class InputSerializer(serializers.Serializer):
        collections = serializers.ListField(child=serializers.IntegerField(), min_length=1, max_length=50)
        min_overlap = serializers.FloatField(required=False, min_value=0.0, max_value=0.99)

    @extend_schema(responses=paginated(StatisticsOutputSerializer), summary="List fitted statistics")
    def get(self, request):
        return page_response(request, self, selectors.statistics_list(), StatisticsOutputSerializer)

    @extend_schema(
        request=InputSerializer,
        responses={202: StatisticsOutputSerializer, 409: ErrorSerializer},
        summary="Fit statistics on the reviewed training images of collections (in the background)",
    )
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        collections = [
            access_collection(user=request.user, collection_id=pk)
            for pk in data.validated_data["collections"]
        ]
        statistics = services.statistics_fit_start(
            user=request.user, collections=collections, min_overlap=data.validated_data.get("min_overlap")
        )
        statistics = selectors.statistics_get(statistics_id=statistics.pk)  # status after an eager run
        return Response(StatisticsOutputSerializer(statistics).data, status=status.HTTP_202_ACCEPTED)


class StatisticsDetailApi(APIView):
    operation = "statistics.read"
    error_codes = STATISTICS_ERRORS

    @extend_schema(
        responses=StatisticsOutputSerializer, summary="Fitted statistics, with progress while fitting"
    )
    def get(self, request, statistics_id: int):
        return Response(
            StatisticsOutputSerializer(selectors.statistics_get(statistics_id=statistics_id)).data
        )


class EstimateApi(APIView):
    operation = "statistics.estimate"
    error_codes = STATISTICS_ERRORS

    class InputSerializer(serializers.Serializer):
        history = serializers.JSONField(
            help_text="A list of {question, answer}; answer is yes, no or ambiguous."
        )
        question = serializers.JSONField(
            help_text="A question in its structured form (docs/method.md section 9)."
        )
        width = serializers.FloatField(min_value=1, help_text="Width of the image, in pixels.")
        height = serializers.FloatField(min_value=1, help_text="Height of the image, in pixels.")

    class OutputSerializer(serializers.Serializer):
        p = serializers.FloatField(
            allow_null=True, help_text="Estimated P(yes); null when the population is empty."
        )
        population = serializers.IntegerField()
        text = serializers.CharField()

    @extend_schema(
        request=InputSerializer,
        responses={200: OutputSerializer, 409: ErrorSerializer},
        summary="Estimate P(yes) for a question after a history",
        description="409 `statistics_not_ready` while the fit is queued or running, or when it failed.",
    )
    def post(self, request, statistics_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        statistics = selectors.statistics_get(statistics_id=statistics_id)
        result = selectors.statistics_estimate(statistics=statistics, **data.validated_data)
        return Response(self.OutputSerializer(result).data)
