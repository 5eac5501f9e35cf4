"""COCO: one JSON document of images, annotations (boxes) and categories (the vocabulary's types).

COCO carries boxes and categories only, so its objects come in with `attributes_known: false` and no
relationships. A crowd box (`iscrowd` 1) is kept with the flag `group`, as Open Images' group boxes
are: never an object of a test. Each image keeps its COCO id and each box its annotation id, which the
export writes back. Its records are numbered by their position in `images` (from 1) and every error names its
entry (`images[3]: ...`, `annotations[12]: ...`): a COCO file has no meaningful line numbers. Keys COCO
has beyond these (segmentation, area, licenses) are left alone: they are COCO's, not mistakes.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from typing import IO, Any

from datasets.formats.open_scenes import pixel_number, source_number
from datasets.formats.records import Record, RecordError
from datasets.formats.registry import (
    ReadContext,
    Reading,
    SceneFormat,
    WriteContext,
    chunked_text,
    register,
)
from kernel import safejson


def coco_parse(data: bytes, max_depth: int = safejson.DEFAULT_MAX_DEPTH) -> tuple[Any, RecordError | None]:
    """A COCO file parsed, or the RecordError that says where it cannot be read."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, RecordError(
            None, f"the COCO file is not UTF-8 text (byte {exc.start + 1} cannot be read)"
        )
    try:
        return safejson.loads(text, max_depth=max_depth), None
    except json.JSONDecodeError as exc:
        where = f"line {exc.lineno} column {exc.colno}"
        return None, RecordError(None, f"the COCO file is not valid JSON ({exc.msg} at {where})")
    except safejson.UnsafeJSON as exc:
        where = exc.where_in(text)
        return None, RecordError(None, f"the COCO file is refused at {where}: {exc}" if where else str(exc))


def coco_records(document: Any, type_names: Iterable[str]) -> tuple[list[Record], list[RecordError]]:
    """COCO images as scene records numbered by their position in `images` (from 1); errors name the
    entry (`coco_place`)."""
    if not isinstance(document, dict) or not isinstance(document.get("images"), list):
        return [], [RecordError(None, 'a COCO file is a JSON object with an "images" list')]
    errors: list[RecordError] = []
    categories = _coco_categories(document.get("categories"), set(type_names), errors)
    records: list[Record] = []
    number_of: dict[Any, int] = {}
    for position, image in enumerate(document["images"], start=1):
        record = _coco_image(image, position, errors)
        if record is not None:
            if image["id"] in number_of:
                errors.append(
                    RecordError(None, f"{coco_place(position)}: duplicate image id {image['id']!r}")
                )
                continue
            number_of[image["id"]] = len(records)
            records.append(Record(position, record, coco_place(position)))
    annotations = document.get("annotations", [])
    if not isinstance(annotations, list):
        errors.append(RecordError(None, '"annotations" must be a list'))
        annotations = []
    for position, annotation in enumerate(annotations):
        _coco_annotation(annotation, position, categories, number_of, records, errors)
    return records, errors


def coco_place(position: int) -> str:
    """Where the COCO record numbered `position` (from 1) is in its document."""
    return f"images[{position - 1}]"


def _coco_categories(raw: Any, type_names: set[str], errors: list[RecordError]) -> dict[Any, str]:
    if not isinstance(raw, list):
        errors.append(RecordError(None, '"categories" must be a list of {"id", "name"}'))
        return {}
    categories: dict[Any, str] = {}
    for position, category in enumerate(raw):
        if (
            not isinstance(category, dict)
            or "id" not in category
            or not isinstance(category.get("name"), str)
        ):
            errors.append(RecordError(None, f'categories[{position}]: a category is {{"id", "name"}}'))
        elif category["name"] not in type_names:
            known = ", ".join(sorted(type_names))
            errors.append(
                RecordError(
                    None,
                    f"categories[{position}]: {category['name']!r} is not an object type of the "
                    f"collection's vocabulary (known: {known})",
                )
            )
        else:
            categories[category["id"]] = category["name"]
    return categories


def _coco_image(image: Any, position: int, errors: list[RecordError]) -> dict[str, Any] | None:
    where = coco_place(position)
    if not isinstance(image, dict) or "id" not in image:
        errors.append(RecordError(None, f'{where}: an image is {{"id", "file_name", "width", "height"}}'))
        return None
    if not isinstance(image.get("file_name"), str) or not image["file_name"].strip():
        errors.append(RecordError(None, f"{where}: file_name must be a non-empty string"))
        return None
    return {
        "image": image["file_name"],
        "width": image.get("width"),
        "height": image.get("height"),
        "objects": [],
        "relationships": [],
        "source_id": image["id"],
    }


def _coco_annotation(
    annotation: Any,
    position: int,
    categories: dict[Any, str],
    number_of: dict[Any, int],
    records: list[Record],
    errors: list[RecordError],
) -> None:
    where = f"annotations[{position}]"
    if not isinstance(annotation, dict):
        errors.append(RecordError(None, f'{where}: an annotation is {{"image_id", "category_id", "bbox"}}'))
        return
    if annotation.get("image_id") not in number_of:
        errors.append(RecordError(None, f"{where}: no image with id {annotation.get('image_id')!r}"))
        return
    record = records[number_of[annotation["image_id"]]].data
    if annotation.get("category_id") not in categories:
        errors.append(
            RecordError(None, f"{where}: no usable category with id {annotation.get('category_id')!r}")
        )
        return
    crowd = annotation.get("iscrowd", 0)
    if crowd not in (0, 1):
        errors.append(RecordError(None, f"{where}: iscrowd must be 0 or 1, not {crowd!r}"))
        return
    obj: dict[str, Any] = {
        "id": f"o{len(record['objects']) + 1}",
        "type": categories[annotation["category_id"]],
        "bbox": annotation.get("bbox"),
        "attributes": [],
        "attributes_known": False,
        # A crowd box is Open Images' group box: kept, never an object of a test.
        "flags": ["group"] if crowd else [],
    }
    if "id" in annotation:
        obj["source"] = {"id": annotation["id"]}
    record["objects"].append(obj)


def coco_document(records: Iterable[dict[str, Any]], type_names: Sequence[str], description: str = ""):
    """Scene records as one COCO document: categories are the vocabulary's types, in its order."""
    category_id = {name: number for number, name in enumerate(type_names, start=1)}
    images: list[dict[str, Any]] = []
    annotations: list[dict[str, Any]] = []
    taken: set[Any] = set()
    for number, record in enumerate(records, start=1):
        image_id = source_number(record.get("source_id"), number)
        images.append(
            {
                "id": image_id,
                "file_name": record["image"],
                "width": record["width"],
                "height": record["height"],
            }
        )
        for obj in record["objects"]:
            x, y, w, h = (pixel_number(v) for v in obj["bbox"])
            own = (obj.get("source") or {}).get("id")
            annotation_id = source_number(own, len(annotations) + 1)
            if annotation_id in taken:
                annotation_id = f"{image_id}-{len(annotations) + 1}"
            taken.add(annotation_id)
            annotations.append(
                {
                    "id": annotation_id,
                    "image_id": image_id,
                    "category_id": category_id[obj["type"]],
                    "bbox": [x, y, w, h],
                    "area": w * h,
                    "iscrowd": 1 if "group" in obj.get("flags", ()) else 0,
                }
            )
    return {
        "info": {"description": description},
        "images": images,
        "annotations": annotations,
        "categories": [{"id": number, "name": name} for name, number in category_id.items()],
    }


def read(handle: IO[bytes], context: ReadContext) -> Reading:
    document, unreadable = coco_parse(handle.read(), context.max_depth)
    if unreadable is not None:
        return Reading(0, [unreadable])
    records, errors = coco_records(document, context.vocabulary.type_index)
    images = document.get("images") if isinstance(document, dict) else None
    return Reading(len(images) if isinstance(images, list) else 0, [*errors, *records])


def write(records: Iterable[dict[str, Any]], context: WriteContext) -> Iterator[bytes]:
    type_names = [t.name for t in context.vocabulary.types]
    document = coco_document(records, type_names, description=context.description)
    return chunked_text(json.JSONEncoder().iterencode(document))


register(
    SceneFormat(
        value="coco",
        name="COCO",
        label="COCO boxes and categories",
        description="COCO: one JSON document of images, boxes and categories named like the vocabulary's "
        "types (no attributes, no relationships).",
        content_type="application/json",
        extension="coco.json",
        read=read,
        write=write,
    )
)
