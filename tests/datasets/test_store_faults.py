"""Issue 49, item 6: a store that is down or slow changes nothing. Uploads and imports are a 503 that
says to retry and leaves no row; a job that loses the store is queued again without counting the
attempt and finishes once the store is back; the store's secret is in no response and no log line."""

from __future__ import annotations

import logging
import socket
import threading

import pytest

from annotations.models import Image
from datasets.models import ImportJob
from datasets.services.creation import import_create
from datasets.services.run import import_run
from tests.annotations.images import image_bytes, upload
from tests.datasets.test_import_export import scenes_text
from tests.storage_fixtures import SECRET_KEY, bucket_options
from vtt_site.jobs import STORE_LOST

pytestmark = pytest.mark.django_db


@pytest.fixture
def silent_server():
    """An address that accepts connections and never answers: a store too slow to wait for."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.getsockname()[1]}"
    stop.set()
    thread.join()
    for connection in accepted:
        connection.close()
    server.close()


@pytest.fixture(params=["down", "slow"])
def broken_store(request, settings, bucket):
    """The default storage pointed at a store that refuses connections, or at one that never answers
    (after a timeout of half a second)."""
    endpoint = "http://127.0.0.1:1" if request.param == "down" else request.getfixturevalue("silent_server")
    settings.STORAGES = {
        **settings.STORAGES,
        "default": bucket_options(bucket, endpoint_url=endpoint, timeout=0.5),
    }
    return request.param


def assert_unavailable(response, caplog) -> None:
    assert response.status_code == 503, response.content
    body = response.json()
    assert body["code"] == "service_unavailable" and "file store" in body["message"]
    assert response["Retry-After"] == "5"
    assert SECRET_KEY not in response.content.decode() and SECRET_KEY not in caplog.text
    assert "botocore" not in body["message"] and "127.0.0.1" not in body["message"]


def test_an_upload_to_a_store_that_is_down_or_slow_is_a_503_that_stores_nothing(
    broken_store, api, annotator, collection, caplog
):
    caplog.set_level(logging.DEBUG)
    response = api.as_user(annotator).post(
        f"/api/v1/collections/{collection.pk}/images/",
        {"files": [upload("street.png", image_bytes("PNG", size=(32, 24)))], "split": "train"},
        format="multipart",
    )
    assert_unavailable(response, caplog)
    assert not Image.objects.exists()


def test_an_import_to_a_store_that_is_down_or_slow_is_a_503_that_queues_nothing(
    broken_store, api, reviewer, collection, caplog
):
    caplog.set_level(logging.DEBUG)
    response = api.as_user(reviewer).post(
        f"/api/v1/collections/{collection.pk}/imports/",
        {"file": upload("scenes.jsonl", scenes_text(2).encode()), "format": "jsonl"},
        format="multipart",
    )
    assert_unavailable(response, caplog)
    assert not ImportJob.objects.exists()


def test_a_job_that_loses_the_store_is_queued_again_and_finishes_once_it_is_back(
    bucket, settings, collection, caplog
):
    from django.core.files.base import ContentFile

    job = import_create(
        collection=collection,
        format="jsonl",
        file=ContentFile(scenes_text(3).encode(), "s.jsonl"),
        start=False,
    )
    reachable = settings.STORAGES
    settings.STORAGES = {**reachable, "default": bucket_options(bucket, endpoint_url="http://127.0.0.1:1")}
    import_run(job_id=job.pk)
    job.refresh_from_db()
    assert (job.status, job.attempts, job.claim, job.message) == ("queued", 0, None, STORE_LOST)
    assert not collection.images.exists()
    assert SECRET_KEY not in caplog.text
    settings.STORAGES = reachable
    import_run(job_id=job.pk)
    job.refresh_from_db()
    assert (job.status, job.attempts, job.lines_done) == ("done", 1, 3)
    assert collection.images.count() == 3


def test_a_page_whose_store_is_down_is_the_try_again_page(broken_store, client, users, collection):
    from accounts.roles import Role

    client.force_login(users[Role.ANNOTATOR])
    client.raise_request_exception = False  # the site's handler500 answers, as in production
    response = client.post(
        f"/collections/{collection.pk}/upload/",
        {"files": [upload("street.png", image_bytes("PNG", size=(32, 24)))], "split": "train"},
    )
    assert response.status_code == 503 and response["Retry-After"] == "5"
    page = response.content.decode()
    assert "cannot reach its file store" in page and SECRET_KEY not in page and "botocore" not in page
    assert not Image.objects.exists()
