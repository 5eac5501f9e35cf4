"""Real concurrent clients on PostgreSQL: two annotators never get the same image.

Eight threads, each with its own database connection, ask for the next image at the same moment (a
barrier starts every round together), submit it and ask again, until the queue is empty. Every image
must be handed out exactly once.
"""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from accounts.roles import Role
from annotations.models import Image, Stage
from annotations.services.queues import annotation_next
from tests.factories import CollectionFactory, ImageFactory, MembershipFactory, UserFactory

THREADS = 8
IMAGES = THREADS * 12

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL row locks")


def annotate_until_empty(
    collection_id: int, user, barrier: threading.Barrier, taken: list[int], failures: list
):
    client = APIClient()
    client.force_authenticate(user)
    try:
        while True:
            barrier.wait(timeout=30)
            response = client.post(f"/api/v1/collections/{collection_id}/queue/annotation/next/")
            if response.status_code == 204:
                break
            if response.status_code != 200:
                failures.append(response.content)
                break
            image_id = response.json()["image"]["id"]
            taken.append(image_id)
            submitted = client.post(f"/api/v1/images/{image_id}/submit/")
            if submitted.status_code != 200:
                failures.append(submitted.content)
                break
    except threading.BrokenBarrierError:
        pass  # another thread found the queue empty first and stopped waiting
    finally:
        barrier.abort()  # let the others finish their last round without us
        connection.close()


@pytest.mark.django_db(transaction=True)
def test_concurrent_annotators_never_get_the_same_image():
    collection = CollectionFactory()
    annotators = [UserFactory(role=Role.ANNOTATOR) for _ in range(THREADS)]
    for user in annotators:
        MembershipFactory(collection=collection, user=user)
    for _ in range(IMAGES):
        ImageFactory(collection=collection)
    barrier = threading.Barrier(THREADS)
    taken: list[list[int]] = [[] for _ in range(THREADS)]
    failures: list = []
    threads = [
        threading.Thread(target=annotate_until_empty, args=(collection.pk, user, barrier, taken[i], failures))
        for i, user in enumerate(annotators)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not failures
    handed_out = Counter(image_id for per_thread in taken for image_id in per_thread)
    assert [image_id for image_id, count in handed_out.items() if count > 1] == []
    # Skipping locked rows never makes a client miss a free image: every round each of the eight
    # takes one, so all of them were handed out, by every thread.
    assert len(handed_out) == IMAGES
    assert [len(per_thread) for per_thread in taken] == [IMAGES // THREADS] * THREADS
    assert Image.objects.filter(stage=Stage.REVIEW).count() == IMAGES


@pytest.mark.django_db
def test_the_queue_takes_rows_with_skip_locked():
    collection = CollectionFactory()
    user = UserFactory(role=Role.ANNOTATOR)
    ImageFactory(collection=collection)
    with CaptureQueriesContext(connection) as queries:
        assert annotation_next(collection=collection, user=user) is not None
    assert any("FOR UPDATE SKIP LOCKED" in query["sql"] for query in queries.captured_queries)
