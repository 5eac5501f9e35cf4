"""Scenes named in an open vocabulary, and how they become scene-graph records of ours.

The readers of Visual Genome, GQA and Open Images turn their files into `OpenScene`s: the source's own
names, synsets, boxes in pixels and predicates, checked for shape (a bad entry is refused with its
place) but not yet for meaning. `SceneMapper` then applies the mapping file (annotations.formats.mapping)
and counts in an `ImportReport` what it mapped, merged and dropped:

- an object takes the type of its first name (then synset) the mapping knows; one without is dropped,
  and so is an Open Images group box (it stands for several objects nobody boxed one by one) and a box
  wholly outside the image (a box partly outside is clipped, as everywhere);
- objects listed twice under one id, and objects of one type with the very same box, are merged;
- an object's attributes are known only if the source speaks to every attribute group of its type: an
  exclusive group needs a value; a group of independent flags needs a value unless the importer says
  the source is complete (then silence means "no"). Otherwise the object's attributes are unknown,
  never false, and the values it did give are counted as set aside;
- a relationship takes the mapped relationship (reversed if the mapping says so); one whose subject or
  object is missing or dropped, whose predicate is not mapped, or that the vocabulary does not allow
  between the two types, is dropped; one found twice is merged.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from annotations.formats.mapping import Mapping, identity_mapping, normalize
from annotations.formats.records import ImportReport, Record, RecordError
from annotations.formats.registry import ReadContext, Reader, Reading, SceneFormat
from annotations.formats.streaming import describe
from kernel.errors import SceneError
from kernel.scene import clip_box
from kernel.vocabulary import Vocabulary

IMAGE_EXTENSION = re.compile(r"\.(jpe?g|png|webp)$", re.IGNORECASE)


class BadEntry(ValueError):
    """An entry of the source that cannot be read as the format describes it: refused with its place."""

    def __init__(self, place: str, message: str) -> None:
        super().__init__(f"{place}: {message}")
        self.place, self.message = place, message

    def error(self) -> RecordError:
        return RecordError(None, f"{self.place}: {self.message}")


def number(value: Any, place: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise BadEntry(place, f"must be a number, not {describe(value)}")
    return float(value)


def pixels(value: Any, place: str) -> int:
    """An image's width or height."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= 100_000:
        raise BadEntry(place, f"must be a whole number of pixels from 1 to 100000, not {describe(value)}")
    return value


def box(x: Any, y: Any, w: Any, h: Any, place: str) -> tuple[float, float, float, float]:
    """x, y, width, height as given (clipping to the image is the mapper's); width and height positive."""
    values = tuple(number(v, f"{place}.{k}") for k, v in zip("xywh", (x, y, w, h), strict=True))
    if values[2] <= 0 or values[3] <= 0:
        raise BadEntry(place, f"a box has a positive width and height, not {values[2]:g} x {values[3]:g}")
    return values  # type: ignore[return-value]


def names(value: Any, place: str, single: bool = False) -> list[str]:
    """A list of names (absent or null: none); `single`: one name alone is allowed too."""
    if value is None:
        return []
    if single and isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BadEntry(place, f"must be a list of names, not {describe(value)}")
    return [v for v in value if v.strip()]


def image_name(key: str) -> str:
    """The image a source's image id stands for: `2370799` -> `2370799.jpg` (a name with its extension
    stays as it is)."""
    return key if IMAGE_EXTENSION.search(key) else f"{key}.jpg"


def image_key(name: str) -> str:
    """The inverse of `image_name`, for the exports."""
    stem = name[: -len(".jpg")]
    return stem if name.endswith(".jpg") and stem and not IMAGE_EXTENSION.search(stem) else name


@dataclass
class OpenObject:
    key: str  # the source's id of the object in its image
    names: list[str]
    synsets: list[str]
    box: tuple[float, float, float, float]  # x, y, width, height in pixels; width and height positive
    attributes: list[str] = field(default_factory=list)
    group: bool = False  # Open Images' IsGroupOf: a box around several objects


def _name(obj: OpenObject) -> str:
    return normalize(obj.names[0] if obj.names else obj.synsets[0] if obj.synsets else "(no name)")


@dataclass
class OpenRelationship:
    subject: str
    predicate: str
    object: str


@dataclass
class OpenScene:
    image: str
    width: int
    height: int
    objects: dict[str, OpenObject] = field(default_factory=dict)
    relationships: list[OpenRelationship] = field(default_factory=list)
    merged: list[str] = field(default_factory=list)  # names of objects listed again under their id
    added: list[str] = field(default_factory=list)  # names of objects found only in a relationship

    def add(self, obj: OpenObject, *, join: bool = False) -> None:
        """Add an object; one already there under its key gains its names and attributes. `join`: the
        same object seen again in another file of the source (not a duplicate of the source's own)."""
        known = self.objects.get(obj.key)
        if known is None:
            self.objects[obj.key] = obj
            return
        if not join:
            self.merged.append(_name(obj))
        known.names.extend(n for n in obj.names if n not in known.names)
        known.synsets.extend(s for s in obj.synsets if s not in known.synsets)
        known.attributes.extend(a for a in obj.attributes if a not in known.attributes)

    def add_end(self, obj: OpenObject) -> None:
        """The subject or object a relationship carries whole (Visual Genome's relationships.json, Open
        Images' relationship rows): the same object as the image's, or one found only there."""
        if obj.key not in self.objects:
            self.added.append(_name(obj))
        self.add(obj, join=True)


class SceneMapper:
    def __init__(self, mapping: Mapping | None, vocabulary: Vocabulary, complete: bool, report: ImportReport):
        self.mapping = mapping or identity_mapping(vocabulary)
        self.vocabulary, self.complete, self.report = vocabulary, complete, report

    def record(self, scene: OpenScene) -> dict[str, Any]:
        """The scene-graph record of docs/method.md section 9 for an open scene."""
        for name in scene.merged:
            self.report.add("merged: objects listed twice under one id", name)
        for name in scene.added:
            self.report.add("added: objects found only in a relationship", name)
        objects, id_of = self._objects(scene)
        return {
            "image": scene.image,
            "width": scene.width,
            "height": scene.height,
            "objects": objects,
            "relationships": self._relationships(scene, objects, id_of),
        }

    # --- Objects ---

    def _objects(self, scene: OpenScene) -> tuple[list[dict[str, Any]], dict[str, str | None]]:
        objects: list[dict[str, Any]] = []
        by_box: dict[tuple[str, tuple[float, ...]], dict[str, Any]] = {}
        id_of: dict[str, str | None] = {}  # source key -> our id, or None: dropped
        for key, obj in scene.objects.items():
            mapped = self._object(obj, scene)
            if mapped is None:
                id_of[key] = None
                continue
            same = by_box.get((mapped["type"], tuple(mapped["bbox"])))
            if same is not None:
                self.report.add("merged: objects of one type with the same box", mapped["type"])
                same["_values"].extend(v for v in mapped["_values"] if v not in same["_values"])
                id_of[key] = same["id"]
                continue
            mapped["id"] = f"o{len(objects) + 1}"
            by_box[(mapped["type"], tuple(mapped["bbox"]))] = mapped
            objects.append(mapped)
            id_of[key] = mapped["id"]
        return [self._attributes_settled(o) for o in objects], id_of

    def _object(self, obj: OpenObject, scene: OpenScene) -> dict[str, Any] | None:
        name = _name(obj)
        if obj.group:
            self.report.add("dropped: group boxes (several objects in one box)", name)
            return None
        found = self.mapping.type_of(obj.names, obj.synsets)
        if found is None:
            dropped = any(normalize(n) in self.mapping.drop_names for n in [*obj.names, *obj.synsets])
            why = (
                "dropped: object names the mapping drops"
                if dropped
                else "dropped: object names not in the mapping"
            )
            self.report.add(why, name)
            return None
        type_name, implied, decided_by = found
        try:
            box = clip_box(list(obj.box), scene.width, scene.height, "bbox")
        except SceneError:
            self.report.add("dropped: boxes outside the image", type_name)
            return None
        self.report.add(f"mapped: objects to {type_name}", decided_by)
        values = list(implied)
        for attribute in obj.attributes:
            value = self._attribute(type_name, attribute)
            if value is not None and value not in values:
                values.append(value)
        return {"type": type_name, "bbox": list(box), "_values": values}

    def _attribute(self, type_name: str, name: str) -> str | None:
        normal = normalize(name)
        value = self.mapping.attributes.get(type_name, {}).get(normal)
        if value is not None:
            self.report.add(f"mapped: attributes of {type_name}", f"{normal} -> {value}")
            return value
        why = (
            "dropped: attributes the mapping drops"
            if normal in self.mapping.drop_attributes
            else "dropped: attributes not in the mapping"
        )
        self.report.add(why, normal)
        return None

    def _attributes_settled(self, obj: dict[str, Any]) -> dict[str, Any]:
        """Known values only when the source speaks to every group (module docstring); else unknown."""
        values: list[str] = obj.pop("_values")
        object_type = self.vocabulary.object_type(obj["type"])
        chosen: dict[int, str] = {}
        conflicting = False
        for value in values:
            group = object_type.group_of[value]
            if object_type.groups[group].exclusive and chosen.get(group, value) != value:
                conflicting = True
            chosen.setdefault(group, value)
        known = (
            bool(values)
            and not conflicting
            and all(
                index in chosen or (not group.exclusive and self.complete)
                for index, group in enumerate(object_type.groups)
            )
        )
        if conflicting:
            self.report.add("unknown: attributes that contradict each other", obj["type"])
        elif not known:
            why = "unknown: attributes the source gives only in part" if values else "unknown: no attributes"
            self.report.add(why, obj["type"])
        ordered = [value for value in object_type.attributes if value in values] if known else []
        return {
            "id": obj["id"],
            "type": obj["type"],
            "bbox": obj["bbox"],
            "attributes": ordered,
            "attributes_known": known,
        }

    # --- Relationships ---

    def _relationships(
        self, scene: OpenScene, objects: list[dict[str, Any]], id_of: dict[str, str | None]
    ) -> list[dict[str, str]]:
        type_of = {o["id"]: o["type"] for o in objects}
        found: set[tuple[str, str, str]] = set()
        kept: list[dict[str, str]] = []
        for relation in scene.relationships:
            link = self._relationship(relation, id_of, type_of)
            if link is None:
                continue
            if link in found:
                self.report.add("merged: relationships found twice", link[1])
                continue
            found.add(link)
            kept.append({"subject": link[0], "predicate": link[1], "object": link[2]})
        return kept

    def _relationship(
        self, relation: OpenRelationship, id_of: dict[str, str | None], type_of: dict[str, str]
    ) -> tuple[str, str, str] | None:
        predicate = normalize(relation.predicate)
        if relation.subject not in id_of or relation.object not in id_of:
            self.report.add("dropped: relationships whose subject or object is missing", predicate)
            return None
        subject, obj = id_of[relation.subject], id_of[relation.object]
        if subject is None or obj is None:
            self.report.add("dropped: relationships of dropped objects", predicate)
            return None
        rule = self.mapping.relationships.get(predicate)
        if rule is None:
            why = (
                "dropped: predicates the mapping drops"
                if predicate in self.mapping.drop_predicates
                else "dropped: predicates not in the mapping"
            )
            self.report.add(why, predicate)
            return None
        if rule.reverse:
            subject, obj = obj, subject
        relationship = self.vocabulary.relationship(rule.relationship)
        if subject == obj:
            self.report.add("dropped: relationships of an object with itself (once merged)", predicate)
            return None
        if not relationship.allows(type_of[subject], type_of[obj]):
            self.report.add(
                "dropped: relationships the vocabulary does not allow between their types",
                f"{predicate} ({type_of[subject]}, {type_of[obj]})",
            )
            return None
        if relationship.symmetric and obj < subject:
            subject, obj = obj, subject
        self.report.add("mapped: relationships", f"{predicate} -> {rule.relationship}")
        return subject, rule.relationship, obj


def open_vocabulary_format(*, read_open: Reader, **described: Any) -> SceneFormat:
    """A format that names things in an open vocabulary: its reader before the mapping, then the mapping;
    not complete unless the importer says so."""
    return SceneFormat(read=mapped_reader(read_open), read_open=read_open, complete=False, **described)


def mapped_reader(read_open: Reader) -> Reader:
    """The reader of a format with an open vocabulary: its own reader (`read_open`, whose records are
    `OpenScene`s), then the mapping."""

    def read(handle: IO[bytes], context: ReadContext) -> Reading:
        opened = read_open(handle, context)
        mapper = SceneMapper(context.mapping, context.vocabulary, context.complete, context.report)
        return Reading(opened.total, _mapped(opened.items, mapper))

    return read


def _mapped(items: Iterable[Record | RecordError], mapper: SceneMapper) -> Iterator[Record | RecordError]:
    for item in items:
        if isinstance(item, Record):
            yield Record(item.number, mapper.record(item.data), item.place)
        else:
            yield item
