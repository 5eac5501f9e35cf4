"""Celery tasks of the annotation app: take ids, call one service, safe to run twice."""

from __future__ import annotations

from celery import shared_task

from annotations.queues import PREANNOTATE_RUN, SUGGESTIONS_FETCH
from annotations.services.preannotation import preannotation_run
from annotations.services.suggestions import suggestions_prefetch


@shared_task(name=PREANNOTATE_RUN.name, acks_late=True)
def preannotate_run(job_id: int) -> None:
    """As an import (datasets.tasks): no automatic retry; the job sweeper takes over a job whose worker
    died."""
    preannotation_run(job_id=job_id)


@shared_task(name=SUGGESTIONS_FETCH.name, acks_late=True)
def suggestions_fetch(image_id: int) -> None:
    """No retry: if it fails, the annotator's page asks when the image is opened."""
    suggestions_prefetch(image_id=image_id)
