"""Celery tasks of the engine app: take ids, call one service, own the retry policy."""

from celery import shared_task


@shared_task(name="engine.fit_statistics", acks_late=True)
def fit_statistics(statistics_id: int) -> None:
    """No automatic retry: a failed fit records why on its row; asking again makes a new fit."""
    from engine import services  # services start this task, so they import this module first

    services.statistics_fit_run(statistics_id=statistics_id)
