"""Writing an Open Images zip: the box and relationship CSVs, the descriptions and image_sizes.csv."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from datasets.formats.open_images.columns import BOX_COLUMNS, FLAGS, IS, SIZE_COLUMNS, VRD_COLUMNS
from datasets.formats.open_scenes import (
    image_key,
)
from datasets.formats.registry import WriteContext
from datasets.formats.streaming import zip_stream


def write(records: Iterable[dict[str, Any]], context: WriteContext) -> Iterator[bytes]:
    """A zip of the box, relationship, size and both description files. An object is written under its
    Open Images label and display name when it came from Open Images, else under our type's name."""
    with (
        tempfile.TemporaryFile("w+", newline="", encoding="utf-8") as links,
        tempfile.TemporaryFile("w+", newline="", encoding="utf-8") as sizes,
    ):
        classes: dict[str, str] = {}  # label -> display name, filled as the boxes are written
        attributes: dict[str, str] = {}
        yield from zip_stream(
            [
                ("boxes.csv", _boxes(records, csv.writer(links), csv.writer(sizes), classes, attributes)),
                ("relationships.csv", _header_and(VRD_COLUMNS, links)),
                ("image_sizes.csv", _header_and(SIZE_COLUMNS, sizes)),
                # Generators: read only once the boxes are written, when the labels are all known.
                ("class-descriptions.csv", _descriptions(classes)),
                ("attributes-description.csv", _descriptions(attributes)),
            ]
        )


def _descriptions(labels: dict[str, str]) -> Iterator[bytes]:
    yield _line(("LabelName", "DisplayName"))
    for label, display in labels.items():
        yield _line((label, display))


def _boxes(
    records: Iterable[dict[str, Any]],
    links: Any,
    sizes: Any,
    classes: dict[str, str],
    attributes: dict[str, str],
) -> Iterator[bytes]:
    yield _line(BOX_COLUMNS)
    for record in sorted_records(records):
        image, width, height = _image_id(record), record["width"], record["height"]
        sizes.writerow((image, width, height))
        unit = {}
        for obj in record["objects"]:
            label, display = _label(obj)
            classes.setdefault(label, display)
            unit[obj["id"]] = (label, *_unit_box(obj["bbox"], width, height))
            flags = ("1" if flag in obj.get("flags", ()) else "0" for flag in FLAGS.values())
            yield _line((image, "vtt", label, "1", *unit[obj["id"]][1:], *flags))
            for value in obj["attributes"]:
                attributes.setdefault(value, value)
                links.writerow((image, label, value, *unit[obj["id"]][1:], *unit[obj["id"]][1:], IS))
        for link in record["relationships"]:
            subject, obj = unit[link["subject"]], unit[link["object"]]
            links.writerow((image, subject[0], obj[0], *subject[1:], *obj[1:], link["predicate"]))


def _image_id(record: dict[str, Any]) -> str:
    return record.get("source_id") or image_key(record["image"])


def _label(obj: dict[str, Any]) -> tuple[str, str]:
    """(LabelName, DisplayName): the object's own from Open Images, else our type's name for both."""
    source = obj.get("source") or {}
    label = source.get("label") or obj["type"]
    names = source.get("names") or []
    return label, names[0] if names else obj["type"]


def _unit_box(bbox: list[float], width: int, height: int) -> tuple[str, str, str, str]:
    """XMin, XMax, YMin, YMax as the source wrote them: the division back from pixels leaves float noise
    (0.8799999999999999) that twelve significant digits drop; Open Images gives at most seven, and a box
    drawn here keeps its tenths of a pixel."""
    x, y, w, h = bbox
    return tuple(unit_text(v) for v in (x / width, (x + w) / width, y / height, (y + h) / height))  # type: ignore[return-value]


def unit_text(value: float) -> str:
    return repr(float(f"{value:.12g}"))


def sorted_records(records: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """The records by ImageID, as the reader needs them (the export gives them oldest first): sorted on
    disk in a scratch SQLite database, so that no more than a record is held in memory."""
    with tempfile.TemporaryDirectory() as folder:
        database = sqlite3.connect(Path(folder) / "sort.sqlite3")
        try:
            database.execute("CREATE TABLE record (key TEXT, data TEXT)")
            database.executemany(
                "INSERT INTO record VALUES (?, ?)",
                ((_image_id(r), json.dumps(r, ensure_ascii=False)) for r in records),
            )
            for (data,) in database.execute("SELECT data FROM record ORDER BY key"):
                yield json.loads(data)
        finally:
            database.close()


def _header_and(header: tuple[str, ...], rows: IO[str]) -> Iterator[bytes]:
    yield _line(header)
    rows.seek(0)
    for line in rows:
        yield line.encode()


def _lines(rows: Iterable[tuple[str, ...]]) -> Iterator[bytes]:
    for row in rows:
        yield _line(row)


def _line(cells: Iterable[Any]) -> bytes:
    text = io.StringIO()
    csv.writer(text).writerow(cells)
    return text.getvalue().encode()
