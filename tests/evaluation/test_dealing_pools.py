"""Dealing from pools (issue 18): a test whose images are truthed by operators holds a pool of streams per
image; eight enrolments at once (threads, each with its own PostgreSQL connection) each get one stream
per image, the least dealt so far, never a stream dealt to another system of the same owner while the
pool has another. Exposure counts are exact because dealing locks the pools' rows."""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from django.db import connection
from django.utils import timezone

from accounts.roles import Role
from evaluation.models import Session
from evaluation.selectors.plans import plan_of
from evaluation.services.sessions import session_enrol
from evaluation.services.systems import system_create
from tests.evaluation.conftest import build_test, question
from truthing.models import DealtStream, Step, Stream
from truthing.published.pools import pool_exposure

POOL = 3
IMAGES = 4
OWNERS, SYSTEMS_EACH = 4, 2


def pooled_test():
    """A published test of IMAGES images, each with a pool of POOL streams (one step each)."""
    test = build_test([[("exist", "yes")]] * IMAGES, name="pooled")
    for test_image in test.test_images.all():
        for number in range(1, POOL):
            stream = Stream.objects.create(test_image=test_image, number=number, state="ended")
            Step.objects.create(
                stream=stream,
                index=0,
                question=question("exist"),
                text=f"pool {number}",
                p=0.5,
                population=30,
                answer="no",
                automatic=False,
                answered_at=timezone.now(),
            )
    return test


def enrol_all(systems, test_id):
    barrier = threading.Barrier(len(systems))
    errors: list[BaseException] = []

    def run(system) -> None:
        try:
            barrier.wait()
            session_enrol(system=system, test_id=test_id)
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=run, args=(system,)) for system in systems]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors, errors


@pytest.mark.django_db(transaction=True)
def test_eight_enrolments_at_once_deal_each_the_least_dealt_stream_and_never_twice_to_an_owner(make_user):
    test = pooled_test()
    owners = [make_user(Role.VISION_SYSTEM_OWNER, username=f"owner{i}") for i in range(OWNERS)]
    systems = [system_create(owner=o, name=f"system {j}") for o in owners for j in range(SYSTEMS_EACH)]
    enrol_all(systems, test.pk)

    sessions = list(Session.objects.filter(test_id=test.pk).select_related("system"))
    assert len(sessions) == OWNERS * SYSTEMS_EACH
    dealt: dict[int, dict[int, int]] = {}  # session -> {test image: stream}
    for session in sessions:
        rows = DealtStream.objects.filter(deal_id=session.deal_id)
        dealt[session.pk] = dict(rows.values_list("test_image_id", "stream_id"))
        assert len(dealt[session.pk]) == rows.count() == IMAGES  # one stream per image
        assert len(plan_of(session).streams) == IMAGES
    for test_image in test.test_images.all():
        pool = list(Stream.objects.filter(test_image=test_image).values_list("pk", flat=True))
        counts = Counter(d[test_image.pk] for d in dealt.values())
        # Least dealt first: eight deals over a pool of three are 3, 3 and 2, never 4 or 1.
        assert sorted(counts[s] for s in pool) == [2, 3, 3]
        assert pool_exposure(pool) == counts  # the exposure the test card shows is exact
        for owner in owners:
            mine = [dealt[s.pk][test_image.pk] for s in sessions if s.system.owner_id == owner.pk]
            assert len(set(mine)) == len(mine), "a stream was dealt twice to one owner"
