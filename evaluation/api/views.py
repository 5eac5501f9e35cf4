"""Thin views, one per operation: parse, call a service or selector, serialize."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.api import TokenOutputSerializer
from accounts.errors import AccountErrorCode
from evaluation.api import serializers as s
from evaluation.api.questions import question_shown, stream_history
from evaluation.errors import EvaluationErrorCode
from evaluation.models import SessionState, SystemShown, TestSchedule
from evaluation.scopes import scoped_system_id
from evaluation.selectors import access as selectors
from evaluation.selectors import leaderboard as boards
from evaluation.selectors.plans import plan_of
from evaluation.selectors.scores import session_score
from evaluation.selectors.streams import chosen_step, steps_to_ask, streams_reached
from evaluation.services import sessions, systems
from truthing.published import image_file_of_test, published_tests
from vtt_site.api.files import FileApiView
from vtt_site.api.pagination import page_response, paginated
from vtt_site.api.parsers import ANSWER_BODY_BYTES
from vtt_site.api.schema import ErrorSerializer, error_codes
from vtt_site.errors import ApplicationError, CommonErrorCode, ConflictError, NotFoundError
from vtt_site.storage import CACHED, PRESIGNED_REDIRECT, file_response

# The app's codes, and a system token's limits (accounts.services.token_create).
EVALUATION_ERRORS = error_codes(
    "Evaluation",
    EvaluationErrorCode,
    AccountErrorCode.TOKEN_LIMIT_REACHED,
    AccountErrorCode.TOKEN_NAME_TAKEN,
)

# --- Vision systems -----------------------------------------------------------------------------------


class SystemListCreateApi(APIView):
    operations = {"GET": "evaluation.system.list", "POST": "evaluation.system.create"}
    error_codes = EVALUATION_ERRORS

    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=100)
        description = serializers.CharField(required=False, allow_blank=True, max_length=5000)
        url = serializers.URLField(required=False, allow_blank=True, help_text="Code or paper.")
        public = serializers.BooleanField(required=False, default=True)
        shown = serializers.ChoiceField(
            choices=SystemShown.choices,
            required=False,
            default=SystemShown.IMAGE,
            help_text="What the system is shown: the image and the text, or the text only (a language "
            "model run blind, the test's language prior).",
        )

    @extend_schema(responses=paginated(s.SystemSerializer), summary="Vision systems: yours (an admin: all)")
    def get(self, request):
        systems_ = selectors.systems_visible(user=request.user, auth=request.auth)
        return page_response(request, self, systems_, s.SystemSerializer)

    @extend_schema(
        request=InputSerializer,
        responses={201: s.SystemSerializer, 409: ErrorSerializer},
        summary="Register a vision system",
    )
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        system = systems.system_create(owner=request.user, **data.validated_data)
        return Response(s.SystemSerializer(system).data, status=status.HTTP_201_CREATED)


class SystemApi(APIView):
    operation = "evaluation.system.read"
    error_codes = EVALUATION_ERRORS

    @extend_schema(responses=s.SystemSerializer, summary="A vision system")
    def get(self, request, system_id: int):
        system = selectors.access_system(user=request.user, auth=request.auth, system_id=system_id)
        return Response(s.SystemSerializer(system).data)


class SystemScoresApi(APIView):
    operation = "evaluation.system.scores"
    error_codes = EVALUATION_ERRORS

    @extend_schema(
        responses=s.SystemScoresSerializer,
        summary="A system's scores: its finished sessions, stream by stream where that tells nothing",
        description="A public system or a built-in baseline, for everyone who may read leaderboards; a "
        "private one for its owner only (404 for others). Each finished or expired session on a published "
        "or archived test: accuracy with its 95% interval, by kind, the mean position of the first mistake, "
        "and the scores of each stream. Another system's streams on a test that can still be taken are "
        "withheld from whoever could enrol a system in it (`streams` null, `streams_withheld` says why) "
        "until the test is archived. A caller taking a test sees no other system's session on it "
        "(`left_out`).",
    )
    def get(self, request, system_id: int):
        system = selectors.access_listed_system(user=request.user, auth=request.auth, system_id=system_id)
        body = boards.system_scores(system=system, user=request.user, auth=request.auth)
        return Response(s.SystemScoresSerializer(body).data)


class SystemTokenCreateApi(APIView):
    operation = "evaluation.system.token.create"
    error_codes = EVALUATION_ERRORS

    class InputSerializer(serializers.Serializer):
        name = serializers.CharField(max_length=100)
        expires_in_days = serializers.IntegerField(
            min_value=1, max_value=3650, required=False, allow_null=True
        )

    class CreatedSerializer(TokenOutputSerializer):
        token = serializers.CharField(help_text="The secret. It is shown only in this response.")
        system = serializers.IntegerField()

    @extend_schema(
        request=InputSerializer,
        responses={201: CreatedSerializer, 409: ErrorSerializer},
        summary="Create an API token that acts only as this system",
    )
    def post(self, request, system_id: int):
        system = selectors.access_system(user=request.user, auth=request.auth, system_id=system_id, act=True)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        token, secret = systems.system_token_create(system=system, **data.validated_data)
        body = TokenOutputSerializer(token).data | {"token": secret, "system": system.pk}
        return Response(body, status=status.HTTP_201_CREATED)


# --- Tests and sessions -------------------------------------------------------------------------------


class TestListApi(APIView):
    operation = "evaluation.test.list"
    error_codes = EVALUATION_ERRORS

    @extend_schema(responses=paginated(s.TestSerializer), summary="Published tests a system may take")
    def get(self, request):
        deadlines = dict(TestSchedule.objects.values_list("test_id", "deadline"))
        rows = [
            {
                "id": t.pk,
                "name": t.name,
                "practice": t.practice,
                "description": t.description,
                "published_at": t.published_at,
                "deadline": deadlines.get(t.pk),
                "open_streams": t.open_streams,
            }
            for t in published_tests()
        ]
        return page_response(request, self, rows, s.TestSerializer)


class SessionListApi(APIView):
    operation = "evaluation.session.list"
    error_codes = EVALUATION_ERRORS

    @extend_schema(responses=paginated(s.SessionSerializer), summary="Sessions of your systems")
    def get(self, request):
        rows = selectors.sessions_visible(user=request.user, auth=request.auth)
        test = request.query_params.get("test")
        if test is not None and test.isdigit():
            rows = rows.filter(test_id=int(test))
        return page_response(request, self, rows.order_by("-started_at", "-id"), s.SessionSerializer)


class EnrolApi(APIView):
    operation = "evaluation.session.create"
    error_codes = EVALUATION_ERRORS

    class InputSerializer(serializers.Serializer):
        system = serializers.IntegerField(
            required=False, min_value=1, help_text="Your system; implied by a token scoped to one system."
        )

    @extend_schema(
        request=InputSerializer,
        responses={201: s.SessionSerializer, 409: ErrorSerializer},
        summary="Enrol a system in a published test: its one session (on a practice test, a new one "
        "each time the last is over)",
    )
    def post(self, request, test_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        system_id = scoped_system_id(request.auth) or data.validated_data.get("system")
        if system_id is None:
            raise ApplicationError(
                CommonErrorCode.INVALID, "Say which system enrols.", fields={"system": ["Required."]}
            )
        system = selectors.access_system(user=request.user, auth=request.auth, system_id=system_id, act=True)
        session = sessions.session_enrol(system=system, test_id=test_id)
        return Response(s.SessionSerializer(session).data, status=status.HTTP_201_CREATED)


class SessionApi(APIView):
    operation = "evaluation.session.read"
    error_codes = EVALUATION_ERRORS

    @extend_schema(responses=s.SessionSerializer, summary="A session: its state and progress")
    def get(self, request, session_id: int):
        session = selectors.access_session(user=request.user, auth=request.auth, session_id=session_id)
        session = sessions.session_refresh(session=session)
        return Response(s.SessionSerializer(session).data)


class QuestionApi(APIView):
    operation = "evaluation.question.read"
    error_codes = EVALUATION_ERRORS

    @extend_schema(
        parameters=[s.STREAM_PARAMETER],
        responses={200: s.SessionQuestionSerializer, 409: ErrorSerializer},
        summary="The session's open streams: the current question of each, and one stream's history",
    )
    def get(self, request, session_id: int):
        session = selectors.access_session(
            user=request.user, auth=request.auth, session_id=session_id, act=True
        )
        session = sessions.session_refresh(session=session)
        plan = plan_of(session)
        steps = steps_to_ask(session, plan)
        step = chosen_step(steps, request.query_params.get("stream"))
        # SessionQuestionSerializer's shape, the question serialized once per step (api/questions.py).
        body = {
            "session": session.pk,
            "state": str(session.state),
            "answered": session.answered,
            "open_streams": session.open_streams,
            "current": question_shown(session_id=session.pk, plan=plan, step=step),
            "history": stream_history(session=session, plan=plan, step=step),
            "open": [question_shown(session_id=session.pk, plan=plan, step=each) for each in steps],
        }
        return Response(body)


class AnswerApi(APIView):
    operation = "evaluation.answer.create"
    error_codes = EVALUATION_ERRORS
    json_body_max_bytes = ANSWER_BODY_BYTES

    @extend_schema(
        request=s.SessionAnswerInputSerializer,
        responses={200: s.SessionAnswerSerializer, 409: ErrorSerializer},
        summary="Answer the current question of an open stream: get the correct answer and the next question",
        description="Posting the same answer to the same step again returns the same response. A "
        "different answer to an answered step (`answer_conflict`) or an answer to any step but the current "
        "step of an open stream (`step_not_current`) is a 409 and changes nothing. `next` is the stream's "
        "next question, or once the stream is finished, the first question of the stream opened in its "
        "place.",
    )
    def post(self, request, session_id: int):
        given = s.answer_input_clean(request.data)
        if given is None:  # the serializer refuses it, with its messages (or accepts what it converts)
            data = s.SessionAnswerInputSerializer(data=request.data)
            data.is_valid(raise_exception=True)
            given = data.validated_data
        result = sessions.answer_submit(
            session_id=session_id,
            caller=selectors.answerable(user=request.user, auth=request.auth),
            stream=given["stream"],
            step=given["step"],
            answer=given["answer"] == "yes",
            p_yes=given.get("p_yes"),
        )
        step = result.step
        # SessionAnswerSerializer's shape, built without it: the next question is serialized once per
        # step (api/questions.py) and the rest are plain values (tests/evaluation/test_shown.py).
        body = {
            "stream": step.stream_pos,
            "step": step.step_pos,
            "answer": "yes" if result.answer else "no",
            "p_yes": result.p_yes,
            "correct_answer": step.answer,
            "correct": result.answer == (step.answer == "yes"),
            "label": step.label or None,
            "stream_ended": step.last_in_stream,
            "session_finished": result.finished,
            "next": question_shown(session_id=session_id, plan=result.plan, step=result.next),
        }
        return Response(body)


class SessionImageApi(FileApiView):
    operation = "evaluation.image.file"
    error_codes = EVALUATION_ERRORS

    @extend_schema(
        responses={
            (200, "image/png"): OpenApiTypes.BINARY,
            (200, "image/jpeg"): OpenApiTypes.BINARY,
            302: OpenApiResponse(description=PRESIGNED_REDIRECT),
        },
        summary="The pixels of an image of the session's test, once the session has reached it",
    )
    def get(self, request, session_id: int, image_id: int):
        session = selectors.access_session(
            user=request.user, auth=request.auth, session_id=session_id, act=True
        )
        plan = plan_of(session)
        reached = {st.test_image_id for st in plan.streams[: streams_reached(session, plan)]}
        file = (
            image_file_of_test(test_id=session.test_id, test_image_id=image_id)
            if image_id in reached
            else None
        )
        if file is None:
            raise NotFoundError(
                EvaluationErrorCode.IMAGE_NOT_AVAILABLE,
                f"Image {image_id} is not an image this session has reached.",
            )
        return file_response(file, cache=CACHED, random_keys_only=True)


class ScoreApi(APIView):
    operation = "evaluation.score.read"
    error_codes = EVALUATION_ERRORS

    @extend_schema(responses=s.ScoreSerializer, summary="The session's score (partial while it runs)")
    def get(self, request, session_id: int):
        session = selectors.access_session(user=request.user, auth=request.auth, session_id=session_id)
        session = sessions.session_refresh(session=session)
        stored = getattr(session, "score", None) if session.state != SessionState.ACTIVE else None
        data = stored.data if stored is not None else session_score(session=session)
        return Response(s.ScoreSerializer(data).data)


class ResultsApi(APIView):
    operation = "evaluation.session.results"
    error_codes = EVALUATION_ERRORS

    @extend_schema(
        responses={200: s.ResultStreamSerializer(many=True), 409: ErrorSerializer},
        summary="Once the session is over: each question, your answer and the truth",
    )
    def get(self, request, session_id: int):
        session = selectors.access_session(user=request.user, auth=request.auth, session_id=session_id)
        session = sessions.session_refresh(session=session)
        if not session.over:
            raise ConflictError(
                EvaluationErrorCode.SESSION_NOT_OVER, "The answers are shown once the session is over."
            )
        return Response(s.ResultStreamSerializer(boards.session_results(session=session), many=True).data)


class VoidApi(APIView):
    operation = "evaluation.session.void"
    error_codes = EVALUATION_ERRORS

    class InputSerializer(serializers.Serializer):
        reason = serializers.CharField(max_length=2000)

    @extend_schema(
        request=InputSerializer,
        responses={200: s.SessionSerializer, 409: ErrorSerializer},
        summary="Void a session (admins): it stays on record, off the leaderboard",
    )
    def post(self, request, session_id: int):
        session = selectors.access_session(user=request.user, auth=request.auth, session_id=session_id)
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        session = sessions.session_void(
            session_id=session.pk, by=request.user, reason=data.validated_data["reason"]
        )
        return Response(s.SessionSerializer(session).data)


class LeaderboardApi(APIView):
    operation = "evaluation.leaderboard.read"
    error_codes = EVALUATION_ERRORS

    @extend_schema(
        responses={200: s.LeaderboardSerializer, 409: ErrorSerializer},
        summary="A test's leaderboard: systems ranked by accuracy, baselines included",
        description="Refused (409 `session_not_over`) to a system that is taking the test: other sessions' "
        "results are shown to it once its own session is over.",
    )
    def get(self, request, test_id: int):
        if selectors.taking(user=request.user, auth=request.auth, test_id=test_id):
            raise ConflictError(
                EvaluationErrorCode.SESSION_NOT_OVER,
                "Your system is taking this test: its leaderboard is shown once your session is over.",
            )
        board = boards.leaderboard(test_id=test_id, user=request.user, auth=request.auth)
        if board is None:
            raise NotFoundError(
                EvaluationErrorCode.TEST_NOT_PUBLISHED, f"There is no published test {test_id}."
            )
        return Response(s.LeaderboardSerializer(board).data)
