"""Work scored against gold, and the rule that pauses an annotator."""

from __future__ import annotations

import pytest

from crowd.consensus import ConsensusError, gold_decisions, score_against_gold, should_pause
from tests.crowd.consensus.helpers import box, version


def test_a_version_scored_against_gold():
    gold = version("gold", box("g1", 0, 0, "red"), box("g2", 50, 0, "tall"), box("g3", 100))
    work = version(
        "gold", box("w1", 1, 0, "red", "tall"), box("w2", 51), box("w9", 300)
    )  # same name: no clash
    score = score_against_gold(work, gold)
    assert (score.true_positives, score.false_positives, score.misses) == (2, 1, 1)
    assert (score.precision, score.recall, score.f1) == (2 / 3, 2 / 3, 2 / 3)
    # universe {red, tall}: w1 red right, tall wrong; w2 red right, tall wrong
    assert (score.attributes_correct, score.attributes_total) == (2, 4)
    assert gold_decisions(score) == (2 + 2, 4 + 4)
    universe = {"person": frozenset({"red", "tall", "hat", "bag"})}
    assert score_against_gold(work, gold, attribute_universe=universe).attribute_accuracy == 6 / 8


def test_an_empty_version_against_empty_gold_has_no_figures():
    score = score_against_gold(version("a"), version("g"))
    assert (score.precision, score.recall, score.f1, score.attribute_accuracy) == (None,) * 4


def test_the_pause_waits_for_the_minimum_and_for_the_evidence():
    # 30 of 100 decisions right: the interval's top (about 0.40) is below 0.8, but only after 5 images
    assert not should_pause(30, 100, 4, threshold=0.8, min_gold=5)
    assert should_pause(30, 100, 5, threshold=0.8, min_gold=5)
    # 7 of 10 right: the interval reaches above 0.8 (0.40 to 0.89): not yet
    assert not should_pause(7, 10, 5, threshold=0.8, min_gold=5)
    # a careful annotator at 0.9 is never paused
    assert not should_pause(900, 1000, 50, threshold=0.8, min_gold=5)


@pytest.mark.parametrize(
    "arguments",
    [
        {"correct": 5, "total": 4, "gold_images": 1, "threshold": 0.8, "min_gold": 1},
        {"correct": 1, "total": 4, "gold_images": 1, "threshold": 0, "min_gold": 1},
        {"correct": 1, "total": 4, "gold_images": 1, "threshold": 0.8, "min_gold": 0},
    ],
)
def test_bad_pause_settings_are_refused(arguments):
    with pytest.raises(ConsensusError):
        should_pause(**arguments)
