"""Celery tasks of the evaluation app: take ids, call one service, own the retry policy.

Each is named once, in evaluation/queues.py, where services queue it from (vtt_site.queueing): this
module imports the services and no service imports it.
"""

from __future__ import annotations

from celery import shared_task

from evaluation import queues
from evaluation.services import degradation, scores, sessions


@shared_task(name=queues.SCORE_SESSION.name, acks_late=True, autoretry_for=(ConnectionError,), max_retries=5)
def score_session(session_id: int) -> None:
    """Score a session that ended. Idempotent: a second delivery stores the same figures."""
    scores.score_store(session_id=session_id)


@shared_task(name=queues.SESSIONS_EXPIRE_DUE.name, acks_late=False)
def sessions_expire_due() -> int:
    """Close the sessions whose test's deadline has passed (beat, every
    EVALUATION_DEADLINE_SWEEP_SECONDS). A lost run is made good by the next one."""
    return sessions.sessions_expire_due()


@shared_task(name=queues.SCORES_DUE_QUEUE.name, acks_late=False)
def scores_due_queue() -> int:
    """Queue the scoring of ended sessions whose score is missing after a grace period (their scoring
    task was lost) or was made by an older scoring version (beat, every
    EVALUATION_DEADLINE_SWEEP_SECONDS)."""
    return scores.scores_due_queue()


@shared_task(name=queues.RANKING_CHECK.name, acks_late=True)
def ranking_check(job_id: int) -> None:
    """Run the ranking check of a test (a job: a lost or killed run is taken over by the sweeper)."""
    degradation.ranking_check_run(job_id=job_id)


@shared_task(name=queues.RANKING_CHECKS_DUE_QUEUE.name, acks_late=False)
def ranking_checks_due_queue() -> int:
    """Queue the ranking check of the frozen tests without a current one (beat)."""
    return degradation.ranking_checks_due_queue()
