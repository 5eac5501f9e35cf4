"""GQA scene graphs: one JSON object keyed by image id, read streaming, through the mapping file.

As GQA publishes them (`train_sceneGraphs.json`, `val_sceneGraphs.json`): `{"<image id>": {"width",
"height", "location"?, "weather"?, "objects": {"<object id>": {"name", "x", "y", "w", "h", "attributes":
[...], "relations": [{"name", "object": "<object id>"}]}}}}`, boxes in pixels. A file, or a zip of such
files (read one after the other). An image's name is its id with `.jpg` (`2370799.jpg`). An object id
listed twice in one image (JSON allows it; a streaming reader sees both) is one object, merged.

An object that cannot be read (a zero-width box) is refused with its place, and the rest of its image
is read. The export writes one such file: each object under its GQA id and name where it came from GQA
(our type as its name otherwise), our values as its attributes.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterable, Iterator
from typing import IO, Any

from datasets.formats.open_scenes import (
    BadEntry,
    OpenObject,
    OpenRelationship,
    OpenScene,
    box,
    image_key,
    image_name,
    names,
    pixel_number,
    pixels,
)
from datasets.formats.open_vocabulary import open_vocabulary_format
from datasets.formats.records import Record, RecordError
from datasets.formats.registry import ReadContext, Reading, WriteContext, register
from datasets.formats.streaming import (
    KeepRepeats,
    Unreadable,
    count,
    describe,
    entries_with_places,
    json_entries,
    zip_members,
)


def read_open(handle: IO[bytes], context: ReadContext) -> Reading:
    files = _files(handle)
    total = sum(count(json_entries(opened(), "", context.max_depth, kv=True)) for opened, _ in files)
    return Reading(total, _scenes(files, context))


def _files(handle: IO[bytes]) -> list[tuple[Any, str]]:
    """(open, name) of each JSON file: the upload itself, or each .json member of a zip, by name."""
    members = zip_members(handle)
    if members is None:
        return [(lambda: _rewound(handle), "")]
    archive = zipfile.ZipFile(handle)
    return [
        ((lambda info=info: archive.open(info)), f"{base}: ")
        for base, info in sorted(members.items())
        if base.endswith(".json")
    ]


def _rewound(handle: IO[bytes]) -> IO[bytes]:
    handle.seek(0)
    return handle


def _scenes(files: list[tuple[Any, str]], context: ReadContext) -> Iterator[Record | RecordError]:
    number = 0
    for opened, file in files:
        entries = json_entries(opened(), "", context.max_depth, kv=True, keep_repeats=True)
        name = file.rstrip(": ") or "the GQA file"
        for item in entries_with_places(entries, _entry_place(file), name):
            if isinstance(item, Unreadable):
                yield RecordError.of_file(str(item))
                return
            number += 1
            key, entry = item[1]
            place = f"{file}[{json.dumps(key, ensure_ascii=False)}]"
            try:
                yield Record(number, _scene(key, entry, place), place)
            except BadEntry as exc:
                yield exc.error()


def _entry_place(file: str) -> Any:
    return lambda position: f"{file}entry {position + 1}"


def _scene(key: str, entry: Any, place: str) -> OpenScene:
    if not isinstance(entry, dict):
        raise BadEntry(place, f"an image's scene graph is an object, not {describe(entry)}")
    width, height = (pixels(entry.get(k), f"{place}.{k}") for k in ("width", "height"))
    scene = OpenScene(image_name(key), width, height, source_id=key)
    objects = entry.get("objects") or {}
    if not isinstance(objects, dict):
        raise BadEntry(f"{place}.objects", f"must be an object keyed by object id, not {describe(objects)}")
    for object_id, obj in _pairs(objects):
        where = f"{place}.objects[{json.dumps(object_id, ensure_ascii=False)}]"
        try:
            _add_object(scene, object_id, obj, where)
        except BadEntry as exc:  # this object only: the rest of the image is read
            scene.refused.append(exc.error())
    return scene


def _add_object(scene: OpenScene, object_id: str, obj: Any, where: str) -> None:
    if not isinstance(obj, dict):
        raise BadEntry(where, f"an object is an object with name, x, y, w and h, not {describe(obj)}")
    relations = obj.get("relations") or []
    if not isinstance(relations, list):
        raise BadEntry(f"{where}.relations", f"must be a list, not {describe(relations)}")
    links = []
    for i, relation in enumerate(relations):
        at = f"{where}.relations[{i}]"
        if not isinstance(relation, dict) or not isinstance(relation.get("name"), str):
            raise BadEntry(at, f'a relation is {{"name", "object"}}, not {describe(relation)}')
        target = relation.get("object")
        if isinstance(target, bool) or not isinstance(target, str | int):
            raise BadEntry(f"{at}.object", f"must be an object's id, not {describe(target)}")
        links.append(OpenRelationship(object_id, relation["name"], str(target)))
    scene.add(
        OpenObject(
            key=object_id,
            names=names(obj.get("name"), where, "name", single=True),
            synsets=[],
            box=box(obj.get("x"), obj.get("y"), obj.get("w"), obj.get("h"), where),
            attributes=[a.strip() for a in names(obj.get("attributes"), where, "attributes")],
        )
    )
    scene.relationships.extend(links)


def _pairs(objects: dict[str, Any]) -> Iterable[tuple[str, Any]]:
    """The objects, an id given twice included (it is then merged: `OpenScene.add`)."""
    return objects.pairs() if isinstance(objects, KeepRepeats) else objects.items()


# --- Writing -------------------------------------------------------------------------------------------------


def write(records: Iterable[dict[str, Any]], context: WriteContext) -> Iterator[bytes]:
    """One file keyed by image id: each object under its own GQA id and name where it came from GQA
    (ours otherwise), our values as its attributes, whole pixels as whole numbers."""
    yield b"{"
    for number, record in enumerate(records):
        ids = _object_ids(record["objects"])
        relations: dict[str, list[dict[str, str]]] = {obj["id"]: [] for obj in record["objects"]}
        for link in record["relationships"]:
            relations[link["subject"]].append({"name": link["predicate"], "object": ids[link["object"]]})
        entry = {
            "width": record["width"],
            "height": record["height"],
            "objects": {
                ids[obj["id"]]: _object_entry(obj, relations[obj["id"]]) for obj in record["objects"]
            },
        }
        key = json.dumps(record.get("source_id") or image_key(record["image"]), ensure_ascii=False)
        yield (b"," if number else b"") + f"{key}:".encode() + json.dumps(entry, ensure_ascii=False).encode()
    yield b"}"


def _object_ids(objects: list[dict[str, Any]]) -> dict[str, str]:
    ids: dict[str, str] = {}
    for obj in objects:
        own = str((obj.get("source") or {}).get("id") or obj["id"])
        ids[obj["id"]] = own if own not in ids.values() else obj["id"]
    return ids


def _object_entry(obj: dict[str, Any], relations: list[dict[str, str]]) -> dict[str, Any]:
    names = (obj.get("source") or {}).get("names") or [obj["type"]]
    x, y, w, h = (pixel_number(v) for v in obj["bbox"])
    return {
        "name": names[0],
        "x": x,
        "y": y,
        "w": w,
        "h": h,
        "attributes": obj["attributes"],
        "relations": relations,
    }


register(
    open_vocabulary_format(
        read_open=read_open,
        value="gqa",
        name="GQA",
        label="GQA scene graphs",
        description="GQA: a scene graphs file (one JSON object keyed by image id), or a zip of them; names "
        "are mapped by the mapping file.",
        content_type="application/json",
        extension="gqa.json",
        write=write,
    )
)
