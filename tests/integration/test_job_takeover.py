"""A job survives a dead worker: real workers on Redis and PostgreSQL, killed with SIGKILL mid-job.

The workers run with a short heartbeat and staleness (FAST) so a takeover happens within seconds; the
production defaults are in settings (JOB_*). Each killed job must finish exactly once, with the result an
undisturbed run gives, and a second delivery of a held or finished job must change nothing.
"""

from __future__ import annotations

import functools
import json
import os
import signal
import time
from collections.abc import Callable

import numpy as np
import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction

from annotations.models import Image, ObjectAnnotation, RelationshipAnnotation
from annotations.selectors.vocabularies import core_vocabulary
from datasets import tasks as dataset_tasks
from datasets.models import ImportJob
from datasets.services.creation import import_create
from datasets.services.run import import_run
from demo.synthetic.scenes import generate_scenes
from engine import bridge, services
from engine import tasks as engine_tasks
from engine.core.statistics import fit
from engine.files import statistics_read
from engine.models import FitStatus
from tests.factories import CollectionFactory
from tests.integration.conftest import publishing_to
from vtt_site import jobs
from vtt_site.job_model import JobStatus

pytestmark = pytest.mark.integration

FAST = {"JOB_HEARTBEAT_SECONDS": "0.5", "JOB_STALE_SECONDS": "3", "JOB_SWEEP_SECONDS": "1"}
TAKEOVER_LIMIT = 120  # seconds: what the issue allows after a worker is available again
SCENES = 2500  # validation ~1 s, writing ~3.5 s, fitting ~2 s on a quiet machine: a kill lands mid-phase


@functools.cache
def scenes() -> tuple[bytes, tuple[int, int, int]]:
    """The payload, and what importing it gives: images, objects, relationships."""
    generated = list(generate_scenes(SCENES, seed=61))
    payload = "".join(json.dumps(s) + "\n" for s in generated).encode()
    objects = sum(len(s["objects"]) for s in generated)
    relationships = sum(len(s.get("relationships", [])) for s in generated)
    return payload, (SCENES, objects, relationships)


def queue_import(collection, payload: bytes | None = None) -> ImportJob:
    with transaction.atomic():  # committed: the task is queued on commit, as in a request
        return import_create(
            collection=collection,
            format="jsonl",
            file=SimpleUploadedFile("s.jsonl", payload or scenes()[0]),
            mark_reviewed=True,
        )


def import_caught(start_worker, phase: Callable[[ImportJob], bool], what: str):
    """A fresh worker, and an import it runs, caught in the phase that `phase` recognises."""
    process, log = start_worker(**FAST)
    collection = CollectionFactory()
    job = queue_import(collection)
    watch(job, phase, 60, what, log)
    return process, log, collection, job


def writing(job: ImportJob) -> bool:
    return job.status == "writing"


def watch(row, condition: Callable, timeout: float, what: str, log=None):
    """Poll the row (finely: a kill must land inside a phase of a few seconds) until condition(row)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        row.refresh_from_db()
        if condition(row):
            return row
        time.sleep(0.05)
    tail = log.read_text()[-3000:] if log else ""
    pytest.fail(f"Timed out after {timeout:.0f} s waiting for {what} (status {row.status}).\n{tail}")


def holder_pid(job) -> int:
    return int(job.claimed_by.rsplit(":", 1)[1])


def finished(job) -> bool:
    return job.status in {job.done_status, JobStatus.FAILED}


def assert_imported_exactly_once(job: ImportJob, collection) -> None:
    assert job.status == "done", (job.message, job.errors[:3])
    images, objects, relationships = scenes()[1]
    assert (job.images_created, job.images_updated, job.lines_done) == (images, 0, images)
    assert Image.objects.filter(collection=collection).count() == images
    assert ObjectAnnotation.objects.filter(image__collection=collection).count() == objects
    assert RelationshipAnnotation.objects.filter(image__collection=collection).count() == relationships


def kill_and_take_over(job, pid: int, log) -> float:
    """SIGKILL the process; the seconds until another run claimed the job (its heartbeat went stale)."""
    claim = job.claim
    killed = time.monotonic()
    os.kill(pid, signal.SIGKILL)
    assert job.status in job.running_statuses
    watch(job, lambda j: j.claim != claim, TAKEOVER_LIMIT, "another run to take the job over", log)
    return time.monotonic() - killed


def test_an_import_whose_pool_process_dies_while_validating_is_taken_over_and_imported_once(
    start_worker,
):
    _, log, collection, job = import_caught(
        start_worker, lambda j: j.status == "validating" and j.lines_done > 0, "validation to start"
    )
    took = kill_and_take_over(job, holder_pid(job), log)
    watch(job, finished, TAKEOVER_LIMIT, "the import to finish", log)
    print(f"\nimport killed while validating: taken over after {took:.1f} s")
    assert job.attempts == 2
    assert_imported_exactly_once(job, collection)


def test_an_import_whose_pool_process_dies_while_writing_leaves_nothing_and_is_imported_once(
    start_worker,
):
    _, log, collection, job = import_caught(start_worker, writing, "the writing phase")
    took = kill_and_take_over(job, holder_pid(job), log)
    assert not Image.objects.filter(collection=collection).exists()  # the killed write left nothing
    watch(job, finished, TAKEOVER_LIMIT, "the import to finish", log)
    print(f"\nimport killed while writing: taken over after {took:.1f} s")
    assert job.attempts == 2
    assert_imported_exactly_once(job, collection)


def test_a_fit_whose_pool_process_dies_is_taken_over_and_fits_what_an_undisturbed_fit_gives(
    start_worker, settings
):
    collection = CollectionFactory()
    training = import_create(
        collection=collection,
        format="jsonl",
        file=SimpleUploadedFile("s.jsonl", scenes()[0]),
        mark_reviewed=True,
        start=False,
    )
    assert import_run(job_id=training.pk).status == "done"  # in this process: the training set
    _, log = start_worker(**FAST)
    with transaction.atomic():
        statistics = services.statistics_fit_start(user=None, collections=[collection])
    watch(statistics, lambda s: s.status == FitStatus.FITTING and s.progress > 0, 60, "fitting", log)
    # A second delivery while the worker holds the fit: nothing happens.
    claim = statistics.claim
    engine_tasks.fit_statistics.apply(args=[statistics.pk])
    statistics.refresh_from_db()
    assert (statistics.claim, statistics.attempts, statistics.status) == (claim, 1, FitStatus.FITTING)

    took = kill_and_take_over(statistics, holder_pid(statistics), log)
    watch(statistics, finished, TAKEOVER_LIMIT, "the fit to finish", log)
    print(f"\nfit killed while fitting: taken over after {took:.1f} s")
    assert (statistics.status, statistics.attempts) == (FitStatus.READY, 2), statistics.message
    vocabulary = core_vocabulary(collection.vocabulary)
    undisturbed = fit(
        vocabulary, bridge.scenes_of(statistics.training_images.values_list("pk", flat=True), vocabulary)
    )
    fitted = statistics_read(statistics.storage_name)
    for name in ("obj_attrs", "obj_vis"):
        assert np.array_equal(getattr(fitted, name), getattr(undisturbed, name)), name
    assert [
        n for n in default_storage.listdir("engine")[1] if n.startswith(f"statistics-{statistics.pk}-")
    ] == [statistics.file_name]
    # A delivery after it finished: nothing happens either.
    finished_at = statistics.finished_at
    engine_tasks.fit_statistics.apply(args=[statistics.pk])
    statistics.refresh_from_db()
    assert (statistics.finished_at, statistics.attempts) == (finished_at, 2)


def test_an_import_whose_whole_worker_dies_is_taken_over_by_a_fresh_worker(start_worker):
    first, log, collection, job = import_caught(start_worker, writing, "the writing phase")
    claim = job.claim
    # SIGKILL the main worker process, and with it its pool process and its beat (the machine died).
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    _, log = start_worker(**FAST)
    ready = time.monotonic()
    watch(job, lambda j: j.claim != claim, TAKEOVER_LIMIT, "the fresh worker to take the job over", log)
    took = time.monotonic() - ready
    watch(job, finished, TAKEOVER_LIMIT, "the import to finish", log)
    print(f"\nworker killed while writing: taken over {took:.1f} s after a fresh worker was ready")
    assert job.attempts == 2
    assert_imported_exactly_once(job, collection)


def test_a_second_delivery_while_a_live_worker_holds_an_import_does_nothing(start_worker):
    _, log, collection, job = import_caught(start_worker, writing, "the writing phase")
    claim = job.claim
    dataset_tasks.import_run.apply(args=[job.pk])  # the same task, delivered again, run here
    job.refresh_from_db()
    assert (job.claim, job.attempts, job.status) == (claim, 1, "writing")
    watch(job, finished, 120, "the import to finish", log)
    assert job.attempts == 1
    assert_imported_exactly_once(job, collection)


def test_an_import_committed_while_the_broker_is_down_waits_visibly_and_runs_when_it_is_back(
    start_worker,
):
    collection = CollectionFactory()
    payload = "".join(json.dumps(s) + "\n" for s in generate_scenes(30, seed=62)).encode()
    with publishing_to("redis://127.0.0.1:1/0"):  # a port nobody listens on
        started = time.monotonic()
        job = queue_import(collection, payload)  # the request is not failed by the broker
        assert time.monotonic() - started < 10
    job.refresh_from_db()
    assert (job.status, job.enqueued_at, job.message) == ("queued", None, jobs.NOT_QUEUED)
    _, log = start_worker(**FAST)  # the broker and a worker are back: the sweeper queues it
    watch(job, finished, TAKEOVER_LIMIT, "the import to run", log)
    assert (job.status, job.images_created, job.attempts, job.message) == ("done", 30, 1, "")
    assert job.enqueued_at is not None
