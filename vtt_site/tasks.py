"""Celery tasks of the site itself: the job sweeper, sent by the beat (`celery beat`) and run by the proposer."""

from __future__ import annotations

from celery import shared_task

from vtt_site.queues import JOBS_SWEEP


@shared_task(name=JOBS_SWEEP.name, acks_late=False)
def jobs_sweep() -> int:
    """Queue again the jobs that lost their worker or never reached the broker (vtt_site.jobs)."""
    from vtt_site.job_sweep import job_sweep  # the models behind it are ready only once Django is set up

    return job_sweep()
