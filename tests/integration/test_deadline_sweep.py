"""A session abandoned before its test's deadline is closed by the beat of a real worker: nobody reads
or answers it again, yet it ends as expired, is scored with its unanswered questions wrong, and joins
the leaderboard."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.roles import Role
from evaluation.models import Score, Session, TestSchedule
from evaluation.selectors.leaderboard import leaderboard
from evaluation.services.sessions import answer_submit, session_enrol
from evaluation.services.systems import system_create
from tests.evaluation.conftest import build_test, shown_positions
from tests.factories import UserFactory
from tests.integration.conftest import wait_for

pytestmark = pytest.mark.integration


def test_the_workers_beat_closes_a_session_whose_deadline_passed(start_worker):
    test = build_test(name="deadline test")
    system = system_create(owner=UserFactory(role=Role.VISION_SYSTEM_OWNER), name="walked away")
    session = session_enrol(system=system, test_id=test.pk)
    answer_submit(session_id=session.pk, stream=0, step=0, answer=True)
    TestSchedule.objects.create(test=test, deadline=timezone.now() - timedelta(seconds=1))
    assert Session.objects.get(pk=session.pk).state == "active"

    _, log = start_worker(EVALUATION_DEADLINE_SWEEP_SECONDS="1")
    score = wait_for(
        lambda: Score.objects.filter(session=session).first(), 60, "the session to be closed and scored", log
    )
    session.refresh_from_db()
    assert session.state == "expired"
    assert (score.data["accuracy"]["successes"], score.data["accuracy"]["trials"]) == (1, 11)
    assert [row["system"]["name"] for row in leaderboard(test_id=test.pk)["rows"]] == ["walked away"]
    assert "evaluation.tasks.sessions_expire_due" in log.read_text()


def test_the_workers_beat_scores_a_session_whose_scoring_task_was_lost(start_worker, monkeypatch):
    from evaluation import tasks

    test = build_test(name="lost scoring test")
    system = system_create(owner=UserFactory(role=Role.VISION_SYSTEM_OWNER), name="finished unseen")
    session = session_enrol(system=system, test_id=test.pk)
    monkeypatch.setattr(tasks.score_session, "delay", lambda *args, **kwargs: None)  # the message is lost
    for stream, step in shown_positions():
        answer_submit(session_id=session.pk, stream=stream, step=step, answer=True)
    monkeypatch.undo()
    assert Session.objects.get(pk=session.pk).state == "finished"
    assert not Score.objects.filter(session=session).exists()

    _, log = start_worker(EVALUATION_DEADLINE_SWEEP_SECONDS="1", EVALUATION_SCORE_GRACE_SECONDS="0")
    score = wait_for(lambda: Score.objects.filter(session=session).first(), 60, "the lost scoring", log)
    assert score.data["accuracy"]["trials"] == len(shown_positions())
    assert [row["system"]["name"] for row in leaderboard(test_id=test.pk)["rows"]] == ["finished unseen"]
    assert "evaluation.tasks.scores_due_queue" in log.read_text()
