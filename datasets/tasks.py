"""Celery tasks of the dataset app: take ids, call one service, safe to run twice."""

from __future__ import annotations

from celery import shared_task

from datasets.queues import IMPORT_RUN
from datasets.services.run import import_run as run


@shared_task(name=IMPORT_RUN.name, acks_late=True)
def import_run(job_id: int) -> None:
    """No automatic retry: a failed import says why on its row, and a worker that dies is replaced by the
    job sweeper's takeover (vtt_site.jobs); a second delivery finds the job held or finished."""
    run(job_id=job_id)
