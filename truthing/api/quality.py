"""Quality of truthing: disagreements waiting for a reviewer's decision, and operators' statistics."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from truthing import reports, selectors
from truthing.api import TRUTHING_ERRORS
from truthing.services.adjudication import disagreement_decide
from vtt_site.api.pagination import page_response, paginated
from vtt_site.api.parsers import ANSWER_BODY_BYTES
from vtt_site.api.schema import ErrorSerializer


class DisagreementSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    test = serializers.CharField(source="step.stream.test_image.test.name")
    image = serializers.CharField(source="step.stream.test_image.image.original_name")
    step = serializers.IntegerField(source="step.index")
    text = serializers.CharField(source="step.text")
    question = serializers.JSONField(source="step.question")
    stored_answer = serializers.CharField(source="step.answer")
    checker_answer = serializers.CharField(source="check_answer.answer")


class DisagreementListApi(APIView):
    operation = "truthing.disagreement.list"
    error_codes = TRUTHING_ERRORS

    @extend_schema(
        responses=paginated(DisagreementSerializer), summary="Disagreements waiting for a decision"
    )
    def get(self, request):
        return page_response(request, self, selectors.disagreement_list(), DisagreementSerializer)


class DisagreementDecideApi(APIView):
    operation = "truthing.disagreement.decide"
    error_codes = TRUTHING_ERRORS
    json_body_max_bytes = ANSWER_BODY_BYTES

    class InputSerializer(serializers.Serializer):
        answer = serializers.ChoiceField(choices=["yes", "no", "ambiguous"])

    @extend_schema(
        request=InputSerializer,
        responses={204: None, 409: ErrorSerializer},
        summary="Decide a disagreement",
        description="An answer other than the stored one cuts the stream after that step; the stream is "
        "proposed again from there and goes back to the operator queue.",
    )
    def post(self, request, disagreement_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        disagreement_decide(
            disagreement_id=disagreement_id, user=request.user, answer=data.validated_data["answer"]
        )
        return Response(status=status.HTTP_204_NO_CONTENT)


class OperatorStatisticsSerializer(serializers.Serializer):
    operator = serializers.CharField()
    answers = serializers.IntegerField()
    median_seconds = serializers.FloatField(allow_null=True)
    agreement_with_checkers = serializers.JSONField()
    gold_accuracy = serializers.JSONField()


class OperatorStatisticsApi(APIView):
    operation = "truthing.operators.statistics"
    error_codes = TRUTHING_ERRORS

    @extend_schema(
        responses=OperatorStatisticsSerializer(many=True),
        summary="Per operator: answers, speed, agreement, gold accuracy",
    )
    def get(self, request):
        return Response(OperatorStatisticsSerializer(reports.operator_statistics(), many=True).data)
