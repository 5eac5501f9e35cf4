"""Celery tasks of the truthing app: take ids, call one service, own the retry policy."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="truthing.stream_propose", acks_late=True, autoretry_for=(ConnectionError,), max_retries=5)
def stream_propose(stream_id: int) -> None:
    """Propose the next question of a stream. Idempotent: a second delivery finds the step there."""
    from truthing.services.streams import stream_propose as propose

    propose(stream_id=stream_id)


@shared_task(name="truthing.truth_automatically", acks_late=True)
def truth_automatically(test_id: int) -> None:
    from truthing.services.automatic import truth_automatically as run

    run(test_id=test_id)
