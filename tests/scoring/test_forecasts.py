"""The scores of the probabilities a system gives (scoring.forecasts), against figures worked by hand."""

from __future__ import annotations

import math

import pytest

from scoring.forecasts import (
    LOG_LOSS_CLIP,
    clustered_mean,
    forecast_scores,
    log_loss,
    paired_brier,
    reliability_bins,
)
from scoring.stats import Z95


def test_the_brier_score_and_the_log_loss_of_a_small_session():
    # Stream 0: p 0.9 (yes), 0.2 (no); stream 1: p 0.6 (no), 0.5 (yes).
    forecasts = [(0, 0.9, True), (0, 0.2, False), (1, 0.6, False), (1, 0.5, True)]
    scores = forecast_scores(forecasts, questions=4)
    assert scores["brier"]["value"] == pytest.approx((0.01 + 0.04 + 0.36 + 0.25) / 4)
    expected = -(math.log(0.9) + math.log(0.8) + math.log(0.4) + math.log(0.5)) / 4
    assert scores["log_loss"]["value"] == pytest.approx(expected)
    assert (scores["given"], scores["questions"], scores["complete"]) == (4, 4, True)
    assert forecast_scores(forecasts[:3], questions=4)["complete"] is False
    assert forecast_scores([], questions=4) is None


def test_a_confident_mistake_costs_the_clipped_log_loss_not_infinity():
    assert log_loss(1.0, False) == pytest.approx(-math.log(LOG_LOSS_CLIP))
    assert log_loss(0.0, False) == pytest.approx(-math.log(1 - LOG_LOSS_CLIP))


def test_the_interval_takes_each_stream_as_one_unit():
    groups = [[0.1, 0.3], [0.5], [0.0, 0.2, 0.4]]
    result = clustered_mean(groups)
    n, mean = 6, 1.5 / 6
    totals = [(0.4, 2), (0.5, 1), (0.6, 3)]
    variance = 3 / 2 * sum((s - mean * k) ** 2 for s, k in totals) / n**2
    assert result["value"] == pytest.approx(mean)
    assert result["high"] - mean == pytest.approx(Z95 * math.sqrt(variance))
    assert clustered_mean([[0.1, 0.2]])["low"] is None  # one stream: no interval


def test_the_calibration_error_weighs_each_bin_by_its_share():
    # Bin 0.9: 3 answers at p 0.95, two yes (observed 2/3); bin 0.1: one at p 0.1, no (observed 0).
    forecasts = [(0, 0.95, True), (0, 0.95, True), (1, 0.95, False), (1, 0.1, False)]
    scores = forecast_scores(forecasts, questions=4)
    assert scores["calibration_error"]["value"] == pytest.approx((3 * abs(0.95 - 2 / 3) + 1 * 0.1) / 4)
    low, high = scores["calibration_error"]["low"], scores["calibration_error"]["high"]
    assert low <= scores["calibration_error"]["value"] <= high
    assert forecast_scores(forecasts, questions=4) == scores  # the bootstrap is seeded
    rows = reliability_bins([(p, y) for _, p, y in forecasts])
    assert [(r["bin"], r["n"]) for r in rows] == [([0.1, 0.2], 1), ([0.9, 1.0], 3)]
    assert rows[1]["observed"] == pytest.approx(2 / 3) and rows[1]["low"] < 2 / 3 < rows[1]["high"]


def test_two_sessions_brier_scores_are_compared_by_image():
    a = {1: (0.2, 4), 2: (0.3, 3), 3: (0.0, 2)}  # per image: sum of Brier scores, answers
    b = {1: (0.8, 4), 2: (0.6, 3), 4: (1.0, 1)}
    result = paired_brier(a, b)
    differences = [0.05 - 0.2, 0.1 - 0.2]
    assert result["images"] == 2
    assert result["difference"] == pytest.approx(sum(differences) / 2)
    assert result["low"] < result["difference"] < result["high"]
