"""JSON Lines scene graphs (docs/method.md section 9): one image per line, our own format.

Read line by line (a file of any size is counted, then read, never held whole). It is a closed
format: a key the format does not have is refused on its line (`unknown_keys`), since it is nearly always
a misspelt one ("attribute", "attributes_know") whose value would otherwise vanish and change what the
record says (decision in docs/decisions/0039-unknown-import-keys.md).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import IO, Any

from datasets.formats.records import Record, RecordError
from datasets.formats.registry import ReadContext, Reading, SceneFormat, WriteContext, register
from kernel import safejson

SCENE_KEYS: tuple[str, ...] = ("image", "width", "height", "objects", "relationships")
OBJECT_KEYS: tuple[str, ...] = ("id", "type", "bbox", "attributes", "attributes_known")
RELATIONSHIP_KEYS: tuple[str, ...] = ("subject", "predicate", "object")


def jsonl_line(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False) + "\n"


def jsonl_records(
    lines: Iterable[bytes | str], max_depth: int = safejson.DEFAULT_MAX_DEPTH
) -> Iterator[Record | RecordError]:
    """A Record per non-blank line, or a RecordError that says what is wrong with the line: not UTF-8
    text, not JSON, nested too deeply, a number too large for any field, a key the format does not have."""
    for number, line in enumerate(lines, start=1):
        if isinstance(line, bytes):
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError as exc:
                yield RecordError(number, f"not UTF-8 text (byte {exc.start + 1} of the line cannot be read)")
                continue
        if not line.strip():
            continue
        try:
            data = safejson.loads(line, max_depth=max_depth)
        except json.JSONDecodeError as exc:
            yield RecordError(number, f"not valid JSON ({exc.msg} at column {exc.colno})")
            continue
        except safejson.UnsafeJSON as exc:
            yield RecordError(number, str(exc))
            continue
        unknown = unknown_keys(data)
        yield RecordError(number, unknown) if unknown else Record(number, data, f"line {number}")


def unknown_keys(record: Any) -> str | None:
    """What is wrong when the record, one of its objects or relationships has a key the format does not
    have: the first such place, the keys, and the keys it may have. Shapes are parse_scene's to judge."""
    if not isinstance(record, dict):
        return None
    places: list[tuple[str, Any, str, tuple[str, ...]]] = [("", record, "a scene graph", SCENE_KEYS)]
    for key, what, keys in (
        ("objects", "an object", OBJECT_KEYS),
        ("relationships", "a relationship", RELATIONSHIP_KEYS),
    ):
        items = record.get(key)
        if isinstance(items, list):
            places.extend((f"{key}[{i}]", item, what, keys) for i, item in enumerate(items))
    for where, item, what, keys in places:
        extra = [key for key in item if key not in keys] if isinstance(item, dict) else []
        if extra:
            named = ", ".join(repr(key) for key in extra)
            problem = f"unknown key{'s' if len(extra) > 1 else ''} {named}: {what} has {', '.join(keys)}"
            return f"{where}: {problem}" if where else problem
    return None


def read(handle: IO[bytes], context: ReadContext) -> Reading:
    total = sum(1 for line in handle if line.strip())
    handle.seek(0)
    return Reading(total, jsonl_records(handle, context.max_depth))


def write(records: Iterable[dict[str, Any]], context: WriteContext) -> Iterator[bytes]:
    for record in records:
        yield jsonl_line(record).encode()


register(
    SceneFormat(
        value="jsonl",
        name="JSON Lines",
        label="JSON Lines scene graphs",
        description="JSON Lines: one scene graph per line (the image, its size, its objects with boxes and "
        "attributes, their relationships), as this platform exports them.",
        content_type="application/x-ndjson",
        extension="jsonl",
        read=read,
        write=write,
        line_numbers=True,
    )
)
