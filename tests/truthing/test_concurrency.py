"""Sixteen operators at once on real PostgreSQL connections (issue 8): they ask for work and answer at the
same moment, round after round, until every stream has ended. No stream is leased to two of them, no
step is answered twice, no answer that got a 200 is lost, and every stream replays without
contradiction to the same questions."""

from __future__ import annotations

import threading
from collections import defaultdict

import pytest
from django.db import connection
from rest_framework.test import APIClient

from engine.core.story import Story
from tests.parallel import ONE_AT_A_TIME
from tests.truthing.conftest import operator_of
from truthing import bridge
from truthing.models import Step, Stream, StreamState
from truthing.services import lifecycle

OPERATORS = 16

pytestmark = [
    ONE_AT_A_TIME,  # sixteen threads in barrier-started rounds: not beside processes being started
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL row locks"),
    pytest.mark.django_db(transaction=True),
]


def operate(user, barrier, record, failures, test):
    client = APIClient()
    client.force_authenticate(user)
    try:
        while True:
            barrier.wait(timeout=60)
            if not Stream.objects.filter(test_image__test=test).exclude(state=StreamState.ENDED).exists():
                break
            taken = client.post("/api/v1/truthing/queue/next/")
            if taken.status_code == 204:
                continue  # every free stream is held: wait for the next round
            work = taken.json()
            if taken.status_code != 200 or work["kind"] != "stream":
                failures.append(("take", taken.status_code, taken.content[:200]))
                break
            record["held"][work["id"]].add(user.pk)
            pending = work["pending"]
            if pending is None:  # the engine is at work on it (another thread's answer just committed)
                continue
            answer = "yes" if (pending["step"] + user.pk) % 3 == 0 else "no"
            answered = client.post(
                f"/api/v1/truthing/streams/{work['id']}/answer/",
                {"step": pending["step"], "answer": answer},
                format="json",
            )
            if answered.status_code == 200:
                record["answers"].append((work["id"], pending["step"], answer, user.pk))
            else:
                failures.append(("answer", answered.status_code, answered.content[:200]))
    except threading.BrokenBarrierError:
        pass
    finally:
        barrier.abort()
        connection.close()


def test_sixteen_operators_truth_a_test_together(
    make_test, unannotated_test_images, make_user, settings, trained_collection
):
    from accounts.roles import Role

    settings.TRUTHING_CHECK_SHARE = 0.0
    test = lifecycle.start_test(test=make_test(unannotated_test_images, streams_per_image=7))
    operators = [
        operator_of(trained_collection, make_user(Role.OPERATOR, username=f"operator-{i}"))
        for i in range(OPERATORS)
    ]
    record = {"held": defaultdict(set), "answers": []}
    failures: list = []
    # Rounds: every operator asks for work and answers at the same moment, until every stream has ended.
    barrier = threading.Barrier(OPERATORS)
    threads = [threading.Thread(target=operate, args=(u, barrier, record, failures, test)) for u in operators]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=600)
    assert failures == []
    streams = list(
        Stream.objects.filter(test_image__test=test).select_related("test_image__image", "test_image__test")
    )
    assert len(streams) == 21 and all(s.state == StreamState.ENDED for s in streams)
    # An operator keeps a stream until it ends: nobody else ever held it.
    assert {stream: holders for stream, holders in record["held"].items() if len(holders) > 1} == {}
    stored = {
        (s.stream_id, s.index): (s.answer, s.answered_by_id) for s in Step.objects.filter(stream__in=streams)
    }
    assert len(record["answers"]) == len(stored), "every stored answer got exactly one 200"
    for stream_id, index, answer, user_id in record["answers"]:
        assert stored[(stream_id, index)] == (answer, user_id)
    for stream in streams:
        steps = list(stream.steps.order_by("index"))
        assert [s.index for s in steps] == list(range(len(steps)))
        stats = bridge.statistics_of(stream.test_image.test)
        story = Story(stats.vocabulary)
        for k, (question, answer) in enumerate(bridge.history_of(stats, stream.test_image, steps)):
            again = bridge.propose(stream.test_image, stream.number, steps[:k])
            assert again is not None and again.question == steps[k].question
            assert str(story.record(question, answer) or "") == steps[k].label
