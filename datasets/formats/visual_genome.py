"""Visual Genome: a zip archive of its JSON files, read streaming, through the mapping file.

As Visual Genome publishes them (versions 1.0 to 1.4):
- `image_data.json`: `[{"image_id", "url", "width", "height", "coco_id", "flickr_id"}, ...]`;
- `scene_graphs.json`: `[{"image_id", "objects": [...], "relationships": [{"relationship_id",
  "predicate", "synsets", "subject_id", "object_id"}]}, ...]`, or instead of it
- `objects.json` (`{"image_id", "objects": [...]}`), `attributes.json` (`{"image_id", "attributes":
  [...]}`, the same objects with their `attributes`) and `relationships.json` (`{"image_id",
  "relationships": [{"predicate", "synsets", "subject": {...}, "object": {...}}]}`, with the objects
  themselves), any of them;
- an object: `{"object_id", "x", "y", "w", "h", "names": [...], "synsets": [...], "attributes": [...]}`
  in pixels (`name` instead of `names` in some relationships; `id` instead of `image_id` in 1.0).

Every file lists the same images in the same order, one entry each: the files are read side by side, an
image at a time, in constant memory; a file that strays from that order is refused at the entry where it
does. `image_data.json` may be left out when the images are in the collection already (uploaded under
their ids, `2370799.jpg`): their sizes are the collection's. An image's name is the last part of its
`url` (`.../VG_100K/2370799.jpg`), else its id with `.jpg`.

A relationship whose subject or object has no box in objects.json or scene_graphs.json is dropped and
counted (the importer may ask to add such objects, marked `added`); an entry that cannot be read (a
zero-width box) is refused with its place, and the rest of its image is read.

The export writes `image_data.json` and `scene_graphs.json`: each object under its own Visual Genome
object_id, names and synsets where it came from Visual Genome (our type as its name otherwise), our
values as its attributes, each image under its image_id, whole pixels as whole numbers. Read back with
the same mapping, it gives the same rows.
"""

from __future__ import annotations

import json
import re
import tempfile
import zipfile
from collections.abc import Generator, Iterable, Iterator
from typing import IO, Any

from datasets.formats.open_scenes import (
    BadEntry,
    OpenObject,
    OpenRelationship,
    OpenScene,
    at,
    box,
    image_name,
    names,
    pixel_number,
    pixels,
    source_number,
)
from datasets.formats.open_vocabulary import open_vocabulary_format
from datasets.formats.records import Record, RecordError
from datasets.formats.registry import ReadContext, Reading, WriteContext, register
from datasets.formats.streaming import (
    Unreadable,
    count,
    describe,
    entries_with_places,
    json_entries,
    zip_members,
    zip_stream,
)

FILE = re.compile(r"^(image_data|scene_graphs|objects|attributes|relationships)(?:_v\d+(?:_\d+)*)?\.json$")
CONTENT = ("scene_graphs", "objects", "attributes", "relationships")
# The key of each content file's list in an image's entry.
LIST_KEY = {
    "scene_graphs": "objects",
    "objects": "objects",
    "attributes": "attributes",
    "relationships": "relationships",
}
WHAT = (
    "a Visual Genome import is a zip archive of image_data.json with scene_graphs.json, or with any of "
    "objects.json, attributes.json and relationships.json"
)


def read_open(handle: IO[bytes], context: ReadContext) -> Reading:
    members = zip_members(handle)
    files = {m.group(1): info for base, info in (members or {}).items() if (m := FILE.match(base))}
    content = [name for name in CONTENT if name in files]
    if members is None or not content or ("scene_graphs" in content and len(content) > 1):
        return Reading(0, [RecordError.of_file(WHAT)])
    archive = zipfile.ZipFile(handle)
    lead = "image_data" if "image_data" in files else content[0]
    return Reading(
        count(json_entries(archive.open(files[lead]), "item", context.max_depth)),
        _scenes(archive, files, lead, content, context),
    )


def _place(file: str) -> Any:
    return lambda position: f"{file}.json[{position}]"


def _scenes(
    archive: zipfile.ZipFile,
    files: dict[str, zipfile.ZipInfo],
    lead: str,
    content: list[str],
    context: ReadContext,
) -> Iterator[Record | RecordError]:
    def stream(name: str) -> Iterator[Any]:
        entries = json_entries(archive.open(files[name]), "item", context.max_depth)
        return entries_with_places(entries, _place(name), f"{name}.json")

    leading = stream(lead)
    others = {name: stream(name) for name in content if name != lead}
    for item in leading:
        if isinstance(item, Unreadable):
            yield RecordError.of_file(str(item))
            return
        position, entry = item
        place = f"{lead}.json[{position}]"
        try:
            image_id = _image_id(entry, place)
            scene = _scene(entry, image_id, lead, place, context)
            parts = [(lead, position, entry)] if lead != "image_data" else []
        except BadEntry as exc:
            yield exc.error()
            image_id, scene, parts = None, None, []
        if not (yield from _aligned(others, place, image_id, parts)):
            return
        if scene is None:
            continue
        try:
            for name, at, part in parts:
                _add(scene, name, part, f"{name}.json[{at}]")
        except BadEntry as exc:
            yield exc.error()
            continue
        yield Record(position + 1, scene, f"{place} (image {image_id})")
    for name, entries in others.items():
        extra = next(entries, None)
        if extra is not None:
            yield RecordError.of_file(
                f"{name}.json has more entries than {lead}.json, from {name}.json[{extra[0] if not isinstance(extra, Unreadable) else '?'}] on",
            )


def _aligned(
    others: dict[str, Iterator[Any]],
    place: str,
    image_id: int | str | None,
    parts: list[tuple[str, int, Any]],
) -> Generator[RecordError, None, bool]:
    """The next entry of each other file, for the image at `place`, added to `parts` (an entry that cannot
    be read is refused on its own); False when the files end or no longer list the same images in the
    same order: the read stops there."""
    for name, entries in others.items():
        other = next(entries, None)
        if other is None or isinstance(other, Unreadable):
            yield RecordError.of_file(
                str(other)
                if other
                else f"{name}.json ends before {place}: {WHAT}, one entry per image in the same order",
            )
            return False
        other_place = f"{name}.json[{other[0]}]"
        try:
            other_id = _image_id(other[1], other_place)
        except BadEntry as exc:
            yield exc.error()
            continue
        if image_id is not None and other_id != image_id:
            yield RecordError.of_file(
                f"{other_place} is image {other_id} where {place} is image {image_id}: the files must "
                "list the same images in the same order, as Visual Genome's do",
            )
            return False
        parts.append((name, other[0], other[1]))
    return True


def _image_id(entry: Any, place: str) -> int | str:
    if not isinstance(entry, dict):
        raise BadEntry(place, f"an image's entry is an object with its image_id, not {describe(entry)}")
    image_id = entry.get("image_id", entry.get("id"))
    if isinstance(image_id, bool) or not isinstance(image_id, int | str) or image_id == "":
        raise BadEntry(f"{place}.image_id", f"must be the image's id, not {describe(image_id)}")
    return image_id


def _scene(
    entry: dict[str, Any], image_id: int | str, lead: str, place: str, context: ReadContext
) -> OpenScene:
    url = entry.get("url")
    name = image_name(str(image_id))
    if isinstance(url, str) and url.strip():
        name = url.rstrip("/").rsplit("/", 1)[-1] if "://" in url else url
    if lead == "image_data":
        width, height = (pixels(entry.get(key), f"{place}.{key}") for key in ("width", "height"))
    elif name in context.sizes:
        width, height = context.sizes[name]
    else:
        raise BadEntry(place, f"image {name!r} has no size: add image_data.json, or upload the image first")
    return OpenScene(name, width, height, source_id=str(image_id))


def _add(scene: OpenScene, file: str, entry: dict[str, Any], place: str) -> None:
    key = LIST_KEY[file]
    items = entry.get(key) or []
    if not isinstance(items, list):
        raise BadEntry(f"{place}.{key}", f"must be a list, not {describe(items)}")
    for i, item in enumerate(items):
        where = f"{place}.{key}[{i}]"
        try:
            if file == "relationships":
                _relationship_with_objects(scene, item, where)
            else:
                scene.add(_object(item, where), join=file == "attributes")
        except BadEntry as exc:  # this entry only: the rest of the image is read
            scene.refused.append(exc.error())
    if file == "scene_graphs":
        links = entry.get("relationships") or []
        if not isinstance(links, list):
            raise BadEntry(f"{place}.relationships", f"must be a list, not {describe(links)}")
        for i, link in enumerate(links):
            where = f"{place}.relationships[{i}]"
            try:
                scene.relationships.append(_relationship(link, where))
            except BadEntry as exc:
                scene.refused.append(exc.error())


def _relationship(link: Any, where: str) -> OpenRelationship:
    if not isinstance(link, dict):
        raise BadEntry(where, f"a relationship is an object, not {describe(link)}")
    return OpenRelationship(
        _object_id(link.get("subject_id"), where, "subject_id"),
        _predicate(link.get("predicate"), where),
        _object_id(link.get("object_id"), where, "object_id"),
    )


def _object(item: Any, place: str) -> OpenObject:
    if not isinstance(item, dict):
        raise BadEntry(
            place, f"an object is an object with object_id, x, y, w, h and names, not {describe(item)}"
        )
    return OpenObject(
        key=_object_id(item.get("object_id", item.get("id")), place, "object_id"),
        names=names(item["names"] if "names" in item else item.get("name"), place, "names", single=True),
        synsets=names(item.get("synsets"), place, "synsets"),
        box=box(item.get("x"), item.get("y"), item.get("w"), item.get("h"), place),
        attributes=[a.strip() for a in names(item.get("attributes"), place, "attributes")],
    )


def _object_id(value: Any, place: str, field: str | None = None) -> str:
    if isinstance(value, bool) or not isinstance(value, int | str) or value == "":
        raise BadEntry(at(place, field), f"must be an object's id, not {describe(value)}")
    return str(value)


def _predicate(value: Any, place: str) -> str:
    if not isinstance(value, str):
        raise BadEntry(f"{place}.predicate", f"must be a name, not {describe(value)}")
    return value


def _relationship_with_objects(scene: OpenScene, item: Any, place: str) -> None:
    """relationships.json carries its two objects whole: each is the image's own object, or one with no
    box in objects.json (kept apart: not an object unless the importer asks)."""
    if not isinstance(item, dict):
        raise BadEntry(place, f"a relationship is an object, not {describe(item)}")
    ends = []
    for end in ("subject", "object"):
        obj = _object(item.get(end), f"{place}.{end}")
        scene.add_end(obj)
        ends.append(obj.key)
    scene.relationships.append(OpenRelationship(ends[0], _predicate(item.get("predicate"), place), ends[1]))


# --- Writing -------------------------------------------------------------------------------------------------


def write(records: Iterable[dict[str, Any]], context: WriteContext) -> Iterator[bytes]:
    """A zip of scene_graphs.json, then image_data.json (whose entries are gathered meanwhile)."""
    with tempfile.TemporaryFile() as images:
        yield from zip_stream(
            [("scene_graphs.json", _scene_graphs(records, images)), ("image_data.json", _replay(images))]
        )


def _scene_graphs(records: Iterable[dict[str, Any]], images: IO[bytes]) -> Iterator[bytes]:
    yield b"["
    for number, record in enumerate(records, start=1):
        image_id = source_number(record.get("source_id"), number)
        ids = _object_ids(record["objects"])
        entry = {
            "image_id": image_id,
            "objects": [_object_entry(obj, ids[obj["id"]]) for obj in record["objects"]],
            "relationships": [
                {
                    "relationship_id": relationship,
                    "predicate": link["predicate"],
                    "synsets": [],
                    "subject_id": ids[link["subject"]],
                    "object_id": ids[link["object"]],
                }
                for relationship, link in enumerate(record["relationships"], start=1)
            ],
        }
        image = {
            "image_id": image_id,
            "url": record["image"],
            "width": record["width"],
            "height": record["height"],
            "coco_id": None,
            "flickr_id": None,
        }
        images.write(json.dumps(image, ensure_ascii=False).encode() + b"\n")
        yield (b"," if number > 1 else b"") + json.dumps(entry, ensure_ascii=False).encode()
    yield b"]"


def _object_ids(objects: list[dict[str, Any]]) -> dict[str, int | str]:
    """Each object's id: its Visual Genome object_id where it has one (and no other object took it),
    else its number in the image."""
    ids: dict[str, int | str] = {}
    taken: set[int | str] = set()
    for number, obj in enumerate(objects, start=1):
        own = (obj.get("source") or {}).get("id")
        chosen = source_number(own, number) if own is not None else number
        if chosen in taken:
            chosen = f"{number}"
        ids[obj["id"]] = chosen
        taken.add(chosen)
    return ids


def _object_entry(obj: dict[str, Any], object_id: int | str) -> dict[str, Any]:
    """An object as Visual Genome writes it: its own names and synsets when it came from there."""
    source = obj.get("source") or {}
    x, y, w, h = (pixel_number(v) for v in obj["bbox"])
    return {
        "object_id": object_id,
        "x": x,
        "y": y,
        "w": w,
        "h": h,
        "names": source.get("names") or [obj["type"]],
        "synsets": source.get("synsets") or [],
        "attributes": obj["attributes"],
    }


def _replay(images: IO[bytes]) -> Iterator[bytes]:
    images.seek(0)
    yield b"["
    for number, line in enumerate(images):
        yield (b"," if number else b"") + line.rstrip(b"\n")
    yield b"]"


register(
    open_vocabulary_format(
        read_open=read_open,
        value="vg",
        name="Visual Genome",
        label="Visual Genome (zip of its JSON files)",
        description="Visual Genome: a zip of image_data.json with scene_graphs.json, or with objects.json, "
        "attributes.json and relationships.json; names are mapped by the mapping file.",
        content_type="application/zip",
        extension="vg.zip",
        write=write,
    )
)
