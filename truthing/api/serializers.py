"""Output shapes shared by the truthing views."""

from __future__ import annotations

from rest_framework import serializers


class QuestionRefSerializer(serializers.Serializer):
    step = serializers.IntegerField(help_text="Position of the question in the stream, from 0.")
    question = serializers.JSONField(help_text="Structured form (docs/method.md section 9), pixel boxes.")
    text = serializers.CharField(help_text="The question in English.")


class WorkLabelSerializer(QuestionRefSerializer):
    label = serializers.CharField(help_text='"person 2": the object the question at `step` instantiated.')


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
    progress = WorkProgressSerializer()
    lease_expires_at = serializers.DateTimeField(allow_null=True)


class AnswerInputSerializer(serializers.Serializer):
    step = serializers.IntegerField(min_value=0, help_text="The pending question's `step`.")
    answer = serializers.ChoiceField(choices=["yes", "no", "ambiguous"], help_text="ambiguous rejects it.")
    seconds = serializers.FloatField(
        required=False, min_value=0, max_value=86400, help_text="How long you took to answer."
    )
