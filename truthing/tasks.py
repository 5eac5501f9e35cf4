"""Celery tasks of the truthing app: take ids, call one service, own the retry policy.

Each is named once, in truthing/queues.py, where services queue it from (vtt_site.queueing): this
module imports the services and no service imports it.
"""

from __future__ import annotations

from celery import shared_task

from truthing import queues
from truthing.published import dealing
from truthing.services import audit, automatic, proposals
from vtt_site.interactive import proposal_done


@shared_task(name=queues.STREAM_PROPOSE.name, acks_late=True, autoretry_for=(ConnectionError,), max_retries=5)
def stream_propose(stream_id: int) -> None:
    """Propose the next question of a stream. Idempotent: a second delivery finds the step there."""
    try:
        proposals.stream_propose(stream_id=stream_id)
    finally:
        proposal_done(stream_id)  # committed (or failed): long jobs need not give way to it any more


@shared_task(name=queues.AUTOMATIC_TRUTHING_RUN.name, acks_late=True)
def automatic_truthing_run(job_id: int) -> None:
    """No automatic retry: the job mechanism takes over a job whose worker died."""
    automatic.automatic_truthing_run(job_id=job_id)


@shared_task(name=queues.STREAMS_SWEEP.name, acks_late=False)
def streams_sweep() -> int:
    """Queue again the proposals of streams that waited for the engine too long (beat, like the jobs')."""
    return proposals.streams_sweep()


@shared_task(name=queues.AUDIT_RUN.name, acks_late=True)
def audit_run(job_id: int) -> None:
    """No automatic retry: the job mechanism takes over a job whose worker died."""
    audit.audit_run(job_id=job_id)


@shared_task(name=queues.DEAL_RUN.name, acks_late=True)
def deal_run(job_id: int) -> None:
    """Generate a session's fresh streams. No automatic retry: the job mechanism takes over a job whose
    worker died."""
    dealing.deal_run(job_id=job_id)


@shared_task(name=queues.DEAL_HELP.name, acks_late=True)
def deal_help(deal_id: int, claim: str) -> int:
    """Deal a session's fresh streams beside its deal's run, under that run's claim. No retry: the deal's
    own run deals whatever a helper leaves."""
    return dealing.deal_help(deal_id=deal_id, claim=claim)
