"""The sweeps that find the jobs needing a worker and queue them again (vtt_site.jobs sends them).

A job may be left without a worker: its worker died (its heartbeat went stale: `vtt_site.job_liveness`),
its message never reached the broker or was lost there (a Redis restart), or, under `make run`, the web
process whose thread ran it stopped. `job_sweep` (the periodic task `vtt_site.tasks.jobs_sweep`) and
`job_resume_orphans` (once, when a web process of `make run` starts) queue such jobs again; queuing
one too many is harmless, as the claim decides who runs a job (docs/jobs.md).
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.apps import apps
from django.conf import settings
from django.db import models
from django.utils import timezone

from vtt_site.broker import broker_lost_messages
from vtt_site.job_liveness import holder_alive, stale_running_pks
from vtt_site.job_model import Job, JobStatus
from vtt_site.jobs import job_send

logger = logging.getLogger(__name__)


def job_sweep() -> int:
    """Queue again every job that needs a worker and may have none; the number queued.

    A running job whose holder is gone (`vtt_site.job_liveness.stale_running_pks`: again a staleness
    period after the last try, if the takeover has not happened yet), a queued job that never reached
    the broker, and a queued job whose message may be lost: every queued job when the broker lost its messages since the
    last sweep (a Redis restart: `broker_lost_messages`), else those handed over longer than
    `JOB_REQUEUE_SECONDS` ago (a message lost some other way). Queuing one too many is harmless: the
    extra delivery finds the job claimed or done.
    """
    now = timezone.now()
    stale = now - timedelta(seconds=settings.JOB_STALE_SECONDS)
    forgotten = now if broker_lost_messages() else now - timedelta(seconds=settings.JOB_REQUEUE_SECONDS)
    sent = 0
    for model in job_models():
        queued_due = models.Q(
            status=JobStatus.QUEUED, enqueued_at__isnull=True, created_at__lt=stale
        ) | models.Q(status=JobStatus.QUEUED, enqueued_at__lt=forgotten)
        queued = model._default_manager.filter(queued_due).values_list("pk", flat=True)
        for pk in sorted({*stale_running_pks(model, now), *queued}):
            logger.info("Job sweeper: queuing %s %s again", model.__name__, pk)
            sent += job_send(model, pk)
    return sent


def job_resume_orphans() -> int:
    """Queue again the jobs a previous web process left behind; the number queued. For TASKS_IN_THREADS
    (make run), called once when the web process starts: there a job runs in a thread of the web
    process, which dies with it, and without a broker no sweeper takes it over. A job is resumed when it
    is queued, or running under a process of this host that no longer exists; the claim decides, as ever.
    """
    sent = 0
    for model in job_models():
        for pk, status, holder in model._default_manager.filter(model.unfinished_rows()).values_list(
            "pk", "status", "claimed_by"
        ):
            if status != JobStatus.QUEUED and holder_alive(holder):
                continue
            model._default_manager.filter(pk=pk, status=status, claimed_by=holder).update(
                status=JobStatus.QUEUED, claim=None
            )
            logger.info("Resuming %s %s, left by a web process that stopped", model.__name__, pk)
            sent += job_send(model, pk)
    return sent


def job_models() -> list[type[Job]]:
    """Every concrete job model of every app: the sweeps cover a new one with nothing more."""
    return [model for model in apps.get_models() if issubclass(model, Job)]
