"""Shapes of the evaluation API. The question is structured (docs/method.md section 9): a system never
needs to parse the English `text`."""

from __future__ import annotations

import math

from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers

from evaluation import leaderboard_row
from evaluation.models import SystemShown
from evaluation.selectors.plans import session_ready
from evaluation.shapes import (
    ForecastScoresSerializer,
    MeanSerializer,
    ProportionSerializer,
    ReferenceSerializer,
    RowSystemSerializer,
)
from kernel.kinds import KINDS

# A field named `label` is what the API calls it; the stubs take it for Field.label, which it is not at run
# time (DRF's metaclass takes declared fields out of the class): hence the ignores on those lines.


class RegionSerializer(serializers.Serializer):
    id = serializers.CharField()
    box = serializers.ListField(
        child=serializers.FloatField(),
        min_length=4,
        max_length=4,
        help_text="[x, y, width, height] in pixels.",
    )


class QuestionSerializer(serializers.Serializer):
    """An instantiation question (type, attributes, region), an attribute question (label, attributes) or a
    relationship question (subject, relationship, object); `kind` names which (docs/method.md section 4)."""

    kind = serializers.ChoiceField(choices=KINDS)
    type = serializers.CharField(required=False)
    attributes = serializers.ListField(child=serializers.CharField(), required=False)
    region = RegionSerializer(required=False)
    label = serializers.CharField(required=False)  # type: ignore[assignment]
    subject = serializers.CharField(required=False)
    relationship = serializers.CharField(required=False)
    object = serializers.CharField(required=False)
    excluding = serializers.ListField(
        child=serializers.CharField(),
        required=False,
        help_text="An instantiation question (exist, unique) is about the objects of its type not "
        'labelled yet: the labels of its type made so far in the stream, which it leaves out ("vehicle 1").',
    )


class LabelSerializer(serializers.Serializer):
    label = serializers.CharField(  # type: ignore[assignment]
        help_text='"person 1": the type and its counter.'
    )
    step = serializers.IntegerField(help_text="The step of the stream whose question defined the label.")
    question = QuestionSerializer(help_text="The uniqueness question (region, attributes) that defined it.")
    text = serializers.CharField()


class SessionImageSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    width = serializers.IntegerField()
    height = serializers.IntegerField()
    url = serializers.CharField(help_text="The pixels; served only to this session's system.")


class CurrentQuestionSerializer(serializers.Serializer):
    stream = serializers.IntegerField(help_text="Position of the stream in the test (0-based).")
    streams = serializers.IntegerField(help_text="Streams in the test.")
    step = serializers.IntegerField(help_text="Position of the question in its stream (0-based).")
    image = SessionImageSerializer()
    question = QuestionSerializer()
    text = serializers.CharField(help_text="The question in English, for people.")
    labels = LabelSerializer(many=True, help_text="Labels instantiated so far in this stream.")


class SessionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    system = serializers.IntegerField(source="system_id")
    system_name = serializers.CharField(source="system.name")
    test = serializers.IntegerField(source="test_id")
    practice = serializers.BooleanField(
        help_text="A session of a practice test: its results are yours alone, never ranked."
    )
    state = serializers.ChoiceField(choices=["active", "finished", "expired", "voided"])
    ready = serializers.SerializerMethodField(
        help_text="false while the session's own streams are being prepared: its questions cannot be "
        "read yet (409 session_dealing, with Retry-After)."
    )
    answered = serializers.IntegerField(help_text="Questions answered so far.")
    open_streams = serializers.IntegerField(
        help_text="How many streams of the session may be open at once: worked on side by side, each "
        "in its order."
    )
    started_at = serializers.DateTimeField()
    ended_at = serializers.DateTimeField(allow_null=True)
    void_reason = serializers.CharField(allow_blank=True)

    def get_ready(self, session) -> bool:
        return session_ready(session)


class StreamHistoryEntrySerializer(serializers.Serializer):
    stream = serializers.IntegerField(help_text="The current stream's position: the same on every entry.")
    step = serializers.IntegerField(help_text="Position of the question in its stream (0-based).")
    question = QuestionSerializer()
    text = serializers.CharField()
    answer = serializers.ChoiceField(choices=["yes", "no"], help_text="Your answer, as stored.")
    p_yes = serializers.FloatField(allow_null=True, help_text="Your probability of yes, if you gave one.")
    truth = serializers.ChoiceField(choices=["yes", "no"], help_text="The correct answer, as you were told.")
    label = serializers.CharField(  # type: ignore[assignment]
        allow_null=True, help_text="The label a yes to this uniqueness question made."
    )


# The question read's `?stream=`: which open stream's question and history come back.
STREAM_PARAMETER = OpenApiParameter(
    "stream",
    int,
    required=False,
    description="An open stream: its current question and history in `current` and `history` "
    "(default: the first open stream). A stream that is not open is a 409 `stream_not_open`.",
)


class SessionQuestionSerializer(serializers.Serializer):
    session = serializers.IntegerField()
    state = serializers.ChoiceField(choices=["active", "finished", "expired", "voided"])
    answered = serializers.IntegerField()
    open_streams = serializers.IntegerField(help_text="How many streams of the session may be open at once.")
    current = CurrentQuestionSerializer(
        allow_null=True,
        help_text="The current question of the stream asked for (`?stream=`), else of the first open "
        "stream; null once the session is over.",
    )
    open = CurrentQuestionSerializer(
        many=True,
        help_text="The current question of every open stream, in the order of the streams: at most "
        "`open_streams` of them. Each is answered in its turn; a stream's next question comes with the "
        "answer, and a finished stream's place is taken by the next stream.",
    )
    history = StreamHistoryEntrySerializer(
        many=True,
        help_text="The earlier questions of `current`'s stream, in order, with your answers and the "
        "truths: exactly what you have been told in this stream, so that a client can rebuild its "
        "conversation after a crash. Empty at a stream's first question and once the session is over.",
    )


ANSWERS = ("yes", "no")
STEP_MAX = 10**6


class ProbabilityField(serializers.FloatField):
    """A probability given as a JSON number: a string or a boolean is refused, not converted."""

    def to_internal_value(self, data):
        if isinstance(data, bool) or not isinstance(data, int | float):
            self.fail("invalid")
        return super().to_internal_value(data)


class SessionAnswerInputSerializer(serializers.Serializer):
    stream = serializers.IntegerField(min_value=0, max_value=STEP_MAX)
    step = serializers.IntegerField(min_value=0, max_value=STEP_MAX)
    answer = serializers.ChoiceField(choices=list(ANSWERS))
    p_yes = ProbabilityField(
        required=False,
        allow_null=True,
        min_value=0.0,
        max_value=1.0,
        help_text="Optional: your probability that the truth is yes, in [0, 1]. It must agree with "
        "`answer`: yes above 0.5, no below, either at 0.5. Scored by the Brier score, the log loss and the "
        "calibration error (docs/evaluation.md).",
    )

    def validate(self, attrs):
        p, answer = attrs.get("p_yes"), attrs["answer"]
        if p is not None and ((p > 0.5 and answer == "no") or (p < 0.5 and answer == "yes")):
            raise serializers.ValidationError(
                {"p_yes": [f"{p:g} says {'yes' if p > 0.5 else 'no'}, but the answer is {answer}."]}
            )
        return attrs


def answer_input_clean(data: object) -> dict | None:
    """SessionAnswerInputSerializer's validated data for an answer given plainly (JSON numbers and
    strings, a p_yes that agrees), without building the serializer; None for anything else, which the
    serializer then validates and refuses with its usual messages (decision 0087: building it, its
    fields deep-copied, was a tenth of the answer's CPU). A test holds the two equal."""
    if type(data) is not dict:
        return None
    stream, step, answer, p = data.get("stream"), data.get("step"), data.get("answer"), data.get("p_yes")
    if not (type(stream) is int and type(step) is int and 0 <= stream <= STEP_MAX and 0 <= step <= STEP_MAX):
        return None
    if type(answer) is not str or answer not in ANSWERS:
        return None
    clean = {"stream": stream, "step": step, "answer": answer}
    if "p_yes" not in data:
        return clean
    if p is not None:
        if type(p) not in (int, float) or not math.isfinite(p) or not 0.0 <= p <= 1.0:
            return None
        p = float(p)
        if (p > 0.5 and answer == "no") or (p < 0.5 and answer == "yes"):
            return None
    return {**clean, "p_yes": p}


class SessionAnswerSerializer(serializers.Serializer):
    stream = serializers.IntegerField()
    step = serializers.IntegerField()
    answer = serializers.ChoiceField(choices=["yes", "no"], help_text="Your answer, as stored.")
    p_yes = serializers.FloatField(allow_null=True, help_text="Your probability of yes, as stored.")
    correct_answer = serializers.ChoiceField(choices=["yes", "no"])
    correct = serializers.BooleanField()
    label = serializers.CharField(  # type: ignore[assignment]
        allow_null=True, help_text="The label a yes to this uniqueness question made."
    )
    stream_ended = serializers.BooleanField()
    session_finished = serializers.BooleanField()
    next = CurrentQuestionSerializer(
        allow_null=True,
        help_text="The next question in the place of the one answered: the stream's next question, or once "
        "the stream is finished, the first question of the stream opened in its place. null at the end of "
        "the test (`session_finished`), when no stream is left to open (the other open streams are read "
        "with the question), or while the next stream is still being dealt: then reading the question "
        "answers 409 `session_dealing` with Retry-After until it is.",
    )


class ScoreSerializer(serializers.Serializer):
    accuracy = ProportionSerializer()
    by_kind = serializers.DictField(child=ProportionSerializer())
    by_position = ProportionSerializer(
        many=True, help_text="Accuracy at each position in a stream (0-based)."
    )
    first_mistake = MeanSerializer(
        help_text="1-based position of the first mistake per stream (length + 1 without a mistake)."
    )
    by_reference = ReferenceSerializer(
        many=True, required=False, help_text="Accuracy by reference distance, on questions about a label."
    )
    forecasts = ForecastScoresSerializer(
        allow_null=True,
        required=False,
        help_text="The scores of the probabilities given (p_yes): the Brier score, the log loss and the "
        "calibration error, with 95% intervals; null: none given.",
    )
    answered = serializers.IntegerField()
    complete = serializers.BooleanField(help_text="false while the session runs: a partial score.")


class SystemSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    url = serializers.CharField(allow_blank=True)
    public = serializers.BooleanField()
    baseline = serializers.CharField(allow_blank=True)
    shown = serializers.ChoiceField(
        choices=SystemShown.choices,
        help_text="What the system is shown: the image and the text, or the text only (a language prior).",
    )
    owner = serializers.CharField(source="owner.username")
    created_at = serializers.DateTimeField()


# The row's fields are the leaderboard's columns, written once in evaluation.leaderboard_row (a comment,
# not a docstring, which the schema would publish).
class LeaderboardRowSerializer(serializers.Serializer):
    def get_fields(self) -> dict[str, serializers.Field]:
        return {column.key: column.shape() for column in leaderboard_row.COLUMNS}


class LeaderboardTestSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    description = serializers.CharField(allow_blank=True)
    state = serializers.CharField()
    streams = serializers.IntegerField()
    blind_prior = ProportionSerializer(
        allow_null=True,
        help_text="The blind prior (yes when the engine's p > 0.5) on the test's own streams (every "
        "stream of every pool, as its card describes them). Each session is dealt streams of its own: "
        "a row's blind_prior is on that session's questions.",
    )


class LeaderboardSerializer(serializers.Serializer):
    test = LeaderboardTestSerializer()
    rows = LeaderboardRowSerializer(many=True)


class TestSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    practice = serializers.BooleanField(
        help_text="A practice test: take it as often as you like, each time with fresh questions; it is "
        "never on a leaderboard. Start here."
    )
    description = serializers.CharField(allow_blank=True)
    published_at = serializers.DateTimeField(allow_null=True)
    deadline = serializers.DateTimeField(allow_null=True)
    open_streams = serializers.IntegerField(
        help_text="How many streams of a session a system may work on at once (1: one question at a time)."
    )


class ResultQuestionSerializer(serializers.Serializer):
    step = serializers.IntegerField()
    kind = serializers.CharField()
    question = QuestionSerializer()
    text = serializers.CharField()
    answer = serializers.ChoiceField(choices=["yes", "no"], allow_null=True)
    p_yes = serializers.FloatField(allow_null=True, help_text="The probability of yes given, if any.")
    truth = serializers.ChoiceField(choices=["yes", "no"])
    correct = serializers.BooleanField()


class ResultStreamSerializer(serializers.Serializer):
    stream = serializers.IntegerField()
    image = serializers.IntegerField()
    questions = ResultQuestionSerializer(many=True)


class StreamScoreSerializer(serializers.Serializer):
    stream = serializers.IntegerField(help_text="Position of the stream in the test (0-based).")
    questions = serializers.IntegerField()
    answered = serializers.IntegerField()
    correct = serializers.IntegerField()
    accuracy = ProportionSerializer(help_text="An unanswered question (the deadline passed) counts as wrong.")
    first_mistake = serializers.IntegerField(
        allow_null=True, help_text="1-based position of the first mistake in the stream; null: none."
    )


class ScoreTestSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    state = serializers.ChoiceField(
        choices=["published", "archived"], help_text="A published test can still be taken."
    )


class SystemSessionScoreSerializer(serializers.Serializer):
    session = serializers.IntegerField()
    test = ScoreTestSerializer()
    state = serializers.ChoiceField(choices=["finished", "expired"])
    ended_at = serializers.DateTimeField(allow_null=True)
    accuracy = ProportionSerializer()
    by_kind = serializers.DictField(child=ProportionSerializer())
    first_mistake = MeanSerializer()
    by_reference = ReferenceSerializer(many=True)
    forecasts = ForecastScoresSerializer(
        allow_null=True, help_text="The scores of the probabilities given (p_yes); null: none given."
    )
    streams = StreamScoreSerializer(
        many=True,
        allow_null=True,
        help_text="Stream by stream; null when withheld (see `streams_withheld`).",
    )
    streams_withheld = serializers.CharField(
        allow_blank=True, help_text="Why the streams are withheld and when they are shown; empty when shown."
    )


class PublicSystemSerializer(RowSystemSerializer):
    description = serializers.CharField(allow_blank=True)


class LeftOutTestSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class SystemScoresSerializer(serializers.Serializer):
    system = PublicSystemSerializer()
    sessions = SystemSessionScoreSerializer(many=True)
    left_out = LeftOutTestSerializer(
        many=True,
        help_text="Tests your system is taking: this system's sessions on them are left out until your "
        "session is over.",
    )
