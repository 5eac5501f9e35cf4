"""Reading an Open Images zip: its tables side by side, an image at a time, into `OpenScene`s."""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from typing import IO, Any

from datasets.formats.open_images.columns import BOX_COLUMNS, FLAGS, IS, SIZE_COLUMNS, VRD_COLUMNS, WHAT
from datasets.formats.open_scenes import (
    BadEntry,
    OpenObject,
    OpenRelationship,
    OpenScene,
    image_key,
    image_name,
)
from datasets.formats.records import Record, RecordError
from datasets.formats.registry import ReadContext, Reading
from datasets.formats.streaming import Unreadable, csv_rows, describe, zip_members


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
