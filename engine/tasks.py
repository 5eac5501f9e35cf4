"""Celery tasks of the engine app: take ids, call one service, own the retry policy."""

from celery import shared_task

from engine import services
from engine.queues import FIT_SHARD, FIT_STATISTICS


@shared_task(name=FIT_STATISTICS.name, acks_late=True)
def fit_statistics(statistics_id: int) -> None:
    """No automatic retry: a failed fit records why on its row (asking again makes a new fit), and a
    worker that dies is replaced by the job sweeper's takeover (vtt_site.jobs)."""
    services.statistics_fit_run(statistics_id=statistics_id)


@shared_task(name=FIT_SHARD.name, acks_late=True)
def fit_shard(shard_id: int) -> None:
    """One shard of a large fit; the last shard to settle queues the fit again to merge them."""
    services.fit_shard_run(shard_id=shard_id)
