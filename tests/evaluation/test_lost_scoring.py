"""A session whose scoring task was lost (the broker down when its last answer was stored, or a worker
that died with the message) is scored all the same: the beat queues the scoring of every session that
ended a grace period ago without a score."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from kombu.exceptions import OperationalError

from evaluation import tasks
from evaluation.models import Answer, Score, Session
from evaluation.selectors.leaderboard import leaderboard
from evaluation.services.scores import score_store
from evaluation.services.sessions import answer_submit, session_enrol, session_void
from tests.django_fixtures import run_task
from tests.evaluation.conftest import shown_positions
from tests.evaluation.test_sessions import answer, enrol

pytestmark = pytest.mark.django_db


@pytest.fixture
def beat_task(settings):
    """The periodic task as the beat names it, found the way a worker finds it."""
    from vtt_site.celery import app

    entry = app.conf.beat_schedule["sessions-score-missing"]
    assert entry["schedule"] == settings.EVALUATION_DEADLINE_SWEEP_SECONDS
    app.loader.import_default_modules()
    return app.tasks[entry["task"]]


@pytest.fixture
def broker_down(monkeypatch):
    def refuse(*args, **kwargs):
        raise OperationalError("Error 111 connecting to 127.0.0.1:6390. Connection refused.")

    monkeypatch.setattr(tasks.score_session, "delay", refuse)


def ended_ago(session_id: int, seconds: float) -> None:
    Session.objects.filter(pk=session_id).update(ended_at=timezone.now() - timedelta(seconds=seconds))


def test_the_last_answer_is_stored_with_the_broker_down_and_the_beat_scores_it_later(
    published_test, system, system_token, token_client, broker_down, monkeypatch, beat_task, settings,
    django_capture_on_commit_callbacks,
):  # fmt: skip
    client = token_client(system_token)
    session_id = enrol(client, published_test)
    *before, (stream, step) = shown_positions()
    for position in before:
        assert answer(client, session_id, *position, "yes").status_code == 200
    with django_capture_on_commit_callbacks(execute=True) as queued:
        last = answer(client, session_id, stream, step, "no")
    assert last.status_code == 200, last.content
    assert last.json()["session_finished"] is True and last.json()["next"] is None
    assert len(queued) == 1  # the scoring was handed over, and refused by the broker
    session = Session.objects.get(pk=session_id)
    assert session.state == "finished" and Answer.objects.filter(session=session).count() == len(before) + 1
    assert not Score.objects.filter(session=session).exists()
    assert leaderboard(test_id=published_test.pk)["rows"] == []

    monkeypatch.undo()  # the broker is back
    assert run_task(beat_task) == 0  # within the grace period the task may only be late
    ended_ago(session_id, settings.EVALUATION_SCORE_GRACE_SECONDS + 1)
    assert run_task(beat_task) == 1
    score = Score.objects.get(session=session)
    # Yes to the first ten (seven of them are yes), no to the last (it is no): 8 right of 11.
    assert (score.data["accuracy"]["successes"], score.data["accuracy"]["trials"]) == (8, 11)
    assert [row["session"] for row in leaderboard(test_id=published_test.pk)["rows"]] == [session_id]
    assert client.get(f"/api/v1/evaluation/systems/{system.pk}/scores/").json()["sessions"][0]["session"] == (
        session_id
    )
    assert run_task(beat_task) == 0  # scored: never queued again


def test_only_ended_unscored_sessions_past_the_grace_are_queued(published_test, owner, system, settings):
    from evaluation.services.systems import system_create

    def ended(name: str) -> Session:
        session = session_enrol(system=system_create(owner=owner, name=name), test_id=published_test.pk)
        for stream, step in shown_positions():
            answer_submit(session_id=session.pk, stream=stream, step=step, answer=True)
        ended_ago(session.pk, settings.EVALUATION_SCORE_GRACE_SECONDS + 1)
        return session

    settings.EVALUATION_MAX_SYSTEMS_PER_TEST = 10
    lost, scored, voided = ended("lost"), ended("scored"), ended("voided")
    score_store(session_id=scored.pk)
    session_void(session_id=voided.pk, by=owner, reason="cheated")
    session_enrol(system=system, test_id=published_test.pk)  # active: not over, nothing to score
    from evaluation.services.scores import scores_due_queue

    assert scores_due_queue() == 1
    assert set(Score.objects.values_list("session_id", flat=True)) == {lost.pk, scored.pk}


def test_scoring_twice_stores_the_same_figures(published_test, system):
    session = session_enrol(system=system, test_id=published_test.pk)
    for n, (stream, step) in enumerate(shown_positions()):
        answer_submit(session_id=session.pk, stream=stream, step=step, answer=n % 3 == 0)
    first = score_store(session_id=session.pk)
    second = score_store(session_id=session.pk)
    assert Score.objects.filter(session=session).count() == 1
    assert first.pk == second.pk and first.data == second.data and first.accuracy == second.accuracy


def test_scores_of_another_scoring_version_are_recomputed_by_the_beat(
    published_test, system, beat_task, monkeypatch, django_capture_on_commit_callbacks
):
    from evaluation.services import scores
    from scoring.scores import SCORING_VERSION

    session = session_enrol(system=system, test_id=published_test.pk)
    with django_capture_on_commit_callbacks(execute=True):
        for n, (stream, step) in enumerate(shown_positions()):
            answer_submit(session_id=session.pk, stream=stream, step=step, answer=n % 2 == 0)
    session.refresh_from_db()
    stored = Score.objects.get(session=session)  # scored when the session ended
    assert stored.version == SCORING_VERSION
    assert run_task(beat_task) == 0  # current: nothing to do
    # A row left by an older scoring, with figures that scoring no longer gives.
    Score.objects.filter(pk=stored.pk).update(version=SCORING_VERSION - 1, data={"old": True}, accuracy=0.0)
    assert run_task(beat_task) == 1
    stored.refresh_from_db()
    assert stored.version == SCORING_VERSION and stored.data == scores.session_score(session=session)
    # The scoring core changes: every stored score is recomputed, once.
    monkeypatch.setattr(scores, "SCORING_VERSION", SCORING_VERSION + 1)
    assert run_task(beat_task) == 1
    assert Score.objects.get(pk=stored.pk).version == SCORING_VERSION + 1
    assert run_task(beat_task) == 0
