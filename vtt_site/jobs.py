"""Background jobs: the one set of helpers every job of every app is queued and run with.

A job is a row (an import, a fit, an automatic truthing, a deal...) and a Celery task that takes its
id. The row (`vtt_site.job_model.Job`, with the lifecycle of its status, `JobStatus`) says where the job
is for a person (`status`, `progress`, `message`) and, for the machinery, who holds it and whether
that holder is alive:

- `job_enqueue` hands the task to the broker once the request's transaction commits. A broker that
  cannot be reached does not fail the request: the row stays queued with no `enqueued_at` and a message
  that says so, and the sweeper queues it again.
- `job_run` claims the row under a row lock (a queued job, or a running one whose holder is gone: its
  heartbeat is older than `JOB_STALE_SECONDS`, or under `make run` its process ended:
  `vtt_site.job_liveness`), keeps its `heartbeat_at` fresh from a thread with its own
  database connection while the work runs, and settles it. Every write of the holder (`job_progress`,
  `job_finish`, `job_fail`) is conditional on its claim token, so a presumed-dead holder that wakes up
  after a takeover changes nothing (`JobLost`), and a job finishes exactly once. Work that must be all
  or nothing calls `job_finish` inside its own transaction.
- `job_wait` parks a held job until a person decides (an import showing what it would change): the
  job holds no worker and no claim, and no sweep touches it. `job_resume` queues it again with the
  person's decision, `job_cancel` ends it; both change only a job still waiting, so two decisions at
  once cannot both be taken.
- `job_restart` makes a settled job (an audit, a ranking check) queued again for a run from the start.
- `job_sweep` (a periodic task, `vtt_site.tasks.jobs_sweep`; `vtt_site.job_sweep`) queues again the
  jobs whose heartbeat went stale and the queued jobs that never reached the broker, or whose message
  was lost.

A job whose run loses the database (a restart, a connection cut: `vtt_site.database`) is queued again
with a message that says so, and does not count as an attempt; if even that cannot be written, the
sweeper takes the job over once its heartbeat is stale, as for a worker that died.

A job taken over `JOB_MAX_ATTEMPTS` times (a job that kills its worker each time, or outlives the task
time limit) fails with a message instead of being tried for ever.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any, TypeVar

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import models, transaction
from django.utils import timezone

from vtt_site.database import DATABASE_ERRORS, RETRY_AFTER_SECONDS, connections_drop
from vtt_site.errors import ConflictError, SiteErrorCode
from vtt_site.job_liveness import heartbeat_while_held, holder_name, job_stale, lost_holder_message
from vtt_site.job_model import Job, JobStatus
from vtt_site.storage import RETRY_AFTER_SECONDS as STORAGE_RETRY_AFTER_SECONDS
from vtt_site.storage import STORAGE_ERRORS, storage_error_kind, storage_unavailable

logger = logging.getLogger(__name__)

STORE_LOST = (
    "Queued again: the file store could not be reached while this job ran; it starts over once a worker "
    "takes it again."
)
DATABASE_LOST = (
    "Queued again: the database could not be reached for a moment while this job ran; it starts over "
    "as soon as a worker takes it."
)
NOT_QUEUED = (
    "Waiting: the task queue could not be reached when this job was created; it is queued again as soon "
    "as the queue and a worker are back."
)


J = TypeVar("J", bound=Job)
# The helpers reach a job's rows through `_default_manager`, Django's name for the manager of a model
# known only as a class (every job model has one manager, `objects`): an abstract model has no
# `objects` to type-check against.


class JobLost(Exception):
    """The caller no longer holds the job: it was taken over (presumed dead) or settled."""


class JobFailed(Exception):
    """Raised by a job's work: the job fails with this message for a person (and these field values)."""

    def __init__(self, message: str, **values: Any) -> None:
        super().__init__(message)
        self.message, self.values = message, values


# --- Queuing -----------------------------------------------------------------------------------------------


def job_limit_check(model: type[Job], *, user: Any, what: str) -> None:
    """Refuse a new job of `model` (409 `too_many_jobs`) while `user` has `JOBS_MAX_PER_USER` of them
    queued or running, so that nobody fills the workers for everyone else. Call it in the transaction
    that creates the job: the user's row is locked, so two requests at once cannot both pass the count.
    """
    if user is None or not getattr(user, "pk", None):
        return
    limit = settings.JOBS_MAX_PER_USER
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()
    unfinished = model._default_manager.filter(created_by=user).filter(model.unfinished_rows())
    if unfinished.count() >= limit:
        raise ConflictError(
            SiteErrorCode.TOO_MANY_JOBS,
            f"You already have {limit} {what} waiting or running; start this one when one of them has "
            "finished. Nothing was changed.",
        )


def job_enqueue(job: Job) -> None:
    """Queue the job's task once the current transaction commits (at once outside one)."""
    _enqueue(type(job), job.pk)


def job_restart(job: Job, **values: Any) -> None:
    """Make a job queued again for a run from the start, with `values` (what its work starts from), and
    save it; nothing of its last run is kept, and a run still holding it loses it (`JobLost`: its claim
    is gone). The caller holds the row's lock and sends the job with `job_enqueue`."""
    job.status, job.progress, job.message, job.attempts = JobStatus.QUEUED, 0.0, "", 0
    job.enqueued_at = job.started_at = job.heartbeat_at = job.finished_at = job.claim = None
    for name, value in values.items():
        setattr(job, name, value)
    job.save()


def _enqueue(model: type[Job], pk: int) -> None:
    transaction.on_commit(lambda: job_send(model, pk))


def job_send(model: type[Job], pk: int) -> bool:
    """Hand the job's task to the broker now; when it cannot, mark the job for the sweeper (False)."""
    model._default_manager.filter(pk=pk).update(enqueued_at=timezone.now())
    model._default_manager.filter(pk=pk, status=JobStatus.QUEUED, message=NOT_QUEUED).update(message="")
    if model.task.send(pk, what=f"{model.__name__} {pk}"):
        return True
    model._default_manager.filter(pk=pk, status=JobStatus.QUEUED).update(enqueued_at=None, message=NOT_QUEUED)
    return False


# --- Running -----------------------------------------------------------------------------------------------


def job_run(
    model: type[J],
    pk: int,
    work: Callable[[J], None],
    *,
    reset: dict[str, Any] | None = None,
    unexpected: JobFailed | None = None,
) -> J | None:
    """Claim the job, run `work(job)` with a heartbeat, and settle it; None when there was nothing to do.

    `work` reports with `job_progress` and ends with `job_finish` (or raises `JobFailed`). `reset` are
    the values a claim gives the row besides the common ones (what a run that died may have left);
    `unexpected` how the job fails on any other exception (the exception itself goes to the log).
    """
    unexpected = unexpected or JobFailed("The job failed on the server (the error is logged).")
    try:
        job = job_claim(model, pk, reset=reset or {})
    except DATABASE_ERRORS as exc:
        _claim_later(model, pk, exc)
        return None
    if job is None:
        return None
    with job_heartbeat(job):
        try:
            work(job)
        except JobLost:
            logger.warning("%s %s was taken over by another run; this run stops.", model.__name__, pk)
        except JobFailed as exc:
            _fail_if_held(job, exc.message, **exc.values)
        except DATABASE_ERRORS as exc:
            _requeue_after_database_error(job, exc)
        except STORAGE_ERRORS as exc:
            if not storage_unavailable(exc):
                logger.exception("%s %s failed", model.__name__, pk)
                _fail_if_held(job, unexpected.message, **unexpected.values)
            else:
                _requeue_after_storage_error(job, exc)
        except SoftTimeLimitExceeded:
            minutes = settings.CELERY_TASK_SOFT_TIME_LIMIT / 60
            _fail_if_held(job, f"The job ran past the time limit of {minutes:.0f} minutes and was stopped.")
        except Exception:
            logger.exception("%s %s failed", model.__name__, pk)
            _fail_if_held(job, unexpected.message, **unexpected.values)
    return job


def _claim_later(model: type[Job], pk: int, exc: Exception) -> None:
    """The database was out when the job was to be claimed: the row is as it was (queued), so its task is
    sent again in a few seconds (not here and now in eager mode, where that would run it again at once)."""
    from vtt_site.celery import app

    logger.warning("%s %s could not be claimed, the database is unavailable (%s)", model.__name__, pk, exc)
    connections_drop()
    if not app.conf.task_always_eager:
        model.task.send(pk, what=f"{model.__name__} {pk}", countdown=RETRY_AFTER_SECONDS)


def _requeue_after_database_error(job: Job, exc: Exception, waits: tuple[float, ...] = (0, 1, 2, 4)) -> None:
    """The run lost the database: give the job back (queued, its claim dropped, the attempt not counted,
    a message saying why) and queue it again, trying for a few seconds while the database comes back.
    If it does not, the job stays running under this claim until its heartbeat is stale and the sweeper
    takes it over."""
    name = f"{type(job).__name__} {job.pk}"
    logger.warning("%s lost the database (%s); it is queued again", name, exc)
    for wait in waits:
        time.sleep(wait)
        connections_drop()
        try:
            given_back = _give_back(job, DATABASE_LOST)
            if given_back:
                job_send(type(job), job.pk)
            return
        except DATABASE_ERRORS:
            continue
    logger.warning("%s: the database is still unavailable; the sweeper takes the job over later", name)


def _requeue_after_storage_error(job: Job, exc: Exception) -> None:
    """The run lost the file store (down or too slow): give the job back as the database's loss does
    (queued, the attempt not counted) and send it again in a few seconds; in eager mode, where that
    would run it again at once, the sweeper sends it later."""
    from vtt_site.celery import app

    name = f"{type(job).__name__} {job.pk}"
    logger.warning("%s lost the file store (%s); it is queued again", name, storage_error_kind(exc))
    given_back = _give_back(job, STORE_LOST)
    if given_back and not app.conf.task_always_eager:
        type(job).task.send(job.pk, what=name, countdown=STORAGE_RETRY_AFTER_SECONDS)


def _give_back(job: Job, message: str) -> int:
    """The job queued again, its claim dropped and this attempt not counted (1), or nothing (0) when
    this run no longer holds it."""
    return _held_rows(job).update(
        status=JobStatus.QUEUED,
        claim=None,
        heartbeat_at=None,
        attempts=models.F("attempts") - 1,
        message=message,
    )


def job_claim(model: type[J], pk: int, *, reset: dict[str, Any]) -> J | None:
    """Take the job if it is queued, or running with a stale heartbeat; None otherwise.

    SKIP LOCKED: a row locked right now belongs to a live run settling it (or to a concurrent claim), so
    there is nothing for this run to do.
    """
    now = timezone.now()
    with transaction.atomic():
        job = model._default_manager.select_for_update(skip_locked=True).filter(pk=pk).first()
        if job is None:
            return None
        if job.running and not job_stale(job, now):
            logger.info("%s %s is held by %s; nothing to do.", model.__name__, pk, job.claimed_by)
            return None
        if job.status != JobStatus.QUEUED and not job.running:
            return None  # done or failed
        if job.attempts >= settings.JOB_MAX_ATTEMPTS:
            job.status, job.finished_at, job.claim = JobStatus.FAILED, now, None
            job.message = lost_holder_message(job.attempts)
            job.save(update_fields=["status", "finished_at", "claim", "message"])
            return None
        job.status, job.progress, job.message = model.running_statuses[0], 0.0, ""
        job.started_at = job.heartbeat_at = now
        job.claim, job.claimed_by, job.attempts = uuid.uuid4(), holder_name(), job.attempts + 1
        for name, value in reset.items():
            setattr(job, name, value)
        job.save(
            update_fields=[
                "status",
                "progress",
                "message",
                "started_at",
                "heartbeat_at",
                "claim",
                "claimed_by",
                "attempts",
                *reset,
            ]
        )
    return job


def job_progress(job: Job, **values: Any) -> None:
    """Record progress (any fields of the row) and refresh the heartbeat; `JobLost` if no longer held.

    Committed at once when called outside a transaction, so a client polling the job sees it.
    """
    _update_held(job, heartbeat_at=timezone.now(), **values)


def job_finish(job: Job, **values: Any) -> None:
    """The job is done. Call it inside the transaction of the result: `JobLost` rolls the result back."""
    now = timezone.now()
    _update_held(job, status=job.done_status, progress=1.0, finished_at=now, heartbeat_at=now, **values)


def job_wait(job: Job, status: str, message: str, **values: Any) -> None:
    """The job stops in `status` (one that is neither queued nor running) until a person decides:
    `message` says what it waits for. Its claim is dropped, so neither the sweeper nor a takeover runs
    it again; only `job_resume` or `job_cancel` moves it on."""
    if status == JobStatus.QUEUED or status in job.running_statuses:
        raise ValueError(f"{status!r} is not a status a job waits in")
    _update_held(job, status=status, message=message, claim=None, heartbeat_at=timezone.now(), **values)


def job_resume(model: type[Job], pk: int, *, waiting: str, **values: Any) -> bool:
    """Queue again a job that waits in `waiting`, with `values` (the person's decision); False when it
    does not wait there (any more). A fresh start: it runs from the beginning, as a new job would, and
    the takeovers of its earlier runs no longer count against it."""
    resumed = model._default_manager.filter(pk=pk, status=waiting).update(
        status=JobStatus.QUEUED, message="", progress=0.0, attempts=0, enqueued_at=None, **values
    )
    if resumed:
        _enqueue(model, pk)
    return bool(resumed)


def job_cancel(model: type[Job], pk: int, *, waiting: str, message: str) -> bool:
    """End a job that waits in `waiting` without running it further; False when it does not wait there."""
    return bool(
        model._default_manager.filter(pk=pk, status=waiting).update(
            status=JobStatus.CANCELLED, message=message, finished_at=timezone.now()
        )
    )


def job_fail(job: Job, message: str, **values: Any) -> None:
    """The job failed; `message` tells a person what happened and what to do."""
    now = timezone.now()
    _update_held(job, status=JobStatus.FAILED, message=message, finished_at=now, heartbeat_at=now, **values)


def _update_held(job: Job, **values: Any) -> None:
    """One conditional UPDATE: it changes the row only while the caller's claim is the row's claim."""
    if not _held_rows(job).update(**values):
        raise JobLost
    for name, value in values.items():
        setattr(job, name, value)


def _held_rows(job: Job) -> models.QuerySet:
    return type(job)._default_manager.filter(pk=job.pk, claim=job.claim, status__in=job.running_statuses)


def _fail_if_held(job: Job, message: str, **values: Any) -> None:
    try:
        job_fail(job, message, **values)
    except JobLost:
        logger.warning("%s %s failed after it was taken over; the other run settles it.", type(job), job.pk)


def job_heartbeat(job: Job) -> AbstractContextManager[None]:
    """Keep the held job's heartbeat fresh while the work runs (vtt_site.job_liveness)."""
    return heartbeat_while_held(job, _held_rows(job))
