"""Comparing two sessions (scoring.scores.compare_sessions) on hand-built sessions with p-values
computed by hand: McNemar where both were asked the same questions, the sign test by image where they
were dealt different streams."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from scipy.stats import binomtest

from scoring.scores import compare_sessions, tally_of
from scoring.stats import sign_test_exact


@dataclass(frozen=True)
class Step:
    ordinal: int
    step_id: int
    stream_pos: int


@dataclass(frozen=True)
class Stream:
    test_image_id: int


@dataclass(frozen=True)
class Plan:
    streams: tuple[Stream, ...]
    steps: tuple[Step, ...]


def plan(images: list[int], lengths: list[int], first_step_id: int) -> Plan:
    steps, step_id = [], first_step_id
    for pos, length in enumerate(lengths):
        for _ in range(length):
            steps.append(Step(len(steps), step_id, pos))
            step_id += 1
    return Plan(tuple(Stream(i) for i in images), tuple(steps))


def answers(p: Plan, right_per_stream: list[int]) -> dict[int, bool]:
    """The first `right` questions of each stream answered right, the rest wrong."""
    out, seen = {}, [0] * len(p.streams)
    for step in p.steps:
        out[step.ordinal] = seen[step.stream_pos] < right_per_stream[step.stream_pos]
        seen[step.stream_pos] += 1
    return out


def test_different_streams_are_paired_by_image_with_the_exact_sign_test():
    images = list(range(1, 10))
    a_plan = plan(images, [4] * 9, first_step_id=100)
    b_plan = plan(images, [5] * 9, first_step_id=500)  # other streams: no question in common
    # Per image, A's accuracy (of 4) against B's (of 5): A better on 6 images, B on 1, 2 ties
    # (2/4 = 2.5/5 cannot happen, so the ties are 0/4 against 0/5 and 4/4 against 5/5).
    a = tally_of(a_plan, answers(a_plan, [3, 3, 3, 3, 3, 3, 1, 0, 4]))
    b = tally_of(b_plan, answers(b_plan, [1, 1, 1, 1, 1, 1, 4, 0, 5]))
    result = compare_sessions(a, b)
    # By hand: 7 untied images, min(6, 1) = 1: p = 2 (C(7,0) + C(7,1)) / 2^7 = 2 * 8 / 128 = 0.125.
    assert result == {
        "test": "sign",
        "unit": "images",
        "paired": 9,
        "a_only_right": 6,
        "b_only_right": 1,
        "p_value": 0.125,
        "significant": False,
        "brier": None,  # neither gave probabilities
    }


def test_a_clear_difference_by_image_is_significant():
    images = list(range(1, 11))
    a_plan, b_plan = plan(images, [3] * 10, 1), plan(images, [3] * 10, 100)
    a = tally_of(a_plan, answers(a_plan, [3] * 10))
    b = tally_of(b_plan, answers(b_plan, [1] * 10))
    # 10 images, all A: p = 2 / 2^10 = 1/512.
    assert compare_sessions(a, b)["p_value"] == pytest.approx(1 / 512)
    assert compare_sessions(a, b)["significant"] is True


def test_the_same_questions_are_compared_question_by_question_by_mcnemar():
    shared = plan([1, 2], [4, 3], first_step_id=10)
    a = tally_of(shared, {o: True for o in range(7)})
    b = tally_of(shared, {0: False, 1: False, 2: False, 3: True, 4: False, 5: True, 6: False})
    # b = 5 questions only A got right, c = 0: p = 2 / 2^5 = 0.0625.
    result = compare_sessions(a, b)
    assert (result["test"], result["unit"], result["paired"]) == ("mcnemar", "questions", 7)
    assert (result["a_only_right"], result["b_only_right"], result["p_value"]) == (5, 0, 0.0625)


@pytest.mark.parametrize(("plus", "minus"), [(0, 0), (1, 0), (6, 1), (9, 3), (12, 12), (20, 4), (3, 17)])
def test_the_sign_test_is_scipys_exact_binomial_test(plus, minus):
    expected = 1.0 if plus + minus == 0 else binomtest(plus, plus + minus, 0.5).pvalue
    assert sign_test_exact(plus, minus) == pytest.approx(expected)


def test_where_both_gave_probabilities_their_brier_scores_are_compared_by_image():
    images = [1, 2, 3]
    a_plan, b_plan = plan(images, [2] * 3, first_step_id=100), plan(images, [3] * 3, first_step_id=500)
    a_forecasts = {step.ordinal: (0.9, True) for step in a_plan.steps}
    b_forecasts = {step.ordinal: (0.5, step.ordinal % 2 == 0) for step in b_plan.steps}
    a = tally_of(a_plan, answers(a_plan, [2, 2, 2]), a_forecasts)
    b = tally_of(b_plan, answers(b_plan, [1, 1, 1]), b_forecasts)
    brier = compare_sessions(a, b)["brier"]
    assert brier["images"] == 3 and brier["difference"] == pytest.approx(0.01 - 0.25)
    assert compare_sessions(a, tally_of(b_plan, answers(b_plan, [1, 1, 1])))["brier"] is None
