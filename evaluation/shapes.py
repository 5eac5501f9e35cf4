"""The API's shapes of the figures a score is made of (a proportion with its interval, a mean, a
comparison of two sessions, ...): shared by the serializers and the leaderboard's columns
(evaluation.leaderboard_row), which is why they live below both."""

from __future__ import annotations

from rest_framework import serializers


class ProportionSerializer(serializers.Serializer):
    value = serializers.FloatField(allow_null=True)
    successes = serializers.IntegerField()
    trials = serializers.IntegerField()
    low = serializers.FloatField(allow_null=True, help_text="95% Wilson interval.")
    high = serializers.FloatField(allow_null=True)


class PositionBinSerializer(ProportionSerializer):
    first = serializers.IntegerField(help_text="The first position of the bin.")
    last = serializers.IntegerField(help_text="The last position of the bin.")


class MeanSerializer(serializers.Serializer):
    mean = serializers.FloatField(allow_null=True)
    streams = serializers.IntegerField()
    low = serializers.FloatField(allow_null=True, help_text="95% normal interval of the mean.")
    high = serializers.FloatField(allow_null=True)


class ReferenceSerializer(ProportionSerializer):
    distance = serializers.CharField(
        help_text="How many steps back the label a question names was made (a bin: 1, 2, 3, 4-5, 6-9, "
        "10-19, 20+); for a relationship, the farther of its two labels."
    )


class SeeingSerializer(serializers.Serializer):
    value = serializers.FloatField(allow_null=True, help_text="Accuracy minus the blind prior's.")
    questions = serializers.IntegerField(help_text="Questions compared (the same questions for both).")
    low = serializers.FloatField(allow_null=True, help_text="95% normal interval of the paired difference.")
    high = serializers.FloatField(allow_null=True)


class ComparisonSerializer(serializers.Serializer):
    test = serializers.ChoiceField(
        choices=["mcnemar", "sign"],
        help_text="mcnemar: both were asked the same questions (exact McNemar test on them); sign: they "
        "were dealt different streams, paired by image (exact sign test on per-image accuracy).",
    )
    unit = serializers.ChoiceField(choices=["questions", "images"], help_text="What was paired.")
    paired = serializers.IntegerField(help_text="Questions both answered, or images both were asked about.")
    a_only_right = serializers.IntegerField(
        help_text="Questions only this row got right (mcnemar), or images where it did better (sign)."
    )
    b_only_right = serializers.IntegerField()
    p_value = serializers.FloatField(help_text="Exact two-sided test (McNemar's, or the sign test).")
    significant = serializers.BooleanField(help_text="p < 0.05")


class RowSystemSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    owner = serializers.CharField()
    url = serializers.CharField(allow_blank=True)
    public = serializers.BooleanField()
    baseline = serializers.CharField(allow_blank=True)
