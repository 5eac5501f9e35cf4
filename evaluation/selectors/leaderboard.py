"""The leaderboard of a test: scored sessions ranked by accuracy, each compared with the next one down
(McNemar's exact test where both were asked the same questions, else the sign test by image:
scoring.scores.compare_sessions), accuracy by position pooled into bins while the test can be taken;
and a system's page: what anyone may read of its results, and what its owner
reads of its own sessions (each question, its answer and the truth, once a session is over)."""

from __future__ import annotations

from typing import Any

from evaluation.errors import EvaluationErrorCode
from evaluation.leaderboard_row import RowFacts, blind_prior_on, positions_shown, row_of, system_summary
from evaluation.models import Answer, Score, Session, SessionState, VisionSystem
from evaluation.selectors import access
from evaluation.selectors.plans import SessionDealing, plan_of
from evaluation.selectors.scores import answers_by_session, forecasts_by_session
from kernel.kinds import KINDS
from scoring.scores import stream_scores, tally_of
from truthing.published import frozen_test_get, frozen_tests, plan_of_test
from vtt_site.errors import NotFoundError

# A session shows on a leaderboard and a system's page once it is over and was not voided.
SCORED_STATES = (SessionState.FINISHED, SessionState.EXPIRED)


def leaderboard(*, test_id: int, user: Any = None, auth: Any = None) -> dict[str, Any] | None:
    """The test's leaderboard; None when there is no frozen test of that id; a practice test has none
    (NotFoundError no_leaderboard: its sessions are practice, shown to their owners only)."""
    test = frozen_test_get(test_id=test_id)
    if test is None:
        return None
    if test.practice:
        raise NotFoundError(
            EvaluationErrorCode.NO_LEADERBOARD,
            f"{test.name} is a practice test: it has no leaderboard. Each owner sees their own practice "
            "sessions on their system's page.",
        )
    scores = list(
        Score.objects.filter(
            session__system__in=access.systems_listed(user=user, auth=auth),
            session__test_id=test.pk,
            session__state__in=SCORED_STATES,
            session__practice=False,
        ).select_related("session__system__owner")
    )
    scores.sort(key=lambda s: (-(s.accuracy or 0.0), s.session.system.name))
    answers = answers_by_session([s.session_id for s in scores])
    # Each session was dealt its own streams: its own plan scores it, and pairs it with the row below.
    plans = {score.session_id: plan_of(score.session) for score in scores}
    forecasts = forecasts_by_session([s.session_id for s in scores], plans)
    tallies = [
        tally_of(plans[score.session_id], answers[score.session_id], forecasts.get(score.session_id))
        for score in scores
    ]
    plan = plan_of_test(test_id=test.pk)
    rows = [
        row_of(
            RowFacts(
                rank=rank,
                score=score,
                test=test,
                plan=plans[score.session_id],
                answers=answers[score.session_id],
                tally=tallies[rank - 1],
                below=tallies[rank] if rank < len(scores) else None,
            )
        )
        for rank, score in enumerate(scores, start=1)
    ]
    return {
        "test": {
            "id": test.pk,
            "name": test.name,
            "description": test.description,
            "state": test.state,
            "streams": test.test_images.count(),
            # On the test's own streams (every stream of every pool; what its card describes), not on
            # any session's: each row carries the blind prior on its own questions.
            "blind_prior": blind_prior_on(plan) if plan else None,
        },
        "rows": rows,
    }


def system_scores(*, system: VisionSystem, user: Any, auth: Any = None) -> dict[str, Any]:
    """What the caller reads of a system's results, the caller being allowed to see the system
    (access.access_listed_system): its scored sessions on frozen tests (never an active or a voided
    one) with their scores, and stream by stream unless access.streams_withheld says why not. When the
    system is not the caller's, its sessions on a test the caller is taking are left out, as the
    leaderboard of that test is refused to the caller."""
    own = access.acts_for(system, user=user, auth=auth)
    taking = set() if own else access.taking_test_ids(user=user, auth=auth)
    sessions = list(
        Session.objects.filter(system=system, state__in=SCORED_STATES, score__isnull=False, practice=False)
        .exclude(test_id__in=taking)
        .select_related("score")
        .order_by("-ended_at", "-id")
    )
    tests = {test.pk: test for test in frozen_tests().filter(pk__in=[s.test_id for s in sessions])}
    sessions = [session for session in sessions if session.test_id in tests]
    withheld = {
        session.pk: access.streams_withheld(test=tests[session.test_id], own=own, user=user, auth=auth)
        for session in sessions
    }
    answers = answers_by_session([pk for pk, why in withheld.items() if not why])
    rows = []
    for session in sessions:
        test, data = tests[session.test_id], session.score.data
        shown = not withheld[session.pk]
        rows.append(
            {
                "session": session.pk,
                "test": {"id": test.pk, "name": test.name, "state": test.state},
                "state": session.state,
                "ended_at": session.ended_at,
                "accuracy": data["accuracy"],
                # In the order of the kinds, not of the stored JSON's keys.
                "by_kind": {kind: data["by_kind"][kind] for kind in KINDS if kind in data["by_kind"]},
                # Pooled in bins as on the leaderboard, unless the session is the caller's own.
                "by_position": data.get("by_position", [])
                if own
                else positions_shown(test, data.get("by_position", [])),
                "first_mistake": data["first_mistake"],
                "by_reference": data.get("by_reference", []),
                "forecasts": data.get("forecasts"),
                "streams": stream_scores(plan=plan_of(session), answers=answers[session.pk])
                if shown
                else None,
                "streams_withheld": withheld[session.pk],
            }
        )
    left_out = frozen_tests().filter(pk__in=taking).values("id", "name")
    return {"system": system_summary(system), "sessions": rows, "left_out": list(left_out)}


def system_sessions(*, system: VisionSystem) -> list[dict[str, Any]]:
    """Every session of a system, for its owner and admins: its test, state, progress, and once it is
    over each question with the system's answer and the truth."""
    sessions = list(Session.objects.filter(system=system).order_by("-started_at"))
    names = dict(frozen_tests().filter(pk__in={s.test_id for s in sessions}).values_list("pk", "name"))
    return [
        {
            "session": session,
            "test_name": names.get(session.test_id, f"test {session.test_id}"),
            "results": session_results(session=session) if session.over else None,
        }
        for session in sessions
    ]


def session_results(*, session: Session) -> list[dict[str, Any]]:
    """Every stream of a session that is over: its image, and each question with the system's answer,
    the truth, and the region it is about (an attribute or relationship question's is the region
    where its label was found)."""
    try:
        plan = plan_of(session)
    except SessionDealing:  # a session closed before its streams were ready was asked nothing
        return []
    given: dict[int, tuple[bool, float | None]] = {
        ordinal: (answer, p_yes)
        for ordinal, answer, p_yes in Answer.objects.filter(session=session).values_list(
            "ordinal", "answer", "p_yes"
        )
    }
    streams = []
    for stream in plan.streams:
        steps = plan.steps[stream.first_ordinal : stream.first_ordinal + stream.steps]
        found: dict[str, dict[str, Any]] = {}  # label -> the region where a yes made it
        questions: list[dict[str, Any]] = []
        for s in steps:
            region = s.question.get("region") or found.get(
                s.question.get("label") or s.question.get("subject", "")
            )
            if s.label and s.question.get("region"):
                found[s.label] = s.question["region"]
            questions.append(
                {
                    "step": s.step_pos,
                    "kind": s.kind,
                    "question": s.question,
                    "text": s.text,
                    "region": region,
                    "answer": None if s.ordinal not in given else ("yes" if given[s.ordinal][0] else "no"),
                    "p_yes": given[s.ordinal][1] if s.ordinal in given else None,
                    "truth": s.answer,
                    "correct": s.ordinal in given and given[s.ordinal][0] == (s.answer == "yes"),
                }
            )
        regions = {q["region"]["id"]: q["region"] for q in questions if q["region"]}
        streams.append(
            {
                "stream": stream.pos,
                "image": stream.test_image_id,
                "width": stream.width,
                "height": stream.height,
                "regions": list(regions.values()),
                "questions": questions,
            }
        )
    return streams
