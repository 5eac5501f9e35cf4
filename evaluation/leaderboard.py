"""The leaderboard of a test: scored sessions ranked by accuracy, each compared with the next one down
by McNemar's exact test, and a system's page (its per-stream results once its session is over)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.db.models import Q

from accounts.roles import is_admin
from evaluation.models import Answer, Score, Session, SessionState
from evaluation.scopes import scoped_system_id
from evaluation.services.scores import compare
from truthing.published import TestPlan, frozen_test_get, test_plan


def leaderboard(*, test_id: int, user: Any = None, auth: Any = None) -> dict[str, Any] | None:
    test = frozen_test_get(test_id=test_id)
    if test is None:
        return None
    visible = Q(session__system__public=True) | ~Q(session__system__baseline="")
    scoped = scoped_system_id(auth)
    if scoped is not None:
        visible |= Q(session__system_id=scoped)
    elif user is not None and getattr(user, "is_authenticated", False):
        visible = Q() if is_admin(user) else visible | Q(session__system__owner=user)
    scores = list(
        Score.objects.filter(
            visible,
            session__test_id=test.pk,
            session__state__in=[SessionState.FINISHED, SessionState.EXPIRED],
        ).select_related("session__system__owner")
    )
    scores.sort(key=lambda s: (-(s.accuracy or 0.0), s.session.system.name))
    answers: dict[int, dict[int, bool]] = defaultdict(dict)
    for session_id, ordinal, correct in Answer.objects.filter(
        session_id__in=[s.session_id for s in scores]
    ).values_list("session_id", "ordinal", "correct"):
        answers[session_id][ordinal] = correct
    rows = []
    for rank, score in enumerate(scores, start=1):
        system = score.session.system
        below = scores[rank] if rank < len(scores) else None
        rows.append(
            {
                "rank": rank,
                "system": {
                    "id": system.pk,
                    "name": system.name,
                    "owner": system.owner.username,
                    "url": system.url,
                    "public": system.public,
                    "baseline": system.baseline,
                },
                "session": score.session_id,
                "state": score.session.state,
                "accuracy": score.data["accuracy"],
                "by_kind": score.data["by_kind"],
                "by_position": score.data["by_position"],
                "first_mistake": score.data["first_mistake"],
                "vs_next": compare(answers[score.session_id], answers[below.session_id]) if below else None,
            }
        )
    plan = test_plan(test_id=test.pk)
    return {
        "test": {
            "id": test.pk,
            "name": test.name,
            "description": test.description,
            "state": test.state,
            "streams": len(plan.streams) if plan else 0,
        },
        "rows": rows,
    }


def session_results(*, session: Session) -> list[dict[str, Any]]:
    """Every stream of a session that is over: each question, the system's answer and the truth."""
    plan: TestPlan | None = test_plan(test_id=session.test_id)
    if plan is None:
        return []
    given = dict(Answer.objects.filter(session=session).values_list("ordinal", "answer"))
    streams = []
    for stream in plan.streams:
        steps = plan.steps[stream.first_ordinal : stream.first_ordinal + stream.steps]
        streams.append(
            {
                "stream": stream.pos,
                "image": stream.test_image_id,
                "questions": [
                    {
                        "step": s.step_pos,
                        "kind": s.kind,
                        "question": s.question,
                        "text": s.text,
                        "answer": None if s.ordinal not in given else ("yes" if given[s.ordinal] else "no"),
                        "truth": s.answer,
                        "correct": s.ordinal in given and given[s.ordinal] == (s.answer == "yes"),
                    }
                    for s in steps
                ],
            }
        )
    return streams
