"""The scoring core on a plan built by hand, without Django: the figures are the hand-computed ones."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from scoring.scores import compare, first_mistake, score_of, stream_scores


@dataclass(frozen=True)
class Step:
    ordinal: int
    step_pos: int
    kind: str
    question: dict[str, Any] = field(default_factory=dict)
    label: str = ""


@dataclass(frozen=True)
class Stream:
    pos: int
    first_ordinal: int
    steps: int


@dataclass(frozen=True)
class Plan:
    streams: tuple[Stream, ...]
    steps: tuple[Step, ...]


# Two streams: exist, unique, attr | exist, rel.
PLAN = Plan(
    streams=(Stream(0, 0, 3), Stream(1, 3, 2)),
    steps=(
        Step(0, 0, "exist"),
        Step(1, 1, "unique", label="person 1"),
        Step(2, 2, "attr", {"label": "person 1"}),
        Step(3, 0, "exist"),
        Step(4, 1, "rel"),
    ),
)


def test_a_finished_session_counts_every_question_and_an_unanswered_one_as_wrong():
    answers = {0: True, 1: False, 2: True, 3: True}  # ordinal 4 never answered
    score = score_of(plan=PLAN, answers=answers, over=True)
    assert (score["accuracy"]["successes"], score["accuracy"]["trials"]) == (3, 5)
    assert {k: (v["successes"], v["trials"]) for k, v in score["by_kind"].items()} == {
        "exist": (2, 2),
        "unique": (0, 1),
        "attr": (1, 1),
        "rel": (0, 1),
    }
    assert [(p["successes"], p["trials"]) for p in score["by_position"]] == [(2, 2), (0, 2), (1, 1)]
    # First mistakes: stream 0 at 2, stream 1 at 2 (the unanswered rel): mean 2, no spread.
    assert score["first_mistake"] == {"mean": 2.0, "streams": 2, "low": 2.0, "high": 2.0}
    assert [row["first_mistake"] for row in stream_scores(plan=PLAN, answers=answers)] == [2, 2]
    # The one question about a label (attr, one step after its uniqueness question) was right.
    assert [(r["distance"], r["successes"], r["trials"]) for r in score["by_reference"]] == [("1", 1, 1)]


def test_a_running_session_counts_only_what_it_answered():
    score = score_of(plan=PLAN, answers={0: True, 1: True}, over=False)
    assert (score["accuracy"]["successes"], score["accuracy"]["trials"]) == (2, 2)
    assert score["first_mistake"]["mean"] == 3  # no mistake in 2 questions: censored at length + 1
    assert score["complete"] is False


def test_first_mistake_is_one_based_or_none():
    assert first_mistake([(PLAN.steps[0], True), (PLAN.steps[1], False)]) == 2
    assert first_mistake([(PLAN.steps[0], True)]) is None


def test_compare_counts_discordant_pairs_on_the_questions_both_answered():
    a = {0: True, 1: True, 2: False, 3: True}
    b = {0: True, 1: False, 2: False, 4: True}
    result = compare(a, b)
    assert (result["paired"], result["a_only_right"], result["b_only_right"]) == (3, 1, 0)
    assert result["p_value"] == pytest.approx(1.0)
