"""The files the datasets app keeps (vtt_site/storage_sweep.py): each import's uploaded files."""

from __future__ import annotations

from collections.abc import Iterator

from datasets.models import ImportJob
from vtt_site.storage_sweep import StoredFiles


def _import_names() -> Iterator[str]:
    for names in ImportJob.objects.values_list("file", "mapping", "images").iterator():
        yield from (name for name in names if name)


STORED_FILES = [StoredFiles("imports", _import_names)]
