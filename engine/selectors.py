"""Reads of the engine app, and the per-process cache of loaded statistics files."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from engine.core.drivers import estimate_after
from engine.core.statistics import FittedStatistics as CoreStatistics
from engine.errors import EngineErrorCode
from engine.files import statistics_read
from engine.models import FitStatus, FittedStatistics
from kernel.kinds import render_text
from vtt_site.cache import BoundedCache
from vtt_site.errors import ConflictError, NotFoundError

LOADED_CACHE_SIZE = 4  # a worker rarely serves more than a few fits at once; each may be ~50 MB


def statistics_list() -> QuerySet[FittedStatistics]:
    return FittedStatistics.objects.select_related("vocabulary", "created_by").prefetch_related("collections")


def statistics_get(*, statistics_id: int) -> FittedStatistics:
    statistics = statistics_list().filter(pk=statistics_id).first()
    if statistics is None:
        raise NotFoundError(EngineErrorCode.STATISTICS_NOT_FOUND, f"There are no statistics {statistics_id}.")
    return statistics


_loaded: BoundedCache[CoreStatistics] = BoundedCache(LOADED_CACHE_SIZE)


def loaded_statistics(statistics: FittedStatistics) -> CoreStatistics:
    """The fitted arrays, loaded once per process and kept for the next request (least recently used)."""
    if statistics.status != FitStatus.READY or statistics.storage_name is None:
        raise ConflictError(
            EngineErrorCode.STATISTICS_NOT_READY,
            f"Statistics {statistics.pk} are {statistics.status}, not ready.",
        )
    name = statistics.storage_name
    return _loaded.get_or_build((statistics.pk, statistics.file_name), lambda: statistics_read(name))


def clear_loaded_cache() -> None:
    _loaded.clear()


def statistics_estimate(
    *, statistics: FittedStatistics, history: Any, question: Any, width: float, height: float
) -> dict[str, Any]:
    """P(yes) and its population for a question after a history, as `vtt-engine estimate` prints it."""
    arrays = loaded_statistics(statistics)
    parsed, estimate, made = estimate_after(arrays, history, question, width, height)
    return {
        "p": estimate.p,
        "population": estimate.population,
        "text": render_text(parsed, arrays.vocabulary, made),
    }
