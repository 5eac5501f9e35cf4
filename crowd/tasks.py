"""Celery tasks of the crowd app: take ids, call one service, safe to run twice."""

from __future__ import annotations

from celery import shared_task

from crowd.queues import GOLD_SCORE, RELIABILITY_REFRESH
from crowd.services import gold, reliability


@shared_task(name=RELIABILITY_REFRESH.name, acks_late=True)
def reliability_refresh(collection_id: int) -> None:
    """No retry: the next merges ask for another estimate."""
    reliability.reliability_refresh(collection_id=collection_id)


@shared_task(name=GOLD_SCORE.name, acks_late=True)
def gold_score(copy_id: int) -> None:
    """No retry: an annotator's next gold submit scores whatever a lost message left unscored."""
    gold.gold_scores_catch_up(copy_id=copy_id)
