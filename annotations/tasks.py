"""Celery tasks of the annotation app: take ids, call one service, safe to run twice."""

from __future__ import annotations

from celery import shared_task


@shared_task(acks_late=True)
def import_run(job_id: int) -> None:
    # Imported here: the services start this task, so importing them at module level would be circular.
    from annotations.services.imports import import_run as run

    run(job_id=job_id)
