"""Celery tasks of the crowd app: take ids, call one service, safe to run twice."""

from __future__ import annotations

from celery import shared_task

from crowd.queues import RELIABILITY_REFRESH
from crowd.services import reliability


@shared_task(name=RELIABILITY_REFRESH.name, acks_late=True)
def reliability_refresh(collection_id: int) -> None:
    """No retry: the next merges ask for another estimate."""
    reliability.reliability_refresh(collection_id=collection_id)
