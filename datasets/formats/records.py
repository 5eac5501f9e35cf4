"""What every reader yields: numbered records with their place in the file, and located errors."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, NamedTuple

REPORT_TOP = 50  # names listed per count in a report; the rest are summed as "others"


class Record(NamedTuple):
    """One image's scene-graph record as read, numbered from 1 in the file's order. `place` says where
    it is in the file for a person (`line 3`, `images[2]`); errors found in it start with it."""

    number: int
    data: Any
    place: str


@dataclass(frozen=True)
class RecordError:
    # The JSON Lines line number. None: the file as a whole, or an entry of a format without meaningful
    # line numbers, whose message starts with its place in the file (`images[3]: ...`).
    line: int | None
    message: str
    # The file as a whole cannot be read on (not one entry of it): the import is refused whatever the
    # share of bad entries.
    whole_file: bool = False

    @classmethod
    def of_file(cls, message: str) -> RecordError:
        return cls(None, message, whole_file=True)

    def as_dict(self) -> dict[str, Any]:
        return {"line": self.line, "message": self.message}


def record_size_error(record: Any, max_objects: int, max_relationships: int) -> tuple[str, str] | None:
    """(where, message) when a record holds more objects or relationships than an image may: checked
    before the record is parsed, so an enormous line costs nothing."""
    if not isinstance(record, dict):
        return None
    for key, limit in (("objects", max_objects), ("relationships", max_relationships)):
        items = record.get(key)
        if isinstance(items, list) and len(items) > limit:
            return key, f"an image may have at most {limit:,} {key}; this one has {len(items):,}"
    return None


class ImportReport:
    """Counts of what an import mapped, merged and dropped, by kind and name, for a person to read."""

    def __init__(self) -> None:
        self.counts: dict[str, Counter[str]] = {}

    def add(self, section: str, name: str, count: int = 1) -> None:
        if count:
            self.counts.setdefault(section, Counter())[name] += count

    def as_list(self) -> list[dict[str, Any]]:
        """[{section, total, top: [[name, n], ...], others}], what was mapped first, then what was
        merged, dropped, and left unknown."""
        order = {"mapped": 0, "added": 1, "merged": 2, "dropped": 3, "unknown": 4}
        report = []
        for section in sorted(self.counts, key=lambda s: (order.get(s.split(":")[0], 9), s)):
            counter = self.counts[section]
            top = counter.most_common(REPORT_TOP)
            total = sum(counter.values())
            report.append(
                {
                    "section": section,
                    "total": total,
                    "top": [[name, count] for name, count in top],
                    "others": total - sum(count for _, count in top),
                }
            )
        return report
