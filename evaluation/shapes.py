"""The API's shapes of the figures a score is made of (a proportion with its interval, a mean, a
comparison of two sessions, ...): shared by the serializers and the leaderboard's columns
(evaluation.leaderboard_row), which is why they live below both."""

from __future__ import annotations

from rest_framework import serializers

from evaluation.models import SystemShown


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


class ScoreIntervalSerializer(serializers.Serializer):
    value = serializers.FloatField(allow_null=True)
    low = serializers.FloatField(allow_null=True, help_text="95% interval, streams as the unit.")
    high = serializers.FloatField(allow_null=True)


class ReliabilityBinSerializer(serializers.Serializer):
    bin = serializers.ListField(child=serializers.FloatField(), help_text="[low, high) of p_yes.")
    n = serializers.IntegerField()
    mean_p = serializers.FloatField()
    observed = serializers.FloatField(help_text="The share of yes truths.")
    low = serializers.FloatField(help_text="95% Wilson interval of the share.")
    high = serializers.FloatField()


class ForecastScoresSerializer(serializers.Serializer):
    given = serializers.IntegerField(help_text="Answers that gave p_yes: the questions these figures are on.")
    questions = serializers.IntegerField(help_text="Questions counted in the score.")
    complete = serializers.BooleanField(help_text="false: p_yes was given on some answers only.")
    brier = ScoreIntervalSerializer(help_text="Mean (p_yes - truth)^2: 0 is perfect, 0.25 is p = 0.5.")
    log_loss = ScoreIntervalSerializer(
        help_text="Mean -ln(p given to the truth), p clipped to [0.001, 0.999]: ln 2 = 0.693 is p = 0.5."
    )
    calibration_error = ScoreIntervalSerializer(
        help_text="Expected calibration error over 10 bins of p_yes (interval: a bootstrap over streams)."
    )
    reliability = ReliabilityBinSerializer(many=True)


class BrierDifferenceSerializer(serializers.Serializer):
    difference = serializers.FloatField(
        allow_null=True, help_text="This row's Brier score minus the other's."
    )
    low = serializers.FloatField(allow_null=True, help_text="95% normal interval, paired by image.")
    high = serializers.FloatField(allow_null=True)
    images = serializers.IntegerField(help_text="Images both gave p_yes on.")


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
    brier = BrierDifferenceSerializer(
        allow_null=True, required=False, help_text="Where both gave p_yes: the Brier scores compared."
    )


class RowSystemSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    owner = serializers.CharField()
    url = serializers.CharField(allow_blank=True)
    public = serializers.BooleanField()
    baseline = serializers.CharField(allow_blank=True)
    shown = serializers.ChoiceField(
        choices=SystemShown.choices, help_text="What the system is shown: the image, or the text only."
    )
