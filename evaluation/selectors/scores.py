"""A session's stored answers and the scores they give now (scoring.scores does the counting)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from evaluation.models import Answer, Session
from evaluation.selectors.plans import plan_of
from scoring.scores import score_of


def session_answers(session: Session) -> dict[int, bool]:
    """{ordinal: correct} of one session."""
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
