"""The operator's side: take work, read it, answer, undo, leave."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.roles import is_admin
from truthing import selectors
from truthing.api import TRUTHING_ERRORS
from truthing.api.serializers import AnswerInputSerializer, CheckAnswerInputSerializer, WorkSerializer
from truthing.errors import TruthingErrorCode
from truthing.services import checks as check_services
from truthing.services import streams as stream_services
from truthing.services.queue import operator_next
from vtt_site.api.parsers import ANSWER_BODY_BYTES
from vtt_site.api.schema import ErrorSerializer
from vtt_site.errors import ApplicationError, CommonErrorCode, NotFoundError
from vtt_site.leases import holds_lease


def _work_response(work) -> Response:
    if work is None:
        return Response(status=status.HTTP_204_NO_CONTENT)
    return Response(WorkSerializer(selectors.work_view(work)).data)


def _visible(work, user, not_found: TruthingErrorCode, what: str):
    """Work is shown to whoever holds it (and to admins): the labels of a stream say how it was
    answered, which a checker of that stream must not learn."""
    if holds_lease(work, user) or is_admin(user):
        return work
    raise NotFoundError(not_found, f"There is no {what} {work.pk} of yours.")


def _answer_of(request, *, may_point: bool = False) -> dict:
    """The answer a request carries, as the answering services take it (400 when malformed). Only a
    stream's answer may carry a point (the object a unique "yes" singled out); a check's is refused."""
    data = AnswerInputSerializer(data=request.data)
    data.is_valid(raise_exception=True)
    values = data.validated_data
    answer = {"index": values["step"], "answer": values["answer"], "seconds": values.get("seconds")}
    if may_point:
        answer["point"] = values.get("point")
    elif values.get("point") is not None:
        raise ApplicationError(
            CommonErrorCode.INVALID,
            "A check's answers carry no point: the object was marked when the stream was truthed.",
            fields={"point": ["Not with a check's answer."]},
        )
    return answer


class QueueNextApi(APIView):
    operation = "truthing.queue.next"
    error_codes = TRUTHING_ERRORS

    @extend_schema(
        request=None,
        responses={200: WorkSerializer, 204: OpenApiResponse(description="Nothing is waiting.")},
        summary="Take the next stream to truth or check to answer (the one you hold, if any)",
    )
    def post(self, request):
        return _work_response(operator_next(user=request.user))


class StreamApi(APIView):
    operation = "truthing.stream.read"
    error_codes = TRUTHING_ERRORS

    @extend_schema(responses=WorkSerializer, summary="A stream you hold: its pending question and labels")
    def get(self, request, stream_id: int):
        stream = selectors.stream_get(stream_id=stream_id)
        return _work_response(_visible(stream, request.user, TruthingErrorCode.STREAM_NOT_FOUND, "stream"))


class StreamAnswerApi(APIView):
    operation = "truthing.step.answer"
    error_codes = TRUTHING_ERRORS
    json_body_max_bytes = ANSWER_BODY_BYTES

    @extend_schema(
        request=AnswerInputSerializer,
        responses={200: WorkSerializer, 409: ErrorSerializer},
        summary="Answer the pending question (yes, no, or ambiguous to reject it)",
        description="The next question is proposed in the background; the response waits for it a "
        "bounded time (TRUTHING_ANSWER_WAIT_SECONDS, 2 s by default) and carries it. Should the proposal "
        "take longer, the stream is `proposing`: read it again until it is `pending` or `ended`.",
    )
    def post(self, request, stream_id: int):
        stream_services.step_answer_and_wait(
            stream_id=stream_id, user=request.user, **_answer_of(request, may_point=True)
        )
        return _work_response(selectors.stream_get(stream_id=stream_id))


class StreamUndoApi(APIView):
    operation = "truthing.step.undo"
    error_codes = TRUTHING_ERRORS

    @extend_schema(
        request=None,
        responses={200: WorkSerializer, 409: ErrorSerializer},
        summary="Take back your last answer",
    )
    def post(self, request, stream_id: int):
        stream_services.step_undo(stream_id=stream_id, user=request.user)
        return _work_response(selectors.stream_get(stream_id=stream_id))


class StreamLeaveApi(APIView):
    operation = "truthing.stream.leave"
    error_codes = TRUTHING_ERRORS

    @extend_schema(
        request=None, responses={204: None, 409: ErrorSerializer}, summary="Give the stream back to the queue"
    )
    def post(self, request, stream_id: int):
        stream_services.stream_leave(stream_id=stream_id, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class CheckApi(APIView):
    operation = "truthing.check.read"
    error_codes = TRUTHING_ERRORS

    @extend_schema(responses=WorkSerializer, summary="A check you hold: the next question to answer")
    def get(self, request, check_id: int):
        check = selectors.check_get(check_id=check_id)
        return _work_response(_visible(check, request.user, TruthingErrorCode.CHECK_NOT_FOUND, "check"))


class CheckAnswerApi(APIView):
    operation = "truthing.check.answer"
    error_codes = TRUTHING_ERRORS
    json_body_max_bytes = ANSWER_BODY_BYTES

    @extend_schema(
        # The body is read as a stream's answer, so that a point is refused out loud (`_answer_of`).
        request=CheckAnswerInputSerializer,
        responses={200: WorkSerializer, 409: ErrorSerializer},
        summary="Answer the check's next question",
    )
    def post(self, request, check_id: int):
        check_services.check_answer(check_id=check_id, user=request.user, **_answer_of(request))
        return _work_response(selectors.check_get(check_id=check_id))


class CheckUndoApi(APIView):
    operation = "truthing.check.undo"
    error_codes = TRUTHING_ERRORS

    @extend_schema(
        request=None,
        responses={200: WorkSerializer, 409: ErrorSerializer},
        summary="Take back your last answer in a check",
    )
    def post(self, request, check_id: int):
        check_services.check_undo(check_id=check_id, user=request.user)
        return _work_response(selectors.check_get(check_id=check_id))


class CheckLeaveApi(APIView):
    operation = "truthing.check.leave"
    error_codes = TRUTHING_ERRORS

    @extend_schema(
        request=None, responses={204: None, 409: ErrorSerializer}, summary="Give the check back to the queue"
    )
    def post(self, request, check_id: int):
        check_services.check_leave(check_id=check_id, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)
