"""Just-in-time truthing with real workers on Redis and PostgreSQL (issue 8): the next question is
proposed by a Celery task queued when the answer commits. Killing the worker around a proposal (the
task queued, taken or running) must not lose or double a step: after a fresh worker starts, the stream
continues with the question an uninterrupted stream would have had."""

from __future__ import annotations

import os
import signal
import time

import pytest
from django.db import transaction

from accounts.roles import Role
from annotations.models import Split
from demo.synthetic.scenes import generate_scenes
from engine import services as engine_services
from tests.django_fixtures import import_scenes, import_test_scenes
from tests.factories import CollectionFactory, UserFactory
from tests.truthing.conftest import operator_of
from truthing import bridge
from truthing import tasks as truthing_tasks
from truthing.models import StreamState
from truthing.services import lifecycle
from truthing.services.queue import operator_next
from truthing.services.streams import step_answer

pytestmark = pytest.mark.integration

FAST = {"JOB_HEARTBEAT_SECONDS": "0.5", "JOB_STALE_SECONDS": "3", "JOB_SWEEP_SECONDS": "1"}


def wait_until_proposed(stream, timeout, log):
    """Until the engine proposed (the stream is pending) or found nothing more (ended)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        stream.refresh_from_db()
        if stream.state != StreamState.PROPOSING:
            return stream
        time.sleep(0.05)
    pytest.fail(f"stream still proposing after {timeout} s\n{log.read_text()[-3000:]}")


def taken_stream(operator, timeout, log):
    """The operator's next stream once one is free: a stream the proposer is working on is locked, and
    the queue skips it (with two proposer processes, both streams of a two-image test can be)."""
    deadline = time.monotonic() + timeout
    while (work := operator_next(user=operator)) is None:
        if time.monotonic() > deadline:
            pytest.fail(f"no stream for the operator after {timeout} s\n{log.read_text()[-3000:]}")
        time.sleep(0.05)
    return work


def an_operator_test(log):
    collection = CollectionFactory()
    import_scenes(collection, generate_scenes(300, seed=81))
    import_test_scenes(collection, generate_scenes(2, seed=82, prefix="blind"), mark_reviewed=False)
    with transaction.atomic():
        statistics = engine_services.statistics_fit_start(user=None, collections=[collection])
    deadline = time.monotonic() + 120  # the worker fits it
    while statistics.status != "ready" and time.monotonic() < deadline:
        time.sleep(0.2)
        statistics.refresh_from_db()
    assert statistics.status == "ready", (statistics.message, log.read_text()[-2000:])
    images = collection.images.filter(split=Split.TEST).order_by("pk")
    test = lifecycle.create_test(
        name="worker test",
        statistics=statistics,
        image_ids=[i.pk for i in images],
        settings={"min_population": 10, "max_questions": 15},
        seed=3,
    )
    return test


def test_killing_the_worker_around_a_proposal_loses_nothing_and_doubles_nothing(start_worker):
    process, log = start_worker(**FAST)
    test = an_operator_test(log)
    with transaction.atomic():
        lifecycle.start_test(test=test)
    operator = operator_of(test.test_images.first().image.collection, UserFactory(role=Role.OPERATOR))
    stream = wait_until_proposed(taken_stream(operator, 60, log), 60, log)
    kills = 0
    while stream.state == StreamState.PENDING and kills < 6:
        step = stream.steps.get(answer="")
        with transaction.atomic():
            step_answer(
                stream_id=stream.pk, user=operator, index=step.index, answer="yes" if kills % 2 else "no"
            )
        # The proposal task is now queued, taken or running: kill the whole worker (pool and beat). Its
        # message may be lost with it (taken, not acknowledged): the streams sweeper of the fresh
        # worker queues the proposal again once the stream has waited JOB_STALE_SECONDS.
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        kills += 1
        process, log = start_worker(**FAST)
        stream = wait_until_proposed(stream, 60, log)
    assert kills == 6
    steps = list(stream.steps.order_by("index"))
    assert [s.index for s in steps] == list(range(len(steps))), "no step doubled, none missing"
    assert len([s for s in steps if s.answer]) == kills
    # Each question is the one the uninterrupted stream would have had.
    for k, step in enumerate(steps):
        again = bridge.propose(stream.test_image, stream.number, steps[:k])
        assert again is not None and again.question == step.question, k
    # A second delivery of the proposal changes nothing.
    truthing_tasks.stream_propose.apply(args=[stream.pk])
    assert stream.steps.count() == len(steps)
