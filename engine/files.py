"""Fitted statistics files in the platform's storage (vtt_site/storage.py): written once under a fresh
name, read whole, removed once their row is gone. No process needs a folder of its own, so a fit made by
a worker on one machine is read by the web and the proposers on others."""

from __future__ import annotations

import uuid

from django.core.files.base import ContentFile
from django.core.files.storage import default_storage

from engine.core.statistics import FittedStatistics as CoreStatistics
from engine.core.statistics_file import dump, load
from engine.models import STATISTICS_FOLDER


def statistics_write(prefix: str, fitted: CoreStatistics) -> tuple[str, int]:
    """Store the arrays under a new name (`<prefix>-<random>.npz`): (its file name, its size)."""
    data = dump(fitted)
    file_name = f"{prefix}-{uuid.uuid4().hex[:8]}.npz"
    saved = default_storage.save(f"{STATISTICS_FOLDER}/{file_name}", ContentFile(data))
    return saved.rsplit("/", 1)[-1], len(data)


def statistics_read(storage_name: str) -> CoreStatistics:
    with default_storage.open(storage_name, "rb") as handle:
        return load(handle.read())


def statistics_remove(storage_name: str | None) -> None:
    if storage_name:
        default_storage.delete(storage_name)
