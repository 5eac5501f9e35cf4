"""The rows an answer reads and writes, in SQL written once per process (vtt_site.sql; decisions 0033,
0087): the session locked with its access check and its test's deadline, the answer inserted and the
session moved on. The ORM compiled them anew on every answer, for more CPU than PostgreSQL spent running
them (docs/benchmarks.md, "Answer submission throughput")."""

from __future__ import annotations

from django.db.models import Field
from django.utils import timezone

from evaluation.models import Answer, Session, TestSchedule, VisionSystem
from evaluation.selectors.access import Answerer
from truthing.published import PlanStep
from vtt_site.sql import HandQuery, HandWrite, column_of, columns, field_of, for_update_of, instance


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

ANSWER_FIELDS = ("session", "ordinal", "step_id", "answer", "p_yes", "correct", "answered_at")
MOVED_FIELDS = ("answered", "correct", "streams_at", "streams_next")


def _store_answer_query(connection) -> tuple[str, list[Field]]:
    q = connection.ops.quote_name
    fields = [field_of(Answer, name) for name in ANSWER_FIELDS]
    names = ", ".join(q(column_of(f)) for f in fields)
    return (
        f"INSERT INTO {q(Answer._meta.db_table)} ({names}) VALUES ({', '.join(['%s'] * len(fields))})",
        fields,
    )


def _move_on_query(connection) -> tuple[str, list[Field]]:
    q = connection.ops.quote_name
    fields = [field_of(Session, name) for name in MOVED_FIELDS]
    assignments = ", ".join(f"{q(column_of(f))} = %s" for f in fields)
    key = Session._meta.pk
    return f"UPDATE {q(Session._meta.db_table)} SET {assignments} WHERE {q(column_of(key))} = %s", [
        *fields,
        key,
    ]


_STORE_ANSWER = HandWrite(_store_answer_query)
_MOVE_ON = HandWrite(_move_on_query)


def answer_store(
    session: Session, step: PlanStep, *, answer: bool, p_yes: float | None, correct: bool
) -> None:
    """Insert the answer to `step` and write the session's counts and streams as the caller moved them
    (the caller holds the row's lock): the ORM's create() and save(), written once (decision 0087)."""
    _STORE_ANSWER.run([session.pk, step.ordinal, step.step_id, answer, p_yes, correct, timezone.now()])
    _MOVE_ON.run([session.answered, session.correct, session.streams_at, session.streams_next, session.pk])


def session_locked(session_id: int, caller: Answerer | None) -> Session | None:
    who = caller or Answerer()
    rows = _LOCKED_SESSION.rows([session_id, caller is None, who.system_id, who.owner_id])
    if not rows:
        return None
    session = instance(Session, rows[0][:-1])
    session.deadline = rows[0][-1]  # type: ignore[attr-defined]  # not a field: read by expire_if_due
    return session
