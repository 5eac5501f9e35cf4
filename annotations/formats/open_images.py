"""Open Images V6/V7: a zip of its CSV files, read streaming, through the mapping file.

As Open Images publishes them, each file known by its header row:
- boxes (`*-annotations-bbox.csv`): `ImageID,Source,LabelName,Confidence,XMin,XMax,YMin,YMax,
  IsOccluded,IsTruncated,IsGroupOf,IsDepiction,IsInside[,XClick1X,...]`, coordinates normalised to 0..1;
- relationships (`*-annotations-vrd.csv`): `ImageID,LabelName1,LabelName2,XMin1,XMax1,YMin1,YMax1,
  XMin2,XMax2,YMin2,YMax2,RelationshipLabel`; the relationship `is` gives the first box an attribute
  (`LabelName2` is then an attribute's label);
- label names (`*-class-descriptions*.csv`, `*-attributes-description.csv`): `LabelName,DisplayName`
  rows, with or without a header.
Open Images gives no image sizes, and the boxes need them in pixels: they come from the collection (the
images uploaded first, as `<ImageID>.jpg`) or from an `image_sizes.csv` of `ImageID,Width,Height` rows,
a file of this platform's that the export writes too.

The box and relationship files are sorted by ImageID (as published); they are read side by side, an
image at a time, in constant memory, and a file out of that order is refused at its line. Objects are
known by their label and box: a relationship's box is the box of the same label and coordinates in the
box file; a relationship whose box is not there is dropped (or, if the importer asks, its box becomes
an object marked `added`). An object's names are its label's display name, then the label itself (a
mapping may name either); `IsOccluded`, `IsTruncated`, `IsGroupOf`, `IsDepiction` and `IsInside` are
kept as the object's flags; a group box or a depiction is kept but never an object of a test. A row that
cannot be read is refused with its line, and the rest of its image is read.

The export writes each object under its own label and display name (our type's name for an object
that did not come from Open Images), its flags, its image's ImageID, coordinates to the source's
precision, and both description files.
"""

from __future__ import annotations

import csv
import io
import json
import sqlite3
import tempfile
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from annotations.formats.open_vocabulary import (
    BadEntry,
    OpenObject,
    OpenRelationship,
    OpenScene,
    image_key,
    image_name,
    open_vocabulary_format,
)
from annotations.formats.records import Record, RecordError
from annotations.formats.registry import ReadContext, Reading, WriteContext, register
from annotations.formats.streaming import Unreadable, csv_rows, describe, zip_members, zip_stream

BOX_COLUMNS = (
    "ImageID",
    "Source",
    "LabelName",
    "Confidence",
    "XMin",
    "XMax",
    "YMin",
    "YMax",
    "IsOccluded",
    "IsTruncated",
    "IsGroupOf",
    "IsDepiction",
    "IsInside",
)
VRD_COLUMNS = (
    "ImageID",
    "LabelName1",
    "LabelName2",
    "XMin1",
    "XMax1",
    "YMin1",
    "YMax1",
    "XMin2",
    "XMax2",
    "YMin2",
    "YMax2",
    "RelationshipLabel",
)
SIZE_COLUMNS = ("ImageID", "Width", "Height")
# The box file's flags and the object flags (kernel.scene.OBJECT_FLAGS) they become, in export order.
FLAGS = {
    "IsOccluded": "occluded",
    "IsTruncated": "truncated",
    "IsGroupOf": "group",
    "IsDepiction": "depiction",
    "IsInside": "inside",
}
IS = "is"
WHAT = (
    "an Open Images import is a zip archive of its box CSV (ImageID,Source,LabelName,...), with its "
    "relationship CSV, its class and attribute descriptions, and image_sizes.csv if need be"
)


class _Table:
    """One CSV file of the archive: its kind (by header), and its rows as {column: cell}, a line number each."""

    def __init__(self, archive: zipfile.ZipFile, info: zipfile.ZipInfo, base: str) -> None:
        self.archive, self.info, self.file = archive, info, base
        header = next(csv_rows(archive.open(info), base), (0, []))[1]
        self.header = [cell.strip() for cell in header]
        self.kind = (
            "boxes"
            if set(BOX_COLUMNS) <= set(self.header)
            else "relationships"
            if set(VRD_COLUMNS) <= set(self.header)
            else "sizes"
            if set(SIZE_COLUMNS) <= set(self.header)
            else "names"
            if len(self.header) == 2
            else None
        )

    def rows(self) -> Iterator[tuple[int, dict[str, str]]]:
        rows = csv_rows(self.archive.open(self.info), self.file)
        if self.kind != "names":
            next(rows, None)
        for line, cells in rows:
            if cells:
                yield (
                    line,
                    dict(zip(self.header, cells, strict=False))
                    if self.kind != "names"
                    else {"id": cells[0], "name": cells[-1]},
                )


def _tables(handle: IO[bytes]) -> dict[str, list[_Table]] | None:
    members = zip_members(handle)
    if members is None:
        return None
    archive = zipfile.ZipFile(handle)
    tables: dict[str, list[_Table]] = {}
    for base, info in sorted(members.items()):
        if base.lower().endswith(".csv"):
            table = _Table(archive, info, base)
            if table.kind:
                tables.setdefault(table.kind, []).append(table)
    return tables


def read_open(handle: IO[bytes], context: ReadContext) -> Reading:
    try:
        tables = _tables(handle)
        if not tables or len(tables.get("boxes", [])) > 1 or len(tables.get("relationships", [])) > 1:
            return Reading(0, [RecordError.of_file(WHAT)])
        if "boxes" not in tables and "relationships" not in tables:
            return Reading(0, [RecordError.of_file(WHAT)])
        names = {row["id"]: row["name"] for table in tables.get("names", []) for _, row in table.rows()}
        total = _images(tables)
    except (Unreadable, BadEntry) as exc:
        return Reading(0, [RecordError.of_file(str(exc))])
    return Reading(total, _scenes(tables, names, context))


def _images(tables: dict[str, list[_Table]]) -> int:
    """How many images the box and relationship files have rows for, together (a pass over their
    ImageIDs: the rows of an image are together, the files sorted alike)."""
    keys = [
        (key for key, _ in _grouped(tables[kind][0])) for kind in ("boxes", "relationships") if kind in tables
    ]
    heads = [next(stream, None) for stream in keys]
    count = 0
    while any(head is not None for head in heads):
        smallest = min(head for head in heads if head is not None)
        count += 1
        heads = [next(keys[i], None) if head == smallest else head for i, head in enumerate(heads)]
    return count


def _grouped(table: _Table | None) -> Iterator[tuple[str, list[tuple[int, dict[str, str]]]]]:
    """The rows of each image, image by image; `BadEntry` when the file is not sorted by ImageID."""
    if table is None:
        return
    image, rows, previous_line = None, [], 0
    for line, row in table.rows():
        key = row.get("ImageID", "")
        if image is not None and key != image:
            if key < image:
                raise BadEntry(
                    f"{table.file} line {line}",
                    f"image {key!r} comes after {image!r} (line {previous_line}): the rows must be sorted by "
                    "ImageID, as Open Images publishes them",
                )
            yield image, rows
            rows = []
        image, previous_line = key, line
        rows.append((line, row))
    if image is not None:
        yield image, rows


def _scenes(
    tables: dict[str, list[_Table]], names: dict[str, str], context: ReadContext
) -> Iterator[Record | RecordError]:
    files: dict[str, str] = {
        kind: tables[kind][0].file for kind in ("boxes", "relationships") if kind in tables
    }
    streams = {
        kind: _grouped(tables[kind][0] if kind in tables else None)
        for kind in ("boxes", "relationships", "sizes")
    }
    heads: dict[str, Any] = {}
    number = 0
    try:
        for kind, stream in streams.items():
            heads[kind] = next(stream, None)
        while heads["boxes"] is not None or heads["relationships"] is not None:
            image = min(head[0] for kind, head in heads.items() if head is not None and kind != "sizes")
            groups = {}
            for kind in ("boxes", "relationships"):
                if heads[kind] is not None and heads[kind][0] == image:
                    groups[kind] = heads[kind][1]
                    heads[kind] = next(streams[kind], None)
            while heads["sizes"] is not None and heads["sizes"][0] < image:
                heads["sizes"] = next(streams["sizes"], None)
            size = heads["sizes"][1] if heads["sizes"] is not None and heads["sizes"][0] == image else None
            number += 1
            place = f"image {image}"
            try:
                yield Record(number, _scene(image, groups, size, names, files, context), place)
            except BadEntry as exc:
                yield exc.error()
    except (BadEntry, Unreadable) as exc:
        yield exc.error() if isinstance(exc, BadEntry) else RecordError.of_file(str(exc))


def _scene(
    image: str,
    groups: dict[str, list],
    size: list | None,
    names: dict[str, str],
    files: dict[str, str],
    context: ReadContext,
) -> OpenScene:
    name = image_name(image)
    width, height = _size(name, size, context)
    scene = OpenScene(name, width, height, source_id=image)
    for line, row in groups.get("boxes", []):
        place = f"{files['boxes']} line {line}"
        try:
            scene.add(_object(row, "", width, height, names, place, flags=_flags(row, place)))
        except BadEntry as exc:
            scene.refused.append(exc.error())
    for line, row in groups.get("relationships", []):
        place = f"{files['relationships']} line {line}"
        try:
            _relationship(scene, row, width, height, names, place)
        except BadEntry as exc:
            scene.refused.append(exc.error())
    return scene


def _relationship(
    scene: OpenScene, row: dict[str, str], width: int, height: int, names: dict[str, str], place: str
) -> None:
    """A relationship row; `is` gives the first box an attribute (the second label is the attribute's)."""
    subject = _object(row, "1", width, height, names, place)
    label = row.get("RelationshipLabel", "").strip()
    if label == IS:
        scene.add_end(subject)
        attribute = names.get(row["LabelName2"], row["LabelName2"])
        target = scene.object_for_attributes(subject.key)
        if attribute not in target.attributes:
            target.attributes.append(attribute)
        return
    obj = _object(row, "2", width, height, names, place)
    scene.add_end(subject)
    scene.add_end(obj)
    scene.relationships.append(OpenRelationship(subject.key, label, obj.key))


def _flags(row: dict[str, str], place: str) -> set[str]:
    return {flag for column, flag in FLAGS.items() if _flag(row, column, place)}


def _size(name: str, size: list | None, context: ReadContext) -> tuple[int, int]:
    if size is not None:
        line, row = size[0]
        try:
            width, height = int(row["Width"]), int(row["Height"])
        except ValueError:
            raise BadEntry(
                f"image_sizes.csv line {line}", "Width and Height are whole numbers of pixels"
            ) from None
        if not (0 < width <= 100_000 and 0 < height <= 100_000):
            raise BadEntry(f"image_sizes.csv line {line}", "Width and Height are from 1 to 100000 pixels")
        return width, height
    if name in context.sizes:
        return context.sizes[name]
    raise BadEntry(
        f"image {image_key(name)}", f"has no size: upload {name} first, or give it in image_sizes.csv"
    )


def _key(row: dict[str, str], end: str, place: str) -> str:
    coordinates = ",".join(repr(_unit(row, f"{c}{end}", place)) for c in ("XMin", "XMax", "YMin", "YMax"))
    return f"{row.get(f'LabelName{end}', '')}@{coordinates}"


def _unit(row: dict[str, str], column: str, place: str) -> float:
    try:
        value = float(row.get(column, ""))
    except ValueError:
        raise BadEntry(
            f"{place}: {column}", f"must be a number from 0 to 1, not {describe(row.get(column))}"
        ) from None
    if not -0.5 <= value <= 1.5:
        raise BadEntry(f"{place}: {column}", f"must be a number from 0 to 1 (normalised), not {value:g}")
    return value


def _flag(row: dict[str, str], column: str, place: str) -> bool:
    value = row.get(column, "0").strip()
    if value not in ("0", "1", "-1", ""):
        raise BadEntry(f"{place}: {column}", f"must be 0 or 1, not {describe(value)}")
    return value == "1"


def _object(
    row: dict[str, str],
    end: str,
    width: int,
    height: int,
    names: dict[str, str],
    place: str,
    flags: set[str] | None = None,
) -> OpenObject:
    label = row.get(f"LabelName{end}", "").strip()
    if not label:
        raise BadEntry(f"{place}: LabelName{end}", "must be a label")
    x0, x1, y0, y1 = (_unit(row, f"{c}{end}", place) for c in ("XMin", "XMax", "YMin", "YMax"))
    if x1 <= x0 or y1 <= y0:
        raise BadEntry(place, f"a box has XMin{end} < XMax{end} and YMin{end} < YMax{end}")
    display = names.get(label)
    return OpenObject(
        key=_key(row, end, place),
        names=[display] if display else [],
        synsets=[],
        box=(x0 * width, y0 * height, (x1 - x0) * width, (y1 - y0) * height),
        flags=flags or set(),
        label=label,
        has_id=False,
    )


# --- Writing -------------------------------------------------------------------------------------------------


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


register(
    open_vocabulary_format(
        read_open=read_open,
        value="openimages",
        name="Open Images",
        label="Open Images V6/V7 (zip of its CSV files)",
        description="Open Images V6/V7: a zip of the box CSV, the relationship CSV, the class and attribute "
        "descriptions, and image_sizes.csv unless the images are uploaded; names are mapped by the mapping "
        "file.",
        content_type="application/zip",
        extension="openimages.zip",
        write=write,
    )
)
