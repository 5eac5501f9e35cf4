import pytest

from scoring.stats import proportion, wilson_interval


def test_wilson_interval_matches_hand_computed_values():
    # 8 of 10: p = 0.8, z = 1.96: centre (0.8 + 0.19208) / 1.38416 = 0.71675,
    # half 1.96 * sqrt(0.016 + 0.009604) / 1.38416 = 0.22661 -> (0.4902, 0.9433)
    low, high = wilson_interval(8, 10)
    assert low == pytest.approx(0.4902, abs=1e-4) and high == pytest.approx(0.9433, abs=1e-4)
    assert wilson_interval(0, 10)[0] == 0.0 and wilson_interval(10, 10)[1] == 1.0
    assert wilson_interval(0, 0) is None


def test_a_proportion_carries_its_interval():
    assert proportion(0, 0) == {"value": None, "successes": 0, "trials": 0, "low": None, "high": None}
    assert proportion(1, 4)["value"] == 0.25
