"""What every reader yields: numbered records with their place in the file, and located errors."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any, NamedTuple


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


def has_control_characters(text: str) -> bool:
    """A NUL, a newline, a bidirectional override: nothing a name may hold (nor a database text column)."""
    return any(unicodedata.category(char) in ("Cc", "Cf", "Cs") for char in text)
