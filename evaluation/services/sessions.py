"""Sessions: a vision system enrols in a published test and answers its questions one at a time.

The test is written, not oral (docs/method.md section 1): the questions and their order are fixed by the
test (`truthing.published.test_plan`), so a session's whole state is the count of its stored answers.
`answer_submit` locks the session row, so concurrent submissions are serialised: the same answer posted
twice is stored once and answered identically; a different answer to an answered step is a 409; an
answer to any step but the current one is a 409 that changes nothing and says nothing about that step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Field
from django.utils import timezone

from evaluation.errors import EvaluationErrorCode
from evaluation.models import Answer, Session, SessionState, TestSchedule, VisionSystem
from evaluation.selectors.access import Answerer
from evaluation.selectors.plans import deadline_of, plan_of
from evaluation.services.scores import scoring_queue
from truthing.published import PlanStep, TestPlan, published_tests, test_plan
from vtt_site.errors import ConflictError, NotFoundError
from vtt_site.sql import HandQuery, columns, for_update_of, instance


def max_systems_per_owner() -> int:
    return int(settings.VTT.get("EVALUATION_MAX_SYSTEMS_PER_TEST", 3))


@transaction.atomic
def session_enrol(*, system: VisionSystem, test_id: int) -> Session:
    """One session per (system, test), never restarted; at most EVALUATION_MAX_SYSTEMS_PER_TEST systems of
    one owner per test."""
    test = published_tests().filter(pk=test_id).first()
    if test is None:
        raise NotFoundError(EvaluationErrorCode.TEST_NOT_PUBLISHED, f"There is no published test {test_id}.")
    deadline = deadline_of(test.pk)
    if deadline is not None and deadline <= timezone.now():
        raise ConflictError(EvaluationErrorCode.DEADLINE_PASSED, f"The deadline of {test.name} has passed.")
    # The owner's systems are locked so that two enrolments at once cannot both pass the cap.
    owned = list(
        VisionSystem.objects.select_for_update().filter(owner_id=system.owner_id).values_list("pk", flat=True)
    )
    existing = Session.objects.filter(system=system, test_id=test.pk).first()
    if existing is not None:
        raise ConflictError(
            EvaluationErrorCode.ALREADY_ENROLLED,
            f"{system.name} took {test.name} already (session {existing.pk}): a session is never restarted, "
            "since the system learned the correct answers as it went. Resume that session.",
        )
    cap = max_systems_per_owner()
    # The built-in baselines (manage.py run_baselines) are the platform's, not an owner's entries.
    counted = Session.objects.filter(system_id__in=owned, test_id=test.pk, system__baseline="")
    if not system.baseline and counted.count() >= cap:
        raise ConflictError(
            EvaluationErrorCode.ENROLMENT_LIMIT,
            f"You have enrolled {cap} systems in {test.name} already, the most one owner may.",
        )
    plan = test_plan(test_id=test.pk)
    session = Session.objects.create(system=system, test_id=test.pk, total=len(plan.steps) if plan else 0)
    if session.total == 0:
        _end(session, SessionState.FINISHED)
    return session


def _end(session: Session, state: SessionState) -> None:
    session.state, session.ended_at = state, timezone.now()
    session.save(update_fields=["state", "ended_at"])
    session_id = session.pk
    transaction.on_commit(lambda: scoring_queue(session_id))


def expire_if_due(session: Session) -> bool:
    """Close an active session whose test's deadline has passed (the caller holds its row lock)."""
    if session.state != SessionState.ACTIVE:
        return False
    deadline = (
        getattr(session, "deadline", None) if hasattr(session, "deadline") else deadline_of(session.test_id)
    )
    if deadline is None or deadline > timezone.now():
        return False
    _end(session, SessionState.EXPIRED)
    return True


@transaction.atomic
def session_refresh(*, session: Session) -> Session:
    """The session as it is now: closed first if its deadline passed."""
    if session.state == SessionState.ACTIVE and deadline_of(session.test_id) is not None:
        session = Session.objects.select_for_update().select_related("system").get(pk=session.pk)
        expire_if_due(session)
    return session


@transaction.atomic
def sessions_expire_due() -> int:
    """Close every active session of a test whose deadline has passed (a periodic task)."""
    due = TestSchedule.objects.filter(deadline__lte=timezone.now()).values_list("test_id", flat=True)
    closed = 0
    for session in Session.objects.select_for_update().filter(
        state=SessionState.ACTIVE, test_id__in=list(due)
    ):
        closed += expire_if_due(session)
    return closed


@dataclass(frozen=True)
class AnswerResult:
    session: Session
    plan: TestPlan
    step: PlanStep
    answer: bool
    replay: bool


def _not_current(session: Session, plan: TestPlan) -> ConflictError:
    """The same refusal whatever the step asked for is (a future one, or one that does not exist), so it
    tells nothing about the test beyond the current position."""
    if session.answered < len(plan.steps):
        now = plan.steps[session.answered]
        where = f"the current question is stream {now.stream_pos}, step {now.step_pos}"
    else:
        where = "every question is answered"
    return ConflictError(
        EvaluationErrorCode.STEP_NOT_CURRENT,
        f"Only the current question can be answered: {where}. Nothing was stored.",
    )


def answer_submit(
    *, session_id: int, stream: int, step: int, answer: bool, caller: Answerer | None = None
) -> AnswerResult:
    """Store the answer to the current step (or replay the stored one). `caller` limits which sessions
    may be answered in (evaluation.selectors.access.answerable; None: any): the check and the row lock are one
    query. A refusal is raised after the transaction commits, so that closing a session whose deadline
    passed is kept."""
    outcome = _answer_locked(session_id=session_id, stream=stream, step=step, answer=answer, caller=caller)
    if isinstance(outcome, ConflictError):
        raise outcome
    return outcome


def _locked_session_query(connection) -> tuple[str, list[Field]]:
    """The session row, locked, with its test's deadline, if the caller may answer in it: the access
    check, the lock and the deadline in one query (written once per process: vtt_site.sql)."""
    q = connection.ops.quote_name
    session_columns, session_fields = columns("s", Session, q)
    deadline = TestSchedule._meta.get_field("deadline")
    system = Session._meta.get_field("system")
    sql = (
        f"SELECT {session_columns}, (SELECT d.{q(deadline.column)} FROM {q(TestSchedule._meta.db_table)} d "
        f"WHERE d.{q(TestSchedule._meta.get_field('test').column)} = s.{q(Session._meta.get_field('test').column)}) "
        f"FROM {q(Session._meta.db_table)} s "
        f"JOIN {q(VisionSystem._meta.db_table)} v ON v.{q(VisionSystem._meta.pk.column)} = s.{q(system.column)} "
        f"WHERE s.{q(Session._meta.pk.column)} = %s "
        # Anyone (an internal caller), or the caller's system (a scoped token), or its owner's systems.
        f"AND (%s OR s.{q(system.column)} = %s OR v.{q(VisionSystem._meta.get_field('owner').column)} = %s)"
        f"{for_update_of(connection, 's')}"
    )
    return sql, [*session_fields, deadline]


_LOCKED_SESSION = HandQuery(_locked_session_query)


def _session_locked(session_id: int, caller: Answerer | None) -> Session | None:
    who = caller or Answerer()
    rows = _LOCKED_SESSION.rows([session_id, caller is None, who.system_id, who.owner_id])
    if not rows:
        return None
    session = instance(Session, rows[0][:-1])
    session.deadline = rows[0][-1]  # read by expire_if_due
    return session


@transaction.atomic
def _answer_locked(
    *, session_id: int, stream: int, step: int, answer: bool, caller: Answerer | None
) -> AnswerResult | ConflictError:
    session = _session_locked(session_id, caller)
    if session is None:
        raise NotFoundError(
            EvaluationErrorCode.SESSION_NOT_FOUND, f"There is no session {session_id} of yours."
        )
    plan = plan_of(session)
    target = _find(plan, stream, step)
    if target is not None and target.ordinal < session.answered and session.state != SessionState.VOIDED:
        stored = (
            Answer.objects.filter(session=session, ordinal=target.ordinal)
            .values_list("answer", flat=True)
            .get()
        )
        if stored != answer:
            return ConflictError(
                EvaluationErrorCode.ANSWER_CONFLICT,
                f"Stream {stream}, step {step} was answered {'yes' if stored else 'no'} already; "
                "an answer is never changed.",
            )
        return AnswerResult(session=session, plan=plan, step=target, answer=stored, replay=True)
    expire_if_due(session)
    if session.over:
        return ConflictError(
            EvaluationErrorCode.SESSION_OVER,
            f"The session is {session.get_state_display()}: it takes no answers.",
        )
    if target is None or target.ordinal != session.answered:
        return _not_current(session, plan)
    correct = answer == (target.answer == "yes")
    Answer.objects.create(
        session=session, ordinal=target.ordinal, step_id=target.step_id, answer=answer, correct=correct
    )
    session.answered += 1
    session.correct += correct
    session.save(update_fields=["answered", "correct"])
    if session.answered >= session.total:
        _end(session, SessionState.FINISHED)
    return AnswerResult(session=session, plan=plan, step=target, answer=answer, replay=False)


def _find(plan: TestPlan, stream: int, step: int) -> PlanStep | None:
    if not 0 <= stream < len(plan.streams):
        return None
    entry = plan.streams[stream]
    if not 0 <= step < entry.steps:
        return None
    return plan.steps[entry.first_ordinal + step]


@transaction.atomic
def session_void(*, session_id: int, by: Any, reason: str) -> Session:
    """An admin voids a session (it stays on record, off the leaderboard); it cannot be taken again."""
    session = Session.objects.select_for_update().get(pk=session_id)
    if session.state == SessionState.VOIDED:
        raise ConflictError(EvaluationErrorCode.SESSION_ALREADY_VOIDED, "The session is voided already.")
    session.state = SessionState.VOIDED
    session.void_reason = reason.strip()
    session.voided_by, session.voided_at = by, timezone.now()
    session.ended_at = session.ended_at or session.voided_at
    session.save(update_fields=["state", "void_reason", "voided_by", "voided_at", "ended_at"])
    return session
