"""The service supervises itself (issue 22, item 5): under `make serve` the web, the workers and the beat
are separate processes, each started again when it dies, and exactly one beat ever sends the sweeps."""

from __future__ import annotations

import json
import os
import signal
import time
import urllib.error
import urllib.request
from datetime import timedelta

import psutil
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from datasets.models import ImportJob
from datasets.services.creation import import_create
from demo.synthetic.scenes import generate_scenes
from tests.factories import CollectionFactory
from tests.integration.conftest import wait_for
from tests.integration.test_job_takeover import FAST, queue_import
from tests.parallel import ONE_SERVED_AT_A_TIME
from vtt_site import jobs

pytestmark = [pytest.mark.integration, ONE_SERVED_AT_A_TIME]

SUPERVISED = {**FAST, "BEAT_LOCK_SECONDS": "5"}
SENT = "Sending due task"


def status_of(base: str, path: str) -> int:
    """The HTTP status, or 0 when the site did not answer at all (refused, reset, timed out)."""
    try:
        with urllib.request.urlopen(base + path, timeout=5) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return 0


def ready(served) -> None:
    wait_for(lambda: status_of(served.base, "/readyz") == 200, 120, "/readyz to answer 200", served.log)


def scenes(seed: int) -> bytes:
    return "".join(json.dumps(s) + "\n" for s in generate_scenes(20, seed=seed)).encode()


def done(job) -> bool:
    job.refresh_from_db()
    return job.status in {"done", "failed"}


def long_job_worker(served) -> psutil.Process | None:
    """The main process of the worker that takes the long jobs' queue (with the others, or alone)."""
    queue = served.env["CELERY_QUEUE"]
    for process in served.main_processes("worker"):
        arguments = ",".join(process.cmdline()).split(",")
        if queue in arguments and "-B" not in arguments:
            return process
    return None


def test_a_killed_worker_is_started_again_while_the_site_keeps_answering(serve):
    served = serve(**SUPERVISED)
    ready(served)
    worker = wait_for(lambda: long_job_worker(served), 60, "the worker for long jobs", served.log)

    worker.send_signal(signal.SIGKILL)
    killed = time.monotonic()
    answers = []
    until = time.monotonic() + 15
    while time.monotonic() < until:
        answers.append(status_of(served.base, "/healthz"))
        time.sleep(0.25)
    assert set(answers) == {200}, f"the site stopped answering when the worker died: {answers}"

    wait_for(
        lambda: (found := long_job_worker(served)) and found.pid != worker.pid,
        60,
        "a new worker for the long jobs",
        served.log,
    )
    job = queue_import(CollectionFactory(), scenes(seed=71))
    wait_for(lambda: done(job), 90, "the new worker to run an import", served.log)
    assert (job.status, job.images_created) == ("done", 20), job.message
    print(
        f"\nworker killed: {answers.count(200)}/{len(answers)} health checks answered 200 in 15 s; "
        f"an import queued then was done {time.monotonic() - killed:.1f} s after the kill"
    )


def test_a_killed_beat_leaves_no_orphan_and_a_new_one_takes_over_the_sweeps(serve):
    served = serve(**SUPERVISED)
    ready(served)
    wait_for(lambda: served.log.read_text().count(SENT) >= 2, 60, "the beat to send sweeps", served.log)
    # `celery beat`, or a worker that embeds one (`--beat`)
    beat = wait_for(lambda: served.main_processes("beat"), 60, "the beat", served.log)[0]
    descendants = beat.children(recursive=True)

    os.kill(beat.pid, signal.SIGKILL)
    killed = time.monotonic()
    _, orphans = psutil.wait_procs(descendants, timeout=10)
    assert not orphans, f"the killed beat left {[' '.join(p.cmdline()) for p in orphans]} running"

    wait_for(
        lambda: (found := served.main_processes("beat")) and found[0].pid != beat.pid,
        60,
        "a new beat",
        served.log,
    )
    # The sweeps go on: a job that never reached the broker is queued by the new beat's sweeper.
    job = import_create(
        collection=CollectionFactory(),
        format="jsonl",
        file=SimpleUploadedFile("s.jsonl", scenes(seed=72)),
        mark_reviewed=True,
        start=False,
    )
    ImportJob.objects.filter(pk=job.pk).update(
        message=jobs.NOT_QUEUED, created_at=timezone.now() - timedelta(minutes=5)
    )
    wait_for(lambda: done(job), 90, "the new beat's sweep to queue the job", served.log)
    assert job.status == "done", job.message
    print(
        f"\nbeat killed: no orphan; a job only a sweep could queue was done {time.monotonic() - killed:.1f} s later"
    )


def test_a_second_beat_sends_nothing_while_the_first_holds_the_lock_then_takes_over(start_beat):
    first, first_log = start_beat(**SUPERVISED)
    wait_for(lambda: SENT in first_log.read_text(), 60, "the first beat to send", first_log)
    _, second_log = start_beat(**SUPERVISED)
    wait_for(lambda: "is starting." in second_log.read_text(), 60, "the second beat to start", second_log)
    sent_before = first_log.read_text().count(SENT)
    time.sleep(6)  # six sweep periods
    assert first_log.read_text().count(SENT) > sent_before, "the first beat goes on sending"
    assert SENT not in second_log.read_text(), "a second beat sent sweeps while the first held the lock"

    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    killed = time.monotonic()
    wait_for(lambda: SENT in second_log.read_text(), 30, "the second beat to take over", second_log)
    print(f"\nsecond beat took over {time.monotonic() - killed:.1f} s after the first was killed")
