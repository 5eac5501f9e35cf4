"""Celery tasks of the truthing app: take ids, call one service, own the retry policy."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="truthing.stream_propose", acks_late=True, autoretry_for=(ConnectionError,), max_retries=5)
def stream_propose(stream_id: int) -> None:
    """Propose the next question of a stream. Idempotent: a second delivery finds the step there."""
    from truthing.services.streams import stream_propose as propose

    propose(stream_id=stream_id)


@shared_task(name="truthing.truth_automatically", acks_late=True)
def truth_automatically(job_id: int) -> None:
    """No automatic retry: the job mechanism takes over a job whose worker died."""
    from truthing.services.automatic import truth_automatically as run

    run(job_id=job_id)


@shared_task(name="truthing.streams_sweep", acks_late=False)
def streams_sweep() -> int:
    """Queue again the proposals of streams that waited for the engine too long (beat, like the jobs')."""
    from truthing.services.streams import streams_sweep as sweep

    return sweep()


@shared_task(name="truthing.test_audit", acks_late=True)
def test_audit(job_id: int) -> None:
    """No automatic retry: the job mechanism takes over a job whose worker died."""
    from truthing.services.audit import test_audit_run

    test_audit_run(job_id=job_id)
