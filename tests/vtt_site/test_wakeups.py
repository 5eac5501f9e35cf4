"""vtt_site.wakeups: a request waits a bounded time for a write another thread or process makes; in
process (tasks in threads, `make run`) and on the real Redis (workers of their own, `make serve`)."""

from __future__ import annotations

import threading
import time
import uuid

import pytest

from tests.parallel import ONE_AT_A_TIME
from vtt_site import wakeups
from vtt_site.celery import app as celery_app

# The waits are measured against budgets of tens of milliseconds: not beside processes being started.
pytestmark = ONE_AT_A_TIME


def timed(call) -> tuple[float, object]:
    started = time.monotonic()
    result = call()
    return time.monotonic() - started, result


def wake_later(topic: str, seconds: float) -> threading.Timer:
    timer = threading.Timer(seconds, lambda: wakeups.wake(topic))
    timer.start()
    return timer


@pytest.fixture(params=["in process", "redis"])
def layout(request, settings):
    """Tasks in this process (eager), or sent to workers through the real Redis (queues of their own)."""
    previous = celery_app.conf.task_always_eager, celery_app.conf.task_default_queue
    if request.param == "redis":
        if not settings.REDIS_URL:
            pytest.fail("Needs Redis: run through `make test` or .ci/run (REDIS_URL=redis://…).")
        celery_app.conf.task_always_eager = False
        celery_app.conf.task_default_queue = f"vtt-test-{uuid.uuid4().hex[:8]}"
    yield request.param
    celery_app.conf.task_always_eager, celery_app.conf.task_default_queue = previous


def test_a_wake_ends_the_wait_at_once(layout):
    topic = f"t-{uuid.uuid4().hex}"
    with wakeups.awaiting(topic) as waiter:
        timer = wake_later(topic, 0.1)
        took, woken = timed(lambda: waiter.wait(3.0))
        timer.join()
    assert woken is True and 0.08 < took < 0.6, took


def test_a_wake_before_the_wait_is_not_lost(layout):
    topic = f"t-{uuid.uuid4().hex}"
    with wakeups.awaiting(topic) as waiter:
        wakeups.wake(topic)  # the task was faster than the request
        took, woken = timed(lambda: waiter.wait(3.0))
    assert woken is True and took < 0.3, took


def test_without_a_wake_the_wait_ends_at_its_bound_and_an_old_wake_does_not_count(layout):
    topic = f"t-{uuid.uuid4().hex}"
    wakeups.wake(topic)  # a wake nobody was armed for: an earlier write's
    with wakeups.awaiting(topic) as waiter:
        took, woken = timed(lambda: waiter.wait(0.3))
    assert woken is False and 0.25 < took < 1.2, took


def test_with_redis_away_the_wait_returns_at_once(settings):
    settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    previous = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = False
    try:
        topic = f"t-{uuid.uuid4().hex}"
        with wakeups.awaiting(topic) as waiter:
            wakeups.wake(topic)
            took, woken = timed(lambda: waiter.wait(3.0))
    finally:
        celery_app.conf.task_always_eager = previous
    assert woken is False and took < 1.0, took
