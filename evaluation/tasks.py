"""Celery tasks of the evaluation app: take ids, call one service, own the retry policy."""

from __future__ import annotations

from celery import shared_task


@shared_task(name="evaluation.score_session", acks_late=True, autoretry_for=(ConnectionError,), max_retries=5)
def score_session(session_id: int) -> None:
    """Score a session that ended. Idempotent: a second delivery stores the same figures."""
    from evaluation.services.scores import score_store

    score_store(session_id=session_id)


@shared_task(name="evaluation.sessions_expire_due", acks_late=False)
def sessions_expire_due() -> int:
    """Close the sessions whose test's deadline has passed (beat, every
    EVALUATION_DEADLINE_SWEEP_SECONDS). A lost run is made good by the next one."""
    from evaluation.services.sessions import sessions_expire_due as run

    return run()


@shared_task(name="evaluation.scores_missing_queue", acks_late=False)
def scores_missing_queue() -> int:
    """Queue the scoring of ended sessions that have none after a grace period: their scoring task was
    lost (beat, every EVALUATION_DEADLINE_SWEEP_SECONDS)."""
    from evaluation.services.sessions import scores_missing_queue as run

    return run()
