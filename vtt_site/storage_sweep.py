"""Objects without their row and rows without their object (issue 49, item 6; docs/storage.md).

A file is written to the storage first and its row second (an upload, an import's files, a fit), so a
process killed between the two writes leaves an object no row names; a store that lost an object, or a
copy made by hand, leaves a row whose object is gone. The sweep lists each folder the apps declare and
compares it with the names their rows hold: it reports both kinds and, when asked, removes the objects
no row names that are older than a grace period (a younger one may belong to a write whose row is about
to commit).

Each app that keeps files declares them in `<app>/stored_files.py` as `STORED_FILES`, a list of
`StoredFiles` (found by name, as the settings are: vtt_site imports no app).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta

from django.core.files.storage import Storage, default_storage
from django.utils import timezone


@dataclass(frozen=True)
class StoredFiles:
    """A top-level folder of the storage and the storage names that rows point at inside it. `required`:
    a name a row holds must exist (False for files made again on demand, as thumbnails are)."""

    folder: str
    referenced: Callable[[], Iterable[str]]
    required: bool = True


@dataclass
class SweepReport:
    orphans: list[str] = field(default_factory=list)  # objects no row names
    missing: list[str] = field(default_factory=list)  # names rows hold whose object is gone
    young: int = 0  # objects no row names yet, within the grace period
    removed: int = 0

    @property
    def clean(self) -> bool:
        return not self.orphans and not self.missing


def declared() -> Iterator[StoredFiles]:
    from django.apps import apps

    for app in apps.get_app_configs():
        if importlib.util.find_spec(f"{app.name}.stored_files") is not None:
            yield from importlib.import_module(f"{app.name}.stored_files").STORED_FILES


def storage_walk(storage: Storage, folder: str) -> Iterator[str]:
    """Every file's storage name under `folder` ("" for all), at any depth (nothing when the folder is
    not there)."""
    try:
        folders, files = storage.listdir(folder)
    except FileNotFoundError:
        return
    prefix = f"{folder}/" if folder else ""
    for name in files:
        yield f"{prefix}{name}"
    for sub in folders:
        yield from storage_walk(storage, f"{prefix}{sub}")


def storage_sweep(*, grace_seconds: float = 3600.0, remove: bool = False) -> SweepReport:
    storage = default_storage
    report = SweepReport()
    cutoff = timezone.now() - timedelta(seconds=grace_seconds)
    by_folder: dict[str, tuple[set[str], bool]] = {}
    for kind in declared():
        names, required = by_folder.setdefault(kind.folder, (set(), False))
        names.update(kind.referenced())
        by_folder[kind.folder] = (names, required or kind.required)
    for folder, (referenced, required) in sorted(by_folder.items()):
        stored = set(storage_walk(storage, folder))
        for name in sorted(stored - referenced):
            if grace_seconds > 0 and storage.get_modified_time(name) > cutoff:
                report.young += 1
                continue
            report.orphans.append(name)
            if remove:
                storage.delete(name)
                report.removed += 1
        if required:
            report.missing += sorted(name for name in referenced - stored if name.startswith(f"{folder}/"))
    return report
