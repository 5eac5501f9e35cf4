"""Tasks run in a real Celery worker process on Redis, and their results land in PostgreSQL."""

from __future__ import annotations

import json

import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction

from annotations.models import Image
from datasets.services.creation import import_create
from demo.synthetic.scenes import generate_scenes
from engine import services
from engine.models import FitStatus, FittedStatistics
from tests.factories import CollectionFactory
from tests.integration.conftest import wait_for

pytestmark = pytest.mark.integration


def test_an_import_and_a_fit_run_in_the_worker(celery_worker):
    collection = CollectionFactory()
    payload = "".join(json.dumps(s) + "\n" for s in generate_scenes(80, seed=51)).encode()
    with transaction.atomic():
        job = import_create(
            collection=collection,
            format="jsonl",
            file=SimpleUploadedFile("s.jsonl", payload),
            mark_reviewed=True,
        )
    job = wait_for(
        lambda: (job.refresh_from_db() or job.status in {"done", "failed"}) and job,
        60,
        "the import task",
        celery_worker,
    )
    assert job.status == "done", job.errors
    assert Image.objects.filter(collection=collection).count() == 80

    with transaction.atomic():
        statistics = services.statistics_fit_start(user=None, collections=[collection])
    # Not run in this process, which would have returned with the fit done; the worker may have begun.
    assert FittedStatistics.objects.get(pk=statistics.pk).status in {FitStatus.QUEUED, FitStatus.FITTING}

    def finished():
        statistics.refresh_from_db()
        return statistics.status in {FitStatus.READY, FitStatus.FAILED}

    wait_for(finished, 90, "the fit task", celery_worker)
    assert statistics.status == FitStatus.READY, statistics.message
    assert statistics.n_images == 80 and default_storage.exists(statistics.storage_name)
    log = celery_worker.read_text()
    assert "engine.tasks.fit_statistics" in log and "succeeded" in log
