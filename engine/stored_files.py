"""The files the engine app keeps (vtt_site/storage_sweep.py): fitted statistics, and the shards of a fit
not merged yet (a merged fit's shards are removed, though their rows keep the name)."""

from __future__ import annotations

from collections.abc import Iterator

from engine.models import STATISTICS_FOLDER, FitShard, FitStatus, FittedStatistics
from vtt_site.job_model import JobStatus
from vtt_site.storage_sweep import StoredFiles


def _statistics_names() -> Iterator[str]:
    ready = FittedStatistics.objects.filter(status=FitStatus.READY).exclude(file_name="")
    for file_name in ready.values_list("file_name", flat=True).iterator():
        yield f"{STATISTICS_FOLDER}/{file_name}"
    shards = FitShard.objects.filter(status=JobStatus.DONE).exclude(file_name="")
    for file_name in shards.exclude(statistics__status=FitStatus.READY).values_list("file_name", flat=True):
        yield f"{STATISTICS_FOLDER}/{file_name}"


STORED_FILES = [StoredFiles(STATISTICS_FOLDER, _statistics_names)]
