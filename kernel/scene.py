"""Scene graphs (docs/method.md section 9): one annotated image, validated against a vocabulary.

The same rules hold wherever a scene graph enters the platform (the engine's command line, the
annotation import, the annotation API): boxes are clipped to the image and must keep at least
`MIN_BOX_SIDE` pixels on each side, attribute values belong to the object's type, an exclusive group has
at most one value, an object whose attributes are unknown lists none, relationships join two different
objects of the same image with types the relationship allows, and a symmetric relationship is kept once
(`kernel.scene_relationships`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from kernel.errors import CoreErrorCode, SceneError, at
from kernel.scene_relationships import parse_relationships
from kernel.vocabulary import Vocabulary

MIN_BOX_SIDE = 1.0
MAX_IMAGE_SIDE = 100_000


# What a source may say about a box besides its type and attributes (Open Images' Is* columns, COCO's
# iscrowd), and `added`: an object the importer made from a relationship's box (no box of its own).
OBJECT_FLAGS = ("occluded", "truncated", "inside", "depiction", "group", "added")
# A depiction (a poster of a person) or a group box (a crowd in one box) is kept with the annotation but
# is not an object of the scene a test asks about (docs/decisions/0068-partial-attributes-and-flags.md).
NOT_IN_TESTS = frozenset({"depiction", "group"})
# The keys of an object's `source`: its identity in the file it came from, written back by exports.
SOURCE_KEYS = ("id", "names", "synsets", "label")
SOURCE_TEXT_MAX = 200
SOURCE_LIST_MAX = 50


@dataclass(frozen=True)
class SceneObject:
    id: str
    type: str
    bbox: tuple[float, float, float, float]  # x, y, width, height in pixels, inside the image
    # The values known to hold. With `unknown_groups`, a flag listed here holds and the unlisted flags of
    # an unknown group are unknown; an unknown exclusive group lists none of its values.
    attributes: frozenset[str]
    # Every group known: only such an object's attributes are used by the engine (fitting, truthing).
    attributes_known: bool = True
    unknown_groups: frozenset[str] = frozenset()
    flags: frozenset[str] = frozenset()
    source: dict[str, Any] | None = field(default=None, hash=False)

    @property
    def in_tests(self) -> bool:
        return not self.flags & NOT_IN_TESTS


@dataclass(frozen=True)
class Scene:
    image: str
    width: int
    height: int
    objects: tuple[SceneObject, ...]
    # (subject index, predicate, object index); a symmetric predicate is stored once, lower index first.
    relationships: frozenset[tuple[int, str, int]]
    source_id: str = ""  # the image's id in the file it came from, written back by exports

    def related(self, subject: int, predicate: str, obj: int, symmetric: bool) -> bool:
        if symmetric:
            subject, obj = min(subject, obj), max(subject, obj)
        return (subject, predicate, obj) in self.relationships

    def to_document(self, vocabulary: Vocabulary) -> dict[str, Any]:
        objects = [
            object_document(
                o.id,
                o.type,
                list(o.bbox),
                # In vocabulary order, so that an export is stable whatever order the annotator clicked.
                [a for a in vocabulary.object_type(o.type).attributes if a in o.attributes],
                o.attributes_known,
                unknown_to_write(vocabulary, o.type, o.unknown_groups),
                [f for f in OBJECT_FLAGS if f in o.flags],
                o.source,
            )
            for o in self.objects
        ]
        relationships = [
            {"subject": self.objects[s].id, "predicate": p, "object": self.objects[o].id}
            for s, p, o in sorted(self.relationships)
        ]
        document = {
            "image": self.image,
            "width": self.width,
            "height": self.height,
            "objects": objects,
            "relationships": relationships,
        }
        if self.source_id:
            document["source_id"] = self.source_id
        return document


def unknown_to_write(vocabulary: Vocabulary, type_name: str, unknown: Iterable[str]) -> list[str]:
    """The unknown groups a record names: none when every group is unknown (`attributes_known: false`
    says so alone, as records did before groups could be unknown one by one)."""
    groups = [g.name for g in vocabulary.object_type(type_name).groups]
    named = [g for g in groups if g in unknown]
    return named if len(named) < len(groups) else []


def object_document(
    object_id: str,
    type_name: str,
    bbox: list[float],
    attributes: list[str],
    known: bool,
    unknown: list[str],
    flags: list[str],
    source: dict[str, Any] | None,
) -> dict[str, Any]:
    """An object of a scene-graph record; `unknown`, `flags` and `source` only when there are some, so
    that a record of the platform's own reads as it always did."""
    document: dict[str, Any] = {
        "id": object_id,
        "type": type_name,
        "bbox": bbox,
        "attributes": attributes,
        "attributes_known": known,
    }
    if unknown:
        document["unknown"] = unknown
    if flags:
        document["flags"] = flags
    if source:
        document["source"] = source
    return document


def _fail(message: str, where: str, code: CoreErrorCode | None = None) -> SceneError:
    return SceneError(message, where=where, code=code)


def clip_box(bbox: Any, width: int, height: int, where: str) -> tuple[float, float, float, float]:
    """Validate `[x, y, w, h]`, clip it to the image and refuse what is left degenerate."""
    if not (isinstance(bbox, list | tuple) and len(bbox) == 4):
        raise _fail("bbox must be [x, y, width, height]", where, CoreErrorCode.BAD_BOX)
    if not all(isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) for v in bbox):
        raise _fail("bbox values must be finite numbers", where, CoreErrorCode.BAD_BOX)
    x, y, w, h = (float(v) for v in bbox)
    if w <= 0 or h <= 0:
        raise _fail("bbox width and height must be positive", where, CoreErrorCode.BAD_BOX)
    x, w = _clip_span(x, w, float(width))
    y, h = _clip_span(y, h, float(height))
    if w < MIN_BOX_SIDE or h < MIN_BOX_SIDE:
        raise _fail(
            f"bbox lies outside the {width}x{height} image (or under {MIN_BOX_SIDE:g} px after clipping)",
            where,
            CoreErrorCode.BOX_OUTSIDE_IMAGE,
        )
    return (x, y, w, h)


def _clip_span(start: float, length: float, limit: float) -> tuple[float, float]:
    """Clip [start, start + length] to [0, limit]. A span already inside is returned as given: computing
    (start + length) - start would turn 50.1 into 50.10000000000002 and an export would not round-trip."""
    if start >= 0.0 and start + length <= limit:
        return start, length
    low, high = max(0.0, start), min(limit, start + length)
    return low, max(0.0, high - low)


def parse_scene(document: Any, vocabulary: Vocabulary, where: str = "scene") -> Scene:
    if not isinstance(document, dict):
        raise _fail("a scene is a JSON object", where)
    image = document.get("image")
    if not isinstance(image, str) or not image.strip():
        raise _fail("image must be a non-empty string", at(where, "image"))
    width, height = (_dimension(document.get(key), at(where, f"{key}")) for key in ("width", "height"))
    objects_raw = document.get("objects", [])
    if not isinstance(objects_raw, list):
        raise _fail("objects must be a list", at(where, "objects"))
    objects = tuple(
        parse_object(raw, vocabulary, width, height, at(where, f"objects[{i}]"))
        for i, raw in enumerate(objects_raw)
    )
    index_of: dict[str, int] = {}
    for i, obj in enumerate(objects):
        if obj.id in index_of:
            raise _fail(
                f"duplicate object id {obj.id!r}",
                at(where, f"objects[{i}].id"),
                CoreErrorCode.DUPLICATE_OBJECT_ID,
            )
        index_of[obj.id] = i
    relationships = parse_relationships(
        document.get("relationships", []), vocabulary, [o.type for o in objects], index_of, where
    )
    source_id = document.get("source_id", "")
    if isinstance(source_id, bool) or not isinstance(source_id, str | int):
        raise _fail("source_id must be a text or a whole number", at(where, "source_id"))
    return Scene(
        image.strip(),
        width,
        height,
        objects,
        relationships,
        _source_text(str(source_id), at(where, "source_id")),
    )


def _dimension(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= MAX_IMAGE_SIDE:
        raise _fail(
            f"must be a whole number of pixels between 1 and {MAX_IMAGE_SIDE}",
            where,
            CoreErrorCode.BAD_IMAGE_SIZE,
        )
    return int(value)


def parse_object(raw: Any, vocabulary: Vocabulary, width: int, height: int, where: str) -> SceneObject:
    if not isinstance(raw, dict):
        raise _fail("an object is a JSON object", where)
    object_id = raw.get("id")
    if not isinstance(object_id, str) or not object_id:
        raise _fail("id must be a non-empty string", at(where, "id"))
    type_name = raw.get("type")
    if type_name not in vocabulary.type_index:
        raise _fail(
            f"unknown object type {type_name!r}; known: {', '.join(vocabulary.type_index)}",
            at(where, "type"),
            CoreErrorCode.UNKNOWN_OBJECT_TYPE,
        )
    bbox = clip_box(raw.get("bbox"), width, height, at(where, "bbox"))
    known = raw.get("attributes_known", True)
    if not isinstance(known, bool):
        raise _fail("attributes_known must be true or false", at(where, "attributes_known"))
    object_type = vocabulary.object_type(type_name)
    unknown = _unknown_groups(raw, object_type, known, at(where, "unknown"))
    attributes = check_attributes(
        raw.get("attributes", []), vocabulary, type_name, unknown, at(where, "attributes")
    )
    return SceneObject(
        object_id,
        type_name,
        bbox,
        attributes,
        not unknown and (known or not object_type.groups),
        unknown,
        _flags(raw.get("flags", []), at(where, "flags")),
        _source(raw.get("source"), at(where, "source")),
    )


def _unknown_groups(raw: dict[str, Any], object_type: Any, known: bool, where: str) -> frozenset[str]:
    """The groups nobody has told yet: those `unknown` names, or every group when `attributes_known` is
    false and `unknown` is left out."""
    groups = [g.name for g in object_type.groups]
    if "unknown" not in raw:
        return frozenset() if known else frozenset(groups)
    names = raw["unknown"]
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise _fail("unknown must be a list of attribute group names", where)
    for name in names:
        if name not in groups:
            raise _fail(
                f"{name!r} is not an attribute group of {object_type.name}; its groups: "
                f"{', '.join(groups) or 'none'}",
                where,
                CoreErrorCode.UNKNOWN_ATTRIBUTE,
            )
    if len(set(names)) != len(names):
        raise _fail("a group is listed twice", where)
    if known and names:
        raise _fail("attributes_known is true, yet some groups are unknown", where)
    if not known and not names and groups:
        raise _fail("attributes_known is false, yet no group is unknown", where)
    return frozenset(names)


def _flags(value: Any, where: str) -> frozenset[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _fail(f"flags must be a list of {', '.join(OBJECT_FLAGS)}", where)
    for flag in value:
        if flag not in OBJECT_FLAGS:
            raise _fail(f"{flag!r} is not a flag; the flags are {', '.join(OBJECT_FLAGS)}", where)
    return frozenset(value)


def _source(value: Any, where: str) -> dict[str, Any] | None:
    """The object's identity in its source: `id` and `label` (text), `names` and `synsets` (lists)."""
    if value is None or value == {}:
        return None
    if not isinstance(value, dict):
        raise _fail("source must be an object with id, names, synsets, label", where)
    source: dict[str, Any] = {}
    for key, item in value.items():
        if key not in SOURCE_KEYS:
            raise _fail(f"source has no {key!r}; its keys are {', '.join(SOURCE_KEYS)}", where)
        if key in ("id", "label"):
            if isinstance(item, bool) or not isinstance(item, str | int):
                raise _fail("must be a text or a whole number", at(where, key))
            source[key] = _source_text(str(item), at(where, key))
        else:
            if not isinstance(item, list) or len(item) > SOURCE_LIST_MAX:
                raise _fail(f"must be a list of at most {SOURCE_LIST_MAX} names", at(where, key))
            source[key] = [_source_text(v, at(where, key)) for v in item]
    return source or None


def _source_text(value: Any, where: str) -> str:
    if not isinstance(value, str) or len(value) > SOURCE_TEXT_MAX:
        raise _fail(f"must be a text of at most {SOURCE_TEXT_MAX} characters", where)
    return value


def check_attributes(
    values: Any, vocabulary: Vocabulary, type_name: str, unknown: frozenset[str], where: str
) -> frozenset[str]:
    """The values listed: each of the type, once, at most one per exclusive group, and none in an
    exclusive group that is unknown (a flag of an unknown group may be listed: it is known to hold)."""
    object_type = vocabulary.object_type(type_name)
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise _fail("attributes must be a list of attribute values", where)
    seen: set[str] = set()
    exclusive_taken: dict[int, str] = {}
    for value in values:
        if value not in object_type.bit_of:
            raise _fail(
                f"{value!r} is not an attribute of {type_name}", where, CoreErrorCode.UNKNOWN_ATTRIBUTE
            )
        if value in seen:
            raise _fail(f"attribute {value!r} is listed twice", where, CoreErrorCode.DUPLICATE_ATTRIBUTE)
        seen.add(value)
        group_index = object_type.group_of[value]
        group = object_type.groups[group_index]
        if group.exclusive and group.name in unknown:
            raise _fail(f"{value!r} is listed, yet its group {group.name!r} is unknown", where)
        if group.exclusive:
            if group_index in exclusive_taken:
                raise _fail(
                    f"{exclusive_taken[group_index]!r} and {value!r} are both in exclusive group {group.name!r}",
                    where,
                    CoreErrorCode.EXCLUSIVE_ATTRIBUTES,
                )
            exclusive_taken[group_index] = value
    return frozenset(values)


def unfilled_exclusive_groups(obj: SceneObject, vocabulary: Vocabulary) -> list[str]:
    """Exclusive groups without a value and not marked unknown.

    docs/method.md: an exclusive group has exactly one value per object. A draft may leave some empty (saving
    checks "at most one"); a finished annotation may not, or "Is person 1 a child?" would be truthed "no"
    for a person whose age nobody ticked.
    """
    groups = vocabulary.object_type(obj.type).groups
    return [
        g.name
        for g in groups
        if g.exclusive and g.name not in obj.unknown_groups and obj.attributes.isdisjoint(g.values)
    ]


def iter_scene_lines(lines: Iterable[str], vocabulary: Vocabulary, source: str = "scenes") -> Iterable[Scene]:
    """Parse JSON Lines of scenes, naming the line of the first problem; blank lines are skipped."""
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            document = json.loads(line)
        except json.JSONDecodeError as exc:
            raise SceneError(f"not valid JSON ({exc.msg})", where=f"{source} line {number}") from None
        yield parse_scene(document, vocabulary, where=f"{source} line {number}")
