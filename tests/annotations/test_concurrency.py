"""Real concurrent clients on PostgreSQL: two people never get the same image, in either queue.

Sixteen threads, each with its own database connection, ask for the next image at the same moment (a
barrier starts every round together), finish it (submit, or accept) and ask again, until the queue is
empty. Every image must be handed out exactly once. Both queues take their images through the one lease
mechanism (vtt_site.leases), which is what this exercises.
"""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from accounts.roles import Role
from annotations.models import Image, MemberRole, Stage
from annotations.services.queues import annotation_next
from tests.factories import CollectionFactory, ImageFactory, MembershipFactory, UserFactory

THREADS = 16
IMAGES = THREADS * 12

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL row locks")


QUEUES = {
    # queue: (role, stage the images wait in, how the worker finishes one)
    "annotation": (
        Role.ANNOTATOR,
        Stage.ANNOTATE,
        lambda client, pk: client.post(f"/api/v1/images/{pk}/submit/"),
    ),
    "review": (
        Role.REVIEWER,
        Stage.REVIEW,
        lambda client, pk: client.post(f"/api/v1/images/{pk}/review/", {"decision": "accept"}, format="json"),
    ),
}


def work_until_empty(
    queue: str, collection_id: int, user, barrier: threading.Barrier, taken: list[int], failures: list
):
    client = APIClient()
    client.force_authenticate(user)
    finish = QUEUES[queue][2]
    try:
        while True:
            barrier.wait(timeout=30)
            response = client.post(f"/api/v1/collections/{collection_id}/queue/{queue}/next/")
            if response.status_code == 204:
                break
            if response.status_code != 200:
                failures.append(response.content)
                break
            image_id = response.json()["image"]["id"]
            taken.append(image_id)
            submitted = finish(client, image_id)
            if submitted.status_code != 200:
                failures.append(submitted.content)
                break
    except threading.BrokenBarrierError:
        pass  # another thread found the queue empty first and stopped waiting
    finally:
        barrier.abort()  # let the others finish their last round without us
        connection.close()


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("queue", sorted(QUEUES))
def test_concurrent_workers_never_get_the_same_image(queue):
    role, stage, _ = QUEUES[queue]
    collection = CollectionFactory()
    workers = [UserFactory(role=role) for _ in range(THREADS)]
    for user in workers:  # decision 0006: the membership role is the role one acts in there
        MembershipFactory(collection=collection, user=user, role=MemberRole(role.value))
    for _ in range(IMAGES):
        ImageFactory(collection=collection, stage=stage)
    barrier = threading.Barrier(THREADS)
    taken: list[list[int]] = [[] for _ in range(THREADS)]
    failures: list = []
    threads = [
        threading.Thread(
            target=work_until_empty, args=(queue, collection.pk, user, barrier, taken[i], failures)
        )
        for i, user in enumerate(workers)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not failures
    handed_out = Counter(image_id for per_thread in taken for image_id in per_thread)
    assert [image_id for image_id, count in handed_out.items() if count > 1] == []
    # Skipping locked rows never makes a client miss a free image: every round each of the sixteen
    # takes one, so all of them were handed out, by every thread.
    assert len(handed_out) == IMAGES
    assert [len(per_thread) for per_thread in taken] == [IMAGES // THREADS] * THREADS
    assert not Image.objects.filter(stage=stage).exists()


@pytest.mark.django_db
def test_the_queue_takes_rows_with_skip_locked():
    collection = CollectionFactory()
    user = UserFactory(role=Role.ANNOTATOR)
    ImageFactory(collection=collection)
    with CaptureQueriesContext(connection) as queries:
        assert annotation_next(collection=collection, user=user) is not None
    assert any("FOR UPDATE SKIP LOCKED" in query["sql"] for query in queries.captured_queries)
