"""A session's stored answers and the scores they give now (scoring.scores does the counting)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from typing import Any

from evaluation.models import Answer, Session
from evaluation.selectors.plans import plan_of
from scoring.scores import score_of
from truthing.published import TestPlan

# {ordinal: (p_yes, whether the truth is yes)} of one session's answers that gave a probability.
Forecasts = dict[int, tuple[float, bool]]


def session_answers(session: Session) -> dict[int, bool]:
    """{ordinal: correct} of one session."""
    return dict(Answer.objects.filter(session=session).values_list("ordinal", "correct"))


def answers_by_session(session_ids: list[int]) -> dict[int, dict[int, bool]]:
    """{session id: {ordinal: correct}} for many sessions in one query."""
    answers: dict[int, dict[int, bool]] = defaultdict(dict)
    # No order: the model's ("session", "ordinal") joins every answer to its session to sort by the
    # session's own ordering, which a dict does not need (the leaderboard of a 1,000-image test).
    rows = Answer.objects.filter(session_id__in=session_ids).order_by()
    for session_id, ordinal, correct in rows.values_list("session_id", "ordinal", "correct"):
        answers[session_id][ordinal] = correct
    return answers


def forecasts_by_session(session_ids: list[int], plans: Mapping[int, TestPlan]) -> dict[int, Forecasts]:
    """{session id: {ordinal: (p_yes, whether the truth is yes)}} of the answers that gave a
    probability, for many sessions in one query; `plans`: each session's plan."""
    forecasts: dict[int, Forecasts] = defaultdict(dict)
    rows = Answer.objects.filter(session_id__in=session_ids, p_yes__isnull=False).order_by()
    for session_id, ordinal, p_yes in rows.values_list("session_id", "ordinal", "p_yes"):
        assert p_yes is not None  # filtered above
        forecasts[session_id][ordinal] = (p_yes, plans[session_id].steps[ordinal].answer == "yes")
    return forecasts


def answers_given(session: Session, first: int, stop: int) -> list[tuple[bool, float | None]]:
    """The answers stored at ordinals first, ..., stop - 1 (all of them answered), as (yes, p_yes)."""
    rows = Answer.objects.filter(session=session, ordinal__gte=first, ordinal__lt=stop).order_by("ordinal")
    return list(rows.values_list("answer", "p_yes"))


def session_score(*, session: Session) -> dict[str, Any]:
    """The session's score now (partial while it runs)."""
    plan = plan_of(session)
    return score_of(
        plan=plan,
        answers=session_answers(session),
        over=session.over,
        forecasts=forecasts_by_session([session.pk], {session.pk: plan})[session.pk],
    )
