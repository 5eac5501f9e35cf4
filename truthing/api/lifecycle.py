"""Tests: admins create, start, publish, archive, audit and export them; operators and reviewers read
them (the test and its card)."""

from __future__ import annotations

from dataclasses import fields as dataclass_fields

from django.http import JsonResponse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from truthing import reports, selectors
from truthing.api import TRUTHING_ERRORS
from truthing.bridge import EngineSettings, statistics_get
from truthing.services import audit, lifecycle
from vtt_site.api.pagination import page_response, paginated
from vtt_site.api.parsers import TEST_BODY_BYTES
from vtt_site.api.schema import ErrorSerializer


class EngineSettingsSerializer(serializers.Serializer):
    epsilon = serializers.FloatField(required=False, min_value=0, max_value=0.5)
    min_population = serializers.IntegerField(required=False, min_value=1, max_value=10**9)
    max_attributes = serializers.IntegerField(required=False, min_value=0, max_value=2)
    max_questions = serializers.IntegerField(required=False, min_value=1, max_value=1000)
    rejection_limit = serializers.IntegerField(required=False, min_value=1, max_value=1000)
    prior_strength = serializers.FloatField(required=False, min_value=0, max_value=1e9)
    weighted_strength = serializers.FloatField(
        required=False,
        min_value=0,
        max_value=1e9,
        help_text="The prior strength of the last level of an instantiation or attribute estimate, the one "
        "weighted by consistency (a relationship question has relationship_strength).",
    )
    consistency_weight = serializers.FloatField(required=False, min_value=0, max_value=1)
    min_evidence = serializers.FloatField(
        required=False,
        min_value=0,
        max_value=1e9,
        help_text=(
            "What the consistency-weighted level of a uniqueness question must weigh (training images that "
            "give the history's answers, each counting consistency_weight to the power of its disagreements) "
            "for the question to be asked."
        ),
    )
    sharp_epsilon = serializers.FloatField(
        required=False,
        allow_null=True,
        min_value=0,
        max_value=0.5,
        help_text="null turns the sharp rule off.",
    )
    relationship_strength = serializers.FloatField(
        required=False,
        min_value=0,
        max_value=1e9,
        help_text=(
            "The prior strength of the last level of a relationship question's estimate, which counts "
            "only the training images that give both labels' defining answers (weighted_strength is "
            "that of the other kinds)."
        ),
    )


assert {f.name for f in dataclass_fields(EngineSettings)} >= set(EngineSettingsSerializer().fields)


class TestOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    description = serializers.CharField()
    state = serializers.CharField()
    practice = serializers.BooleanField(
        help_text="A practice test: any system may take it any number of times; never on a leaderboard."
    )
    statistics = serializers.IntegerField(source="statistics_id")
    engine_settings = serializers.JSONField()
    seed = serializers.IntegerField()
    streams_per_image = serializers.IntegerField()
    images = serializers.IntegerField(help_text="Number of test images.")
    created_at = serializers.DateTimeField()
    started_at = serializers.DateTimeField(allow_null=True)
    published_at = serializers.DateTimeField(allow_null=True)


class TestCardSerializer(serializers.Serializer):
    test = TestOutputSerializer()
    card = serializers.JSONField(
        help_text="Figures: streams, answers, rejected share, lengths, yes rate, kinds, "
        "blind accuracy from the engine's p, each proportion with its 95% interval."
    )
    publish_blockers = serializers.ListField(child=serializers.CharField())


def _card(test) -> dict:
    return {
        "test": test,
        "card": reports.card_of_test(test=test),
        "publish_blockers": lifecycle.publish_blockers(test) if test.state == "truthing" else [],
    }


class TestListCreateApi(APIView):
    operations = {"GET": "truthing.test.list", "POST": "truthing.test.create"}
    error_codes = TRUTHING_ERRORS
    json_body_max_bytes = TEST_BODY_BYTES

    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=200)
        description = serializers.CharField(required=False, allow_blank=True, max_length=5000)
        statistics = serializers.IntegerField(min_value=1)
        images = serializers.ListField(
            child=serializers.IntegerField(min_value=1), min_length=1, max_length=10000
        )
        engine_settings = EngineSettingsSerializer(required=False)
        seed = serializers.IntegerField(required=False, min_value=0, max_value=2**31 - 1)
        streams_per_image = serializers.IntegerField(required=False, min_value=1, max_value=20)
        practice = serializers.BooleanField(
            required=False, help_text="Meant to be published as a practice test (it may change until then)."
        )

    @extend_schema(responses=paginated(TestOutputSerializer), summary="List tests")
    def get(self, request):
        return page_response(request, self, selectors.list_tests(), TestOutputSerializer)

    @extend_schema(
        request=InputSerializer,
        responses={201: TestOutputSerializer, 409: ErrorSerializer},
        summary="Create a draft test",
    )
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        test = lifecycle.create_test(
            name=values["name"],
            description=values.get("description", ""),
            statistics=statistics_get(statistics_id=values["statistics"]),
            image_ids=values["images"],
            settings=values.get("engine_settings"),
            seed=values.get("seed", 0),
            streams_per_image=values.get("streams_per_image", 1),
            practice=values.get("practice", False),
            created_by=request.user,
        )
        return Response(
            TestOutputSerializer(selectors.get_test(test_id=test.pk)).data, status=status.HTTP_201_CREATED
        )


class TestApi(APIView):
    operation = "truthing.test.read"
    error_codes = TRUTHING_ERRORS

    @extend_schema(responses=TestCardSerializer, summary="A test and its card")
    def get(self, request, test_id: int):
        return Response(TestCardSerializer(_card(selectors.get_test(test_id=test_id))).data)


def _transition(service, operation: str, summary: str):
    class TransitionApi(APIView):
        operation: str  # set below: the class body cannot read the argument of the same name
        error_codes = TRUTHING_ERRORS

        @extend_schema(
            request=None, responses={200: TestOutputSerializer, 409: ErrorSerializer}, summary=summary
        )
        def post(self, request, test_id: int):
            service(test=selectors.get_test(test_id=test_id))
            return Response(TestOutputSerializer(selectors.get_test(test_id=test_id)).data)

    TransitionApi.operation = operation
    TransitionApi.__name__ = TransitionApi.__qualname__ = f"Test{operation.rsplit('.', 1)[1].title()}Api"
    return TransitionApi


TestStartApi = _transition(lifecycle.start_test, "truthing.test.start", "Start truthing a draft test")


class TestPublishApi(APIView):
    operation = "truthing.test.publish"
    error_codes = TRUTHING_ERRORS

    class InputSerializer(serializers.Serializer):
        practice = serializers.BooleanField(
            required=False,
            allow_null=True,
            help_text="true: publish it as a practice test (taken again and again, never on a leaderboard; "
            "its images may not be in a scored test); false: as a scored test; absent: as the test says.",
        )

    @extend_schema(
        request=InputSerializer,
        responses={200: TestOutputSerializer, 409: ErrorSerializer},
        summary="Publish a test whose streams have all ended, with a question at least (freezes it)",
    )
    def post(self, request, test_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        test = selectors.get_test(test_id=test_id)
        lifecycle.publish_test(test=test, practice=data.validated_data.get("practice"))
        return Response(TestOutputSerializer(selectors.get_test(test_id=test_id)).data)


TestArchiveApi = _transition(lifecycle.archive_test, "truthing.test.archive", "Archive a published test")


TestAuditApi = _transition(
    audit.audit_start,
    "truthing.test.audit",
    "Audit a test whose streams have ended: a blind guesser trained on the training images' streams, "
    "scored on the test's (in the background; the card shows the report)",
)


class TestPoolGrowApi(APIView):
    operation = "truthing.test.pool.grow"
    error_codes = TRUTHING_ERRORS

    class InputSerializer(serializers.Serializer):
        position = serializers.IntegerField(min_value=0, help_text="The image's position in the test.")
        streams = serializers.IntegerField(
            min_value=1, max_value=lifecycle.MAX_POOL_GROWTH, help_text="How many streams to add."
        )

    class OutputSerializer(serializers.Serializer):
        position = serializers.IntegerField()
        added = serializers.ListField(child=serializers.IntegerField(), help_text="The new streams' numbers.")

    @extend_schema(
        request=InputSerializer,
        responses={201: OutputSerializer, 400: ErrorSerializer, 409: ErrorSerializer},
        summary="Grow the pool of an operator-truthed image of a published test",
        description="Adds streams for operators to truth while the test stays published; sessions are "
        "dealt them once they have ended and their checks are settled. What existing sessions were dealt "
        "does not change.",
    )
    def post(self, request, test_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        added = lifecycle.pool_grow(test=selectors.get_test(test_id=test_id), **data.validated_data)
        body = {"position": data.validated_data["position"], "added": [stream.number for stream in added]}
        return Response(body, status=status.HTTP_201_CREATED)


class TestExportApi(APIView):
    operation = "truthing.test.export"
    error_codes = TRUTHING_ERRORS

    @extend_schema(
        responses={(200, "application/json"): dict}, summary="The test with every stream and answer"
    )
    def get(self, request, test_id: int):
        test = selectors.get_test(test_id=test_id)
        response = JsonResponse(selectors.export_of_test(test=test))
        response["Content-Disposition"] = f'attachment; filename="test-{test.pk}.json"'
        return response
