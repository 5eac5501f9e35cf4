"""Scores of a session, computed from its stored answers and the test's plan alone (so a score can be
recomputed at any time and gives the same figures), and the paired comparison of two systems.

- accuracy overall, per question kind and per position in the stream (0 = a stream's first question),
  each a proportion with its exact 95% Wilson interval (vtt_site.stats);
- the position of the first mistake per stream (1-based; a stream without a mistake counts as its
  length + 1, i.e. censored at its end), its mean over streams with a normal 95% interval
  (mean +- 1.96 s / sqrt(n)): a mean is not a proportion, so Wilson does not apply to it;
- once a session is over, a question it never answered (the deadline passed) counts as wrong; while it
  runs, only the answered questions count.

McNemar's exact test compares two sessions of one test on the questions both answered: only the
discordant pairs (one right, the other wrong) carry information; under "no difference" each is a fair
coin, so the two-sided p-value is 2 P(Binomial(b + c, 1/2) <= min(b, c)), capped at 1.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from django.db import transaction
from django.utils import timezone

from evaluation.models import Answer, Score, Session, SessionState
from evaluation.services.sessions import plan_of
from truthing.published import PlanStep, PlanStream, TestPlan
from vtt_site.stats import proportion

KINDS = ("exist", "unique", "attr", "attr_and", "attr_or", "rel")
Z95 = 1.959963984540054


def counted_streams(
    plan: TestPlan, answers: dict[int, bool], over: bool
) -> Iterator[tuple[PlanStream, list[tuple[PlanStep, bool]]]]:
    """Each stream with the questions that count and whether each was answered correctly: once the
    session is over every question counts (an unanswered one as wrong); while it runs, only the answered
    ones. `answers` maps a plan ordinal to whether the stored answer was correct."""
    for stream in plan.streams:
        steps = plan.steps[stream.first_ordinal : stream.first_ordinal + stream.steps]
        yield stream, [(s, answers.get(s.ordinal, False)) for s in steps if over or s.ordinal in answers]


def first_mistake(counted: list[tuple[PlanStep, bool]]) -> int | None:
    """The 1-based position of the first question counted as wrong, or None."""
    return next((i + 1 for i, (_, ok) in enumerate(counted) if not ok), None)


def score_of(*, plan: TestPlan, answers: dict[int, bool], over: bool) -> dict[str, Any]:
    """`answers` maps a plan ordinal to whether the stored answer was correct."""
    right: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    positions: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    first_mistakes: list[int] = []
    for _, counted in counted_streams(plan, answers, over):
        if not counted:
            continue
        for step, ok in counted:
            for key in ("all", step.kind):
                right[key][0] += ok
                right[key][1] += 1
            positions[step.step_pos][0] += ok
            positions[step.step_pos][1] += 1
        first_mistakes.append(first_mistake(counted) or len(counted) + 1)
    return {
        "accuracy": proportion(*right["all"]),
        "by_kind": {kind: proportion(*right[kind]) for kind in KINDS if right[kind][1]},
        "by_position": [proportion(*positions[i]) for i in sorted(positions)],
        "first_mistake": mean_interval(first_mistakes),
        "answered": len(answers),
        "complete": over,
    }


def stream_scores(*, plan: TestPlan, answers: dict[int, bool]) -> list[dict[str, Any]]:
    """Stream by stream, for a session that is over: its questions, how many were answered and answered
    correctly, the accuracy (an unanswered question counts as wrong, as in `score_of`) and the position
    of the first mistake (None: none in the stream). Shown to others only under the rule of
    evaluation.selectors.streams_withheld: on a test that can still be taken it tells about answers."""
    rows = []
    for stream, counted in counted_streams(plan, answers, over=True):
        correct = sum(ok for _, ok in counted)
        rows.append(
            {
                "stream": stream.pos,
                "questions": len(counted),
                "answered": sum(1 for step, _ in counted if step.ordinal in answers),
                "correct": correct,
                "accuracy": proportion(correct, len(counted)),
                "first_mistake": first_mistake(counted),
            }
        )
    return rows


def mean_interval(values: list[int]) -> dict[str, float | int | None]:
    n = len(values)
    if n == 0:
        return {"mean": None, "streams": 0, "low": None, "high": None}
    mean = sum(values) / n
    if n == 1:
        return {"mean": mean, "streams": 1, "low": None, "high": None}
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = Z95 * sd / math.sqrt(n)
    return {"mean": mean, "streams": n, "low": mean - half, "high": mean + half}


def session_answers(session: Session) -> dict[int, bool]:
    return dict(Answer.objects.filter(session=session).values_list("ordinal", "correct"))


def answers_by_session(session_ids: list[int]) -> dict[int, dict[int, bool]]:
    """{session id: {ordinal: correct}} for many sessions in one query."""
    answers: dict[int, dict[int, bool]] = defaultdict(dict)
    for session_id, ordinal, correct in Answer.objects.filter(session_id__in=session_ids).values_list(
        "session_id", "ordinal", "correct"
    ):
        answers[session_id][ordinal] = correct
    return answers


def session_score(*, session: Session) -> dict[str, Any]:
    """The session's score now (partial while it runs)."""
    return score_of(plan=plan_of(session), answers=session_answers(session), over=session.over)


@transaction.atomic
def score_store(*, session_id: int) -> Score | None:
    """Compute and store the score of a session that is over (idempotent: a second run rewrites the same
    figures)."""
    session = Session.objects.select_for_update().get(pk=session_id)
    if session.state not in (SessionState.FINISHED, SessionState.EXPIRED):
        return None
    data = session_score(session=session)
    score, _ = Score.objects.update_or_create(
        session=session,
        defaults={"accuracy": data["accuracy"]["value"], "data": data, "computed_at": timezone.now()},
    )
    return score


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value for b and c discordant pairs."""
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


def compare(answers_a: dict[int, bool], answers_b: dict[int, bool]) -> dict[str, Any]:
    """A against B on the questions both answered: b = A right and B wrong, c = A wrong and B right."""
    both = answers_a.keys() & answers_b.keys()
    b = sum(1 for o in both if answers_a[o] and not answers_b[o])
    c = sum(1 for o in both if not answers_a[o] and answers_b[o])
    p = mcnemar_exact(b, c)
    return {"paired": len(both), "a_only_right": b, "b_only_right": c, "p_value": p, "significant": p < 0.05}
