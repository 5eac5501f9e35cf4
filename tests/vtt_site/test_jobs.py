"""The job mechanism (vtt_site.jobs) on the database, through the import and the fit that use it.

The same mechanisms with real worker processes that get killed: tests/integration/test_job_takeover.py.
"""

from __future__ import annotations

import json
import time
from datetime import timedelta

import pytest
from django.core.files.storage import default_storage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection, transaction
from django.utils import timezone
from kombu.exceptions import OperationalError

from annotations.models import Image, ObjectAnnotation
from annotations.selectors.vocabularies import vocabulary_index
from datasets.formats import ReadContext, scene_format
from datasets.models import ImportJob
from datasets.services import writing
from datasets.services.creation import import_create
from datasets.services.run import import_run
from demo.synthetic.scenes import generate_scenes
from engine import services
from engine.models import FitStatus, FittedStatistics
from kernel.scene import parse_scene
from tests.factories import CollectionFactory
from tests.parallel import ONE_AT_A_TIME
from vtt_site import job_sweep, jobs
from vtt_site.celery import app as celery_app


def queued_import(collection, count=6, start=False, created_by=None) -> ImportJob:
    payload = "".join(json.dumps(s) + "\n" for s in generate_scenes(count, seed=7)).encode()
    return import_create(
        collection=collection,
        format="jsonl",
        file=SimpleUploadedFile("s.jsonl", payload),
        mark_reviewed=True,
        start=start,
        created_by=created_by,
    )


def claimed(job: ImportJob) -> ImportJob:
    """The job as a worker holds it right now (a live holder: fresh heartbeat)."""
    held = jobs.job_claim(ImportJob, job.pk, reset={})
    assert held is not None
    return held


@pytest.fixture
def collection(db):
    return CollectionFactory()


def test_a_second_delivery_while_a_live_worker_holds_the_job_does_nothing(collection):
    holder = claimed(queued_import(collection))
    again = import_run(job_id=holder.pk)
    assert (again.status, again.claim, again.attempts) == ("validating", holder.claim, 1)
    assert not Image.objects.exists()


def test_a_job_whose_heartbeat_is_stale_is_taken_over_and_the_old_holder_changes_nothing(
    collection, settings
):
    holder = claimed(queued_import(collection))
    ImportJob.objects.filter(pk=holder.pk).update(
        heartbeat_at=timezone.now() - timedelta(seconds=settings.JOB_STALE_SECONDS + 1)
    )
    job = import_run(job_id=holder.pk)
    assert (job.status, job.attempts, job.images_created) == ("done", 2, 6)
    # The presumed-dead holder wakes up: none of its writes lands, whatever it tries.
    with pytest.raises(jobs.JobLost):
        jobs.job_progress(holder, lines_done=1)
    with pytest.raises(jobs.JobLost):
        jobs.job_fail(holder, "late")
    index = vocabulary_index(job.collection.vocabulary)
    with job.file.open("rb") as handle:
        reading = scene_format(job.format).read(handle, ReadContext(vocabulary=index.core))
        scenes = [parse_scene(record.data, index.core) for record in reading.items]
    written = list(ObjectAnnotation.objects.order_by("pk").values_list("pk", flat=True))
    with pytest.raises(jobs.JobLost):  # its whole write transaction is rolled back
        writing.write(holder, scenes, index)
    assert Image.objects.count() == 6
    assert list(ObjectAnnotation.objects.order_by("pk").values_list("pk", flat=True)) == written
    assert ImportJob.objects.get(pk=job.pk).status == "done"


def test_a_job_that_keeps_losing_its_worker_fails_with_a_message(collection, settings):
    job = queued_import(collection)
    ImportJob.objects.filter(pk=job.pk).update(
        status="writing", attempts=settings.JOB_MAX_ATTEMPTS, heartbeat_at=None
    )
    job = import_run(job_id=job.pk)
    assert job.status == "failed" and "stopped reporting 3 times" in job.message
    assert "no heartbeat for 45 s" in job.message and "time limit of 30 minutes" in job.message
    assert not Image.objects.exists()


def test_without_heartbeats_a_running_job_is_taken_over_only_once_its_process_has_ended(
    collection, settings, monkeypatch
):
    """Where nothing refreshes the heartbeat (SQLite under `make run`: vtt_site.job_liveness), the age of a
    claim says nothing: a long job of a live process is neither swept nor taken over, however old its
    claim; one whose process has ended is, and a job that keeps losing it says so, not that it was
    killed or ran out of memory."""
    import socket
    import subprocess

    settings.JOB_HEARTBEAT_SECONDS = 0
    long_ago = timezone.now() - timedelta(hours=1)
    holder = claimed(queued_import(collection))
    ImportJob.objects.filter(pk=holder.pk).update(heartbeat_at=long_ago, enqueued_at=long_ago)
    sent = []
    monkeypatch.setattr(job_sweep, "job_send", lambda model, pk: sent.append(pk) or True)
    assert job_sweep.job_sweep() == 0 and sent == []
    assert import_run(job_id=holder.pk).attempts == 1  # a late delivery leaves it to its live holder

    ended = subprocess.Popen(["true"])
    ended.wait()
    ImportJob.objects.filter(pk=holder.pk).update(claimed_by=f"{socket.gethostname()}:{ended.pid}")
    assert job_sweep.job_sweep() == 1 and sent == [holder.pk]
    job = import_run(job_id=holder.pk)
    assert (job.status, job.attempts) == ("done", 2)

    gone = queued_import(collection)
    ImportJob.objects.filter(pk=gone.pk).update(
        status="writing", attempts=settings.JOB_MAX_ATTEMPTS, claimed_by=f"{socket.gethostname()}:{ended.pid}"
    )
    gone = import_run(job_id=gone.pk)
    assert gone.status == "failed"
    assert gone.message.startswith(
        "The server process running this job stopped 3 times before the job finished"
    )


def test_a_fit_run_twice_fits_once_and_a_lost_fit_leaves_no_file(trained_collection, settings):
    statistics = services.statistics_fit_start(user=None, collections=[trained_collection])
    holder = jobs.job_claim(FittedStatistics, statistics.pk, reset={})
    assert services.statistics_fit_run(statistics_id=statistics.pk) is None  # held: nothing to do
    FittedStatistics.objects.filter(pk=statistics.pk).update(heartbeat_at=None)
    done = services.statistics_fit_run(statistics_id=statistics.pk)
    assert (done.status, done.attempts) == (FitStatus.READY, 2)
    with pytest.raises(jobs.JobLost):
        services._fit(holder)
    assert sorted(default_storage.listdir("engine")[1]) == [done.file_name]


def test_a_job_the_broker_did_not_take_waits_with_a_message_and_the_sweeper_queues_it(
    collection, monkeypatch, settings, django_capture_on_commit_callbacks
):
    celery_app.loader.import_default_modules()
    task = celery_app.tasks[ImportJob.task.name]

    def broker_down(*args, **kwargs):
        raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(task, "delay", broker_down)
    with django_capture_on_commit_callbacks(execute=True):
        job = queued_import(collection, start=True)
    job.refresh_from_db()  # the request went through; the job says why it waits
    assert (job.status, job.enqueued_at, job.message) == ("queued", None, jobs.NOT_QUEUED)
    monkeypatch.undo()
    assert job_sweep.job_sweep() == 0  # too young: its request may still be committing
    ImportJob.objects.filter(pk=job.pk).update(
        created_at=timezone.now() - timedelta(seconds=settings.JOB_STALE_SECONDS + 1)
    )
    assert job_sweep.job_sweep() == 1  # eager here: the sweep ran it
    job.refresh_from_db()
    assert (job.status, job.message, job.images_created) == ("done", "", 6)
    assert job.enqueued_at is not None


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor == "sqlite", reason="SQLite has no heartbeat: one writer at a time")
@ONE_AT_A_TIME  # the heartbeat's thread must tick within 0.5 s
def test_the_heartbeat_is_refreshed_from_its_own_connection_while_the_work_runs(settings):
    settings.JOB_HEARTBEAT_SECONDS = 0.05
    job = claimed(queued_import(CollectionFactory()))
    with transaction.atomic():  # a long write transaction of the work: the heartbeat goes on beside it
        with jobs.job_heartbeat(job):
            first = ImportJob.objects.get(pk=job.pk).heartbeat_at
            time.sleep(0.5)
        assert ImportJob.objects.get(pk=job.pk).heartbeat_at > first


def test_a_task_is_sent_through_its_declaration_which_says_whether_it_reached_the_broker_and_never_raises(
    monkeypatch,
):
    from vtt_site import queueing
    from vtt_site.celery import app
    from vtt_site.queues import JOBS_SWEEP

    app.loader.import_default_modules()  # (Celery's Django fixup sets logging up again: caplog loses it)
    warnings = []
    monkeypatch.setattr(queueing.logger, "warning", lambda message, *args: warnings.append(message % args))
    task = app.tasks[JOBS_SWEEP.name]
    sent = []
    monkeypatch.setattr(task, "delay", lambda *args: sent.append(args))
    assert JOBS_SWEEP.send(7, what="the thing 7") is True
    assert sent == [(7,)]

    def refused(*args) -> None:
        raise OperationalError("connection refused")

    monkeypatch.setattr(task, "delay", refused)
    assert JOBS_SWEEP.send(8, what="the thing 8") is False
    assert warnings == ["Could not queue the thing 8 (connection refused); it will be queued again later."]


def test_a_redis_restart_has_every_queued_job_sent_again_at_the_next_sweep(collection, settings, monkeypatch):
    """The marker the sweeper leaves in the broker's database is gone after a restart without
    persistence: the next sweep sends every queued job again, not only those older than
    JOB_REQUEUE_SECONDS; the sweep after it does not."""
    import redis

    if not settings.REDIS_URL:
        pytest.skip("needs Redis (make test sets REDIS_URL)")
    settings.CELERY_TASK_DEFAULT_QUEUE = f"marker-test-{time.monotonic_ns()}"  # a marker of its own
    marker = f"vtt:broker-marker:{settings.CELERY_TASK_DEFAULT_QUEUE}"
    sent: list[int] = []
    monkeypatch.setattr(job_sweep, "job_send", lambda model, pk: sent.append(pk) or True)
    job = queued_import(collection)
    ImportJob.objects.filter(pk=job.pk).update(enqueued_at=timezone.now())  # its message is in Redis
    client = redis.Redis.from_url(settings.REDIS_URL)
    try:
        job_sweep.job_sweep()  # the first sweep ever finds no marker either: one harmless extra message
        sent.clear()
        assert job_sweep.job_sweep() == 0 and sent == []  # marker there: the message is trusted
        client.delete(marker)  # what a restart of a Redis without persistence does
        assert job_sweep.job_sweep() == 1 and sent == [job.pk]
        assert job_sweep.job_sweep() == 0  # reported once
    finally:
        client.delete(marker)
        client.close()


def test_a_user_may_have_only_so_many_imports_and_fits_waiting_or_running(collection, settings):
    from accounts.roles import Role
    from tests.factories import UserFactory
    from vtt_site.errors import ConflictError

    settings.JOBS_MAX_PER_USER = 2
    user, other = UserFactory(role=Role.ADMIN), UserFactory(role=Role.ADMIN)

    def an_import(by):
        return queued_import(collection, count=3, created_by=by)

    first, _ = an_import(user), an_import(user)
    with pytest.raises(ConflictError) as refused:
        an_import(user)
    assert refused.value.code == "too_many_jobs" and "2 imports" in refused.value.message
    assert ImportJob.objects.filter(created_by=user).count() == 2  # nothing written
    an_import(other)  # others are not held up
    import_run(job_id=first.pk)  # one finished: room for another
    an_import(user)

    for _ in range(2):
        FittedStatistics.objects.create(vocabulary=collection.vocabulary, created_by=user)
    with pytest.raises(ConflictError):
        services.statistics_fit_start(user=user, collections=[collection])


def test_a_job_left_by_a_stopped_web_process_is_resumed_when_the_next_one_starts(
    collection, settings, monkeypatch
):
    """make run (TASKS_IN_THREADS): a job runs in a thread of the web process and dies with it; the next
    web process queues it again. A job held by a live process is left alone."""
    import os
    import socket
    import subprocess

    dead = subprocess.Popen(["true"])
    dead.wait()
    orphan, alive, waiting = (queued_import(collection, count=2) for _ in range(3))
    for job, pid in ((orphan, dead.pid), (alive, os.getpid())):
        holder = claimed(job)
        ImportJob.objects.filter(pk=holder.pk).update(claimed_by=f"{socket.gethostname()}:{pid}")
    sent = []
    monkeypatch.setattr(job_sweep, "job_send", lambda model, pk: sent.append(pk) or True)
    assert job_sweep.job_resume_orphans() == 2
    assert sorted(sent) == sorted([orphan.pk, waiting.pk])
    orphan.refresh_from_db()
    alive.refresh_from_db()
    assert orphan.status == "queued" and orphan.claim is None
    assert alive.status == "validating"


def test_a_job_waiting_for_a_person_holds_no_worker_and_moves_on_once(
    collection, settings, monkeypatch, django_capture_on_commit_callbacks
):
    """`job_wait` parks a held job (an import showing its plan, decision 0071): no sweep, no new web
    process and no late delivery runs it; `job_resume` or `job_cancel` moves it on, once."""
    holder = claimed(queued_import(collection))
    with pytest.raises(ValueError):
        jobs.job_wait(holder, "validating", "A running status is no place to wait.")
    jobs.job_wait(holder, ImportJob.Status.PREVIEWED, "Choose.", plan={"created": 6})
    job = ImportJob.objects.get(pk=holder.pk)
    assert (job.status, job.claim, job.message, job.plan, job.finished_at) == (
        "previewed",
        None,
        "Choose.",
        {"created": 6},
        None,
    )
    with pytest.raises(jobs.JobLost):  # the parked run writes nothing more
        jobs.job_progress(holder, lines_done=1)
    long_ago = timezone.now() - timedelta(seconds=settings.JOB_STALE_SECONDS + settings.JOB_REQUEUE_SECONDS)
    ImportJob.objects.filter(pk=job.pk).update(
        heartbeat_at=long_ago, created_at=long_ago, enqueued_at=long_ago
    )
    sent = []
    for sending in (jobs, job_sweep):
        monkeypatch.setattr(sending, "job_send", lambda model, pk: sent.append(pk) or True)
    assert (job_sweep.job_sweep(), job_sweep.job_resume_orphans(), sent) == (0, 0, [])
    assert import_run(job_id=job.pk).status == "previewed"
    with django_capture_on_commit_callbacks(execute=True):
        assert jobs.job_resume(ImportJob, job.pk, waiting="previewed", accepted="keep")
    assert not jobs.job_resume(ImportJob, job.pk, waiting="previewed", accepted="replace")
    assert not jobs.job_cancel(ImportJob, job.pk, waiting="previewed", message="Too late.")
    job.refresh_from_db()
    assert (job.status, job.accepted, job.attempts, job.message, sent) == ("queued", "keep", 0, "", [job.pk])
