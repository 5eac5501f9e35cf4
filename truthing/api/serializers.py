"""Output shapes shared by the truthing views."""

from __future__ import annotations

from rest_framework import serializers

# A field named `label` is what the API calls it; the stubs take it for Field.label, which it is not at run
# time (DRF's metaclass takes declared fields out of the class): hence the ignores on those lines.


class QuestionRefSerializer(serializers.Serializer):
    step = serializers.IntegerField(help_text="Position of the question in the stream, from 0.")
    question = serializers.JSONField(help_text="Structured form (docs/method.md section 9), pixel boxes.")
    text = serializers.CharField(help_text="The question in English.")


def point_field(**kwargs) -> serializers.ListField:
    return serializers.ListField(
        child=serializers.FloatField(), min_length=2, max_length=2, allow_null=True, **kwargs
    )


class WorkLabelSerializer(QuestionRefSerializer):
    label = serializers.CharField(  # type: ignore[assignment]
        help_text='"person 2": the object the question at `step` instantiated.'
    )
    point = point_field(
        help_text="[x, y] in image pixels: where the operator clicked the object, or null (not marked)."
    )


class HistoryEntrySerializer(serializers.Serializer):
    step = serializers.IntegerField(help_text="Position of the question in the stream, from 0.")
    question = serializers.DictField(
        help_text="The structured question (docs/method.md section 9): the region it was about, or the "
        "labels it names, which tell apart questions of the same English."
    )
    text = serializers.CharField(help_text="The question in English.")
    answer = serializers.CharField(help_text="yes, no or ambiguous (in a check: the checker's own answer).")
    label = serializers.CharField(  # type: ignore[assignment]
        allow_blank=True, help_text='The label the answer made ("person 2"), or "".'
    )


class WorkImageSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    width = serializers.IntegerField()
    height = serializers.IntegerField()
    file_url = serializers.CharField(allow_null=True, help_text="The pixels; null for an image without.")


class TestRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    state = serializers.CharField()


class WorkProgressSerializer(serializers.Serializer):
    answered = serializers.IntegerField(help_text="Questions answered in this stream (or check).")
    streams_left = serializers.IntegerField(help_text="Streams of the test that have not ended.")


class WorkSerializer(serializers.Serializer):
    """A stream to truth or a check to answer: the same shape, so the page is the same."""

    kind = serializers.ChoiceField(choices=["stream", "check"])
    id = serializers.IntegerField()
    test = TestRefSerializer()
    image = WorkImageSerializer()
    state = serializers.CharField(help_text="proposing (the engine is at work), pending or ended.")
    pending = QuestionRefSerializer(allow_null=True, help_text="The question waiting for your answer.")
    labels = WorkLabelSerializer(many=True)
    history = HistoryEntrySerializer(
        many=True, help_text="The questions answered so far, oldest first (a check: your own answers)."
    )
    progress = WorkProgressSerializer()
    lease_expires_at = serializers.DateTimeField(allow_null=True)


class CheckAnswerInputSerializer(serializers.Serializer):
    """A check's answer: no point (the object was marked when the stream was truthed)."""

    step = serializers.IntegerField(min_value=0, help_text="The pending question's `step`.")
    answer = serializers.ChoiceField(choices=["yes", "no", "ambiguous"], help_text="ambiguous rejects it.")
    seconds = serializers.FloatField(
        required=False, min_value=0, max_value=86400, help_text="How long you took to answer."
    )


class AnswerInputSerializer(CheckAnswerInputSerializer):
    """A stream's answer: a check's, and the point a unique "yes" may carry."""

    point = point_field(
        required=False,
        help_text="Optional, with a yes to a uniqueness question in a stream: [x, y] in image pixels, "
        "where you clicked the object it singled out (its label then means that object).",
    )
