"""Issue 22, item 1: a long job gives way while an operator waits for a proposal (vtt_site.interactive).

On the real Redis, in the layout of the service (tasks sent to workers, not run in process): a proposal is
marked pending from the moment it is queued until its task ran; a long job waits between two engine
steps while one is pending, for at most LONG_JOB_GIVE_WAY_SECONDS at a time; a lost mark stops counting
after STALE_SECONDS. The time an operator then waits is measured by benchmarks/truthing_speed.py.
"""

from __future__ import annotations

import time
import uuid

import pytest

from tests.parallel import ONE_AT_A_TIME
from truthing.models import AutomaticTruthing, Stream, StreamState
from truthing.services import lifecycle
from truthing.services.automatic import automatic_truthing_run
from truthing.tasks import stream_propose
from vtt_site import interactive
from vtt_site.celery import app as celery_app
from vtt_site.interactive import give_way, proposal_done, proposal_pending, proposals_pending

# The waits are measured against budgets of tens of milliseconds: not beside processes being started.
pytestmark = ONE_AT_A_TIME


@pytest.fixture
def workers_layout(settings, monkeypatch):
    """Tasks go to a broker (queues of this test's own, which no worker reads), as under `make serve`."""
    if not settings.REDIS_URL:
        pytest.fail("Needs Redis: run through `make test` or .ci/run (REDIS_URL=redis://…).")
    settings.LONG_JOB_GIVE_WAY_SECONDS = 0.2
    monkeypatch.setattr(interactive, "_failed_at", None)  # no failure of an earlier test keeps Redis quiet
    queue = f"vtt-test-{uuid.uuid4().hex[:8]}"
    previous = celery_app.conf.task_always_eager, celery_app.conf.task_default_queue
    celery_app.conf.task_always_eager, celery_app.conf.task_default_queue = False, queue
    url = settings.REDIS_URL
    yield queue
    client = interactive._client(url)
    client.delete(interactive._key(), queue)
    celery_app.conf.task_always_eager, celery_app.conf.task_default_queue = previous


def timed(call) -> float:
    started = time.monotonic()
    call()
    return time.monotonic() - started


def test_a_long_job_waits_while_a_proposal_is_pending_and_goes_on_when_it_is_done(workers_layout):
    assert proposals_pending() == 0 and timed(give_way) < 0.05
    proposal_pending(41)
    proposal_pending(42)
    assert proposals_pending() == 2
    assert 0.2 <= timed(give_way) < 0.5  # at most LONG_JOB_GIVE_WAY_SECONDS: slowed down, never stopped
    proposal_done(41)
    proposal_done(42)
    assert proposals_pending() == 0 and timed(give_way) < 0.05


def test_a_lost_mark_stops_holding_long_jobs_after_stale_seconds(workers_layout, settings):
    client = interactive._client(settings.REDIS_URL)
    client.zadd(interactive._key(), {"7": time.time() - interactive.STALE_SECONDS - 1})
    assert proposals_pending() == 0 and timed(give_way) < 0.05


def test_nothing_is_waited_for_when_tasks_run_in_process(workers_layout):
    proposal_pending(5)
    celery_app.conf.task_always_eager = True
    try:
        assert proposals_pending() == 0 and timed(give_way) < 0.05
    finally:
        celery_app.conf.task_always_eager = False
    assert proposals_pending() == 1


@pytest.mark.django_db(transaction=True)
def test_queueing_a_proposal_marks_it_and_its_task_clears_the_mark(
    workers_layout, make_test, unannotated_test_images
):
    test = lifecycle.start_test(test=make_test(unannotated_test_images[:1]))  # first questions: queued
    waiting = list(Stream.objects.filter(test_image__test=test, state=StreamState.PROPOSING))
    assert waiting and proposals_pending() == len(waiting)  # marked when queued (no worker reads it)
    for stream in waiting:
        stream_propose.apply(args=(stream.pk,))  # what the proposer worker does, here
    assert proposals_pending() == 0
    assert not Stream.objects.filter(test_image__test=test, state=StreamState.PROPOSING).exists()


@pytest.mark.django_db(transaction=True)
def test_automatic_truthing_gives_way_before_every_engine_step_and_write(
    workers_layout, settings, make_test, annotated_test_images
):
    settings.LONG_JOB_GIVE_WAY_SECONDS = 0.05
    test = lifecycle.start_test(test=make_test(annotated_test_images[:1]))  # its job: queued
    job = AutomaticTruthing.objects.get(test=test, streams_done=0, part=0)
    proposal_pending(99)  # an operator waits, all along
    held = timed(lambda: automatic_truthing_run(job_id=job.pk))  # what the long-jobs worker does, here
    steps = sum(s.steps.count() for s in Stream.objects.filter(test_image__test=test))
    assert steps > 5
    # A wait before each proposal (each step, and the last, which ended a stream) and before the write.
    assert held >= 0.05 * (steps + 2)
    proposal_done(99)


def test_with_redis_down_nothing_waits_and_redis_is_left_alone_for_a_while(
    workers_layout, settings, monkeypatch
):
    """An outage costs a long job's steps and an operator's answers one failed attempt, not one each."""
    settings.REDIS_URL = "redis://127.0.0.1:6390/0"  # nothing listens there
    monkeypatch.setattr(interactive, "_failed_at", None)
    failures = []
    real_failed = interactive._failed
    monkeypatch.setattr(interactive, "_failed", lambda *a: failures.append(a[0]) or real_failed(*a))
    assert timed(give_way) < 0.5 and timed(give_way) < 0.05
    proposal_pending(3)
    proposal_done(3)
    assert failures == ["count pending proposals"]  # the first count failed; the rest left Redis alone
    monkeypatch.setattr(interactive, "_failed_at", time.monotonic() - interactive.QUIET_SECONDS - 1)
    give_way()
    assert len(failures) == 2  # tried again once the quiet time was over
