"""Sixteen annotators pull from one crowd queue at once, on PostgreSQL with real transactions.

Each thread has its own database connection; a barrier starts them together. Each takes an image,
draws on it, submits it and asks again until nothing is left for it: until the queue has answered
"nothing" three times in a row, since an image whose row another annotator holds locked for a moment is
skipped (SKIP LOCKED), and a "nothing" then only means "nothing free this instant". Every image must end with
exactly `overlap` submitted copies by different people, and every submit that was answered 200 must be
there: no image handed out more often than asked, none twice to one person, no submission lost.
"""

from __future__ import annotations

import threading
import time
from collections import Counter

import pytest
from django.db import connection
from rest_framework.test import APIClient

from accounts.roles import Role
from annotations.models import MemberRole
from crowd.models import Copy, CopyState
from crowd.services.settings import crowd_settings_update
from tests.crowd.conftest import drawing, person
from tests.factories import CollectionFactory, ImageFactory, MembershipFactory, UserFactory

THREADS = 16
OVERLAP = 3
IMAGES = 32

pytestmark = pytest.mark.skipif(connection.vendor != "postgresql", reason="needs PostgreSQL row locks")


def work_until_empty(collection_id: int, user, barrier: threading.Barrier, done: list, failures: list):
    client = APIClient()
    client.force_authenticate(user)
    empty = 0
    try:
        barrier.wait(timeout=60)
        while empty < 3:
            response = client.post(f"/api/v1/collections/{collection_id}/crowd/queue/next/")
            if response.status_code == 204:
                empty += 1
                time.sleep(0.05)
                continue
            empty = 0
            if response.status_code != 200:
                failures.append(response.content)
                break
            work = response.json()["id"]
            saved = client.put(
                f"/api/v1/crowd/work/{work}/annotation/", drawing(person(10 + len(done), 20)), format="json"
            )
            submitted = client.post(f"/api/v1/crowd/work/{work}/submit/")
            if saved.status_code != 200 or submitted.status_code != 200:
                failures.append((saved.content, submitted.content))
                break
            done.append(work)
    except threading.BrokenBarrierError:
        failures.append("a thread never reached the start")
    finally:
        connection.close()


@pytest.mark.django_db(transaction=True)
def test_sixteen_annotators_at_once_each_image_goes_to_overlap_different_people():
    collection = CollectionFactory()
    workers = [UserFactory(role=Role.ANNOTATOR) for _ in range(THREADS)]
    for user in workers:
        MembershipFactory(collection=collection, user=user, role=MemberRole.ANNOTATOR)
    crowd_settings_update(collection=collection, values={"overlap": OVERLAP, "gold_rate": 0})
    images = [ImageFactory(collection=collection).pk for _ in range(IMAGES)]
    barrier = threading.Barrier(THREADS)
    done: list[list[int]] = [[] for _ in range(THREADS)]
    failures: list = []
    threads = [
        threading.Thread(target=work_until_empty, args=(collection.pk, user, barrier, done[i], failures))
        for i, user in enumerate(workers)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=180)
    assert not failures
    submitted = Copy.objects.filter(state=CopyState.SUBMITTED)
    # No submission lost: every submit answered 200 is a submitted copy, with its drawing.
    assert sorted(submitted.values_list("pk", flat=True)) == sorted(pk for per in done for pk in per)
    assert all(len(c.document["objects"]) == 1 for c in submitted)
    per_image = Counter(submitted.values_list("image_id", flat=True))
    # No image handed out more often than asked, and every image got all its copies.
    assert per_image == dict.fromkeys(images, OVERLAP)
    # None twice to one person (the unique constraint makes it impossible; the count shows it held).
    pairs = Counter(submitted.values_list("image_id", "annotator_id"))
    assert max(pairs.values()) == 1
    assert not Copy.objects.exclude(state=CopyState.SUBMITTED).exists()
