"""Issue 34's first ruling: a kind is judged on the mean of independent draws, never on one draw."""

from __future__ import annotations

import math

import pytest

from engine.audit.verdicts import JUDGED, judge_draws, judge_kind, one_draw_reading


def draws_with(mean: float, standard_error: float, count: int = 8, questions: int = 500) -> list[dict]:
    """`count` draws whose gaps have this mean and this standard error of the mean (half a step above
    the mean, half below), with an engine-p guesser at 0.52."""
    step = standard_error * math.sqrt(count) / math.sqrt(count / (count - 1))
    gaps = [mean + step if i % 2 else mean - step for i in range(count)]
    return [{"questions": questions, "gap": g, "engine_p": 0.52} for g in gaps]


def test_a_kind_whose_mean_gap_is_within_the_target_passes_and_one_beyond_it_fails():
    passing = judge_kind("attr", draws_with(0.025, 0.006))
    assert passing.gap.mean == pytest.approx(0.025)
    assert passing.gap.standard_error == pytest.approx(0.006)
    assert passing.met is True and passing.wording() == "met"
    failing = judge_kind("attr", draws_with(0.045, 0.006))
    assert failing.met is False
    assert failing.wording() == "not met: mean gap +0.045 ± 0.006 beyond 0.03"
    # p too low counts as p too high does
    assert judge_kind("attr", draws_with(-0.045, 0.006)).met is False


def test_a_kind_needs_its_questions_on_every_draw_to_be_judged():
    draws = draws_with(0.045, 0.006)
    draws[3] = draws[3] | {"questions": JUDGED - 1}
    verdict = judge_kind("attr_and", draws)
    assert not verdict.judged and verdict.met is None
    assert verdict.wording().startswith("not judged")


def test_the_engine_p_guesser_is_judged_per_kind_and_over_every_kind():
    high = [d | {"engine_p": 0.565} for d in draws_with(0.0, 0.004)]
    assert judge_kind("rel", high).wording().startswith("not met: engine-p guesser 0.565")
    verdict = judge_draws(
        [{"overall": {"engine_p": 0.545}, "kinds": {"exist": d}} for d in draws_with(0.0, 0.002)]
    )
    assert verdict.kinds["exist"].met and not verdict.engine_p_met and not verdict.met
    assert verdict.summary().startswith("not met by the overall engine-p guesser")


def test_one_draw_is_never_judged_alone():
    with pytest.raises(ValueError, match="never judged alone"):
        judge_draws([{"overall": {"engine_p": 0.5}, "kinds": {}}])
    assert (
        one_draw_reading(0.05, 0.02)
        == "one draw, not judged: +0.050 is 2.5 draw-to-draw spreads from 0 (beyond two)"
    )
    assert one_draw_reading(0.05, None) == "one draw: reported, not judged"
