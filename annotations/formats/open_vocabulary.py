"""Scenes named in an open vocabulary, and how they become scene-graph records of ours.

The readers of Visual Genome, GQA and Open Images turn their files into `OpenScene`s: the source's own
names, synsets, boxes in pixels and predicates, checked for shape (a bad entry is refused with its
place) but not yet for meaning. `SceneMapper` then applies the mapping file (annotations.formats.mapping)
and counts in an `ImportReport` what it mapped, merged and dropped:

- an object takes the type of its first name (then synset, then Open Images label) the mapping knows;
  one without is dropped, and so is a box wholly outside the image (a box partly outside is clipped, as
  everywhere). A depiction or a group box (Open Images' IsDepiction, IsGroupOf; COCO's iscrowd) is
  kept with its flag, shown and exported, but is never an object of a test;
- an entry that cannot be read (a zero-width box) is refused with its place, and the rest of its image
  is read (`OpenScene.refused`);
- objects listed twice under one id, and objects of one type with the very same box, are merged;
- attributes are settled group by group: a source name mapped to a value of an exclusive group sets
  that group (two values contradict each other: the group stays unknown); a mapped flag the source
  states holds; a group the source says nothing about is unknown, never "no", unless the importer says
  the source is complete (then a silent group of flags means "no"). What a name `implies` counts as
  stated. The annotation queue then asks for the unknown groups only;
- a relationship takes the mapped relationship (reversed if the mapping says so); one whose subject or
  object has no box in the source's object lists is dropped and counted (nothing is invented) unless
  the importer asks to add such objects, which are then marked `added`; one whose object is dropped,
  whose predicate is not mapped, or that the vocabulary does not allow between the two types, is
  dropped; one found twice is merged;
- the source's ids, names, synsets and labels stay with each object (`source`), and the image's id with
  the image (`source_id`): the exports write them back.
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
from kernel.scene import NOT_IN_TESTS, OBJECT_FLAGS, SOURCE_LIST_MAX, clip_box, object_document
from kernel.vocabulary import Vocabulary

FLAG_NAMES = {"depiction": "depictions", "group": "group boxes (several objects in one box)"}
IMAGE_EXTENSION = re.compile(r"\.(jpe?g|png|webp)$", re.IGNORECASE)


class BadEntry(ValueError):
    """An entry of the source that cannot be read as the format describes it: refused with its place."""

    def __init__(self, place: str, message: str) -> None:
        super().__init__(f"{place}: {message}")
        self.place, self.message = place, message

    def error(self) -> RecordError:
        return RecordError(None, f"{self.place}: {self.message}")


def at(place: str, field: str | None) -> str:
    """`place.field`, or `place` alone. The readers check millions of entries and nearly all are good, so
    a field's place is formatted only when an entry is refused, never for each check (decision 0069)."""
    return place if field is None else f"{place}.{field}"


def number(value: Any, place: str, field: str | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise BadEntry(at(place, field), f"must be a number, not {describe(value)}")
    return float(value)


def pixels(value: Any, place: str) -> int:
    """An image's width or height."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= 100_000:
        raise BadEntry(place, f"must be a whole number of pixels from 1 to 100000, not {describe(value)}")
    return value


def box(x: Any, y: Any, w: Any, h: Any, place: str) -> tuple[float, float, float, float]:
    """x, y, width, height as given (clipping to the image is the mapper's); width and height positive."""
    values = (number(x, place, "x"), number(y, place, "y"), number(w, place, "w"), number(h, place, "h"))
    if values[2] <= 0 or values[3] <= 0:
        raise BadEntry(place, f"a box has a positive width and height, not {values[2]:g} x {values[3]:g}")
    return values


def names(value: Any, place: str, field: str | None = None, single: bool = False) -> list[str]:
    """A list of names (absent or null: none); `single`: one name alone is allowed too."""
    if value is None:
        return []
    if single and isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise BadEntry(at(place, field), f"must be a list of names, not {describe(value)}")
    return [v for v in value if v.strip()]


def source_number(value: Any, fallback: int) -> int | str:
    """A source's id as it wrote it: `2370799` a number again, `n123` a text; `fallback` when absent."""
    if value is None or value == "":
        return fallback
    text = str(value)
    return int(text) if (text.isdigit() and not text.startswith("0")) or text == "0" else text


def pixel_number(value: float) -> int | float:
    """A coordinate in pixels as a source writes it: a whole number as one (`412`, not `412.0`)."""
    return int(value) if float(value).is_integer() else value


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
    key: str  # the source's id of the object in its image (Open Images: its label and box)
    names: list[str]
    synsets: list[str]
    box: tuple[float, float, float, float]  # x, y, width, height in pixels; width and height positive
    attributes: list[str] = field(default_factory=list)
    flags: set[str] = field(default_factory=set)  # kernel.scene.OBJECT_FLAGS the source states
    label: str | None = None  # Open Images' class code (`/m/01g317`), which its files name objects by
    has_id: bool = True  # False where the source gives objects no id of their own (Open Images)

    def source(self) -> dict[str, Any] | None:
        """Who the object is in its source, kept with the annotation and written back by exports."""
        source: dict[str, Any] = {}
        if self.has_id:
            source["id"] = self.key
        if self.names:
            source["names"] = self.names[:SOURCE_LIST_MAX]
        if self.synsets:
            source["synsets"] = self.synsets[:SOURCE_LIST_MAX]
        if self.label:
            source["label"] = self.label
        return source or None


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
    # The subjects and objects of relationships that have no box of their own in the source's object
    # lists: never objects unless the importer asks (`ReadContext.add_relationship_objects`).
    unboxed: dict[str, OpenObject] = field(default_factory=dict)
    source_id: str = ""  # the image's id in its source
    # Entries of this image refused with their place (a zero-width box): the rest of the image is read.
    refused: list[RecordError] = field(default_factory=list)

    def add(self, obj: OpenObject, *, join: bool = False) -> None:
        """Add an object; one already there under its key gains its names and attributes. `join`: the
        same object seen again in another file of the source (not a duplicate of the source's own)."""
        known = self.objects.get(obj.key)
        if known is None:
            self.objects[obj.key] = obj
            return
        if not join:
            self.merged.append(_name(obj))
        _join(known, obj)

    def add_end(self, obj: OpenObject) -> None:
        """The subject or object a relationship carries whole (Visual Genome's relationships.json, Open
        Images' relationship rows): the image's own object, or one with no box elsewhere (kept apart)."""
        if obj.key in self.objects:
            _join(self.objects[obj.key], obj)
        elif obj.key in self.unboxed:
            _join(self.unboxed[obj.key], obj)
        else:
            self.unboxed[obj.key] = obj

    def object_for_attributes(self, key: str) -> OpenObject:
        return self.objects.get(key) or self.unboxed[key]


def _join(known: OpenObject, obj: OpenObject) -> None:
    known.names.extend(n for n in obj.names if n not in known.names)
    known.synsets.extend(s for s in obj.synsets if s not in known.synsets)
    known.attributes.extend(a for a in obj.attributes if a not in known.attributes)
    known.flags |= obj.flags


class SceneMapper:
    def __init__(
        self,
        mapping: Mapping | None,
        vocabulary: Vocabulary,
        complete: bool,
        report: ImportReport,
        add_relationship_objects: bool = False,
    ):
        self.mapping = mapping or identity_mapping(vocabulary)
        # The vocabulary's own names mean themselves where the mapping says nothing of them: an export
        # (which writes our values and relationships beside the source's own object names) reads back
        # through the mapping it was imported with.
        self.own = identity_mapping(vocabulary)
        self.vocabulary, self.complete, self.report = vocabulary, complete, report
        self.add_relationship_objects = add_relationship_objects

    def record(self, scene: OpenScene) -> dict[str, Any]:
        """The scene-graph record of docs/method.md section 9 for an open scene."""
        for name in scene.merged:
            self.report.add("merged: objects listed twice under one id", name)
        objects, id_of = self._objects(scene)
        record = {
            "image": scene.image,
            "width": scene.width,
            "height": scene.height,
            "objects": objects,
            "relationships": self._relationships(scene, objects, id_of),
        }
        if scene.source_id:
            record["source_id"] = scene.source_id
        return record

    # --- Objects ---

    def _objects(self, scene: OpenScene) -> tuple[list[dict[str, Any]], dict[str, str | None]]:
        objects: list[dict[str, Any]] = []
        by_box: dict[tuple[str, tuple[float, ...], frozenset[str]], dict[str, Any]] = {}
        id_of: dict[str, str | None] = {}  # source key -> our id, or None: dropped
        for key, obj in self._with_unboxed(scene):
            mapped = self._object(obj, scene)
            if mapped is None:
                id_of[key] = None
                continue
            same_key = (mapped["type"], tuple(mapped["bbox"]), frozenset(mapped["flags"]))
            same = by_box.get(same_key)
            if same is not None:
                self.report.add("merged: objects of one type with the same box", mapped["type"])
                held = {value for value, _ in same["_values"]}
                same["_values"].extend(v for v in mapped["_values"] if v[0] not in held)
                id_of[key] = same["id"]
                continue
            mapped["id"] = f"o{len(objects) + 1}"
            by_box[same_key] = mapped
            objects.append(mapped)
            id_of[key] = mapped["id"]
        return [self._attributes_settled(o) for o in objects], id_of

    def _with_unboxed(self, scene: OpenScene) -> Iterator[tuple[str, OpenObject]]:
        """The image's objects, then (when the importer asks) those found only in a relationship,
        marked `added`: their box is the relationship's, not an object of the source's lists."""
        yield from scene.objects.items()
        if self.add_relationship_objects:
            for key, obj in scene.unboxed.items():
                obj.flags.add("added")
                yield key, obj

    def _object(self, obj: OpenObject, scene: OpenScene) -> dict[str, Any] | None:
        name = _name(obj)
        names = [*obj.names, *([obj.label] if obj.label else [])]
        found = self.mapping.type_of(names, obj.synsets) or self._own_type(names)
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
        for flag in sorted(obj.flags & NOT_IN_TESTS):
            self.report.add(f"mapped: {FLAG_NAMES[flag]} (kept, never an object of a test)", type_name)
        values = [(value, f"{decided_by} (implies)") for value in implied]
        for attribute in obj.attributes:
            value = self._attribute(type_name, attribute)
            if value is not None and value not in [v for v, _ in values]:
                values.append((value, normalize(attribute)))
        return {
            "type": type_name,
            "bbox": list(box),
            "_values": values,
            "flags": [f for f in OBJECT_FLAGS if f in obj.flags],
            "source": obj.source(),
        }

    def _own_type(self, names: list[str]) -> tuple[str, tuple[str, ...], str] | None:
        if any(normalize(n) in self.mapping.drop_names for n in names):
            return None
        return self.own.type_of(names, [])

    def _attribute(self, type_name: str, name: str) -> str | None:
        normal = normalize(name)
        value = self.mapping.attributes.get(type_name, {}).get(normal)
        if value is None and normal not in self.mapping.drop_attributes:
            value = self.own.attributes.get(type_name, {}).get(normal)
        if value is not None:
            return value
        why = (
            "dropped: attributes the mapping drops"
            if normal in self.mapping.drop_attributes
            else "dropped: attributes not in the mapping"
        )
        self.report.add(why, normal)
        return None

    def _attributes_settled(self, obj: dict[str, Any]) -> dict[str, Any]:
        """Group by group: an exclusive group is known when the source gives it one value; a group of
        flags holds the flags the source states, and is known (silence meaning "no") only when the
        importer says the source is complete. Every other group is unknown, never "no"."""
        values: list[tuple[str, str]] = obj.pop("_values")
        object_type = self.vocabulary.object_type(obj["type"])
        first: dict[str, str] = {}  # each value once, said by the first name that said it
        for value, said_by in values:
            first.setdefault(value, said_by)
        given: dict[int, list[tuple[str, str]]] = {}
        for value, said_by in first.items():
            given.setdefault(object_type.group_of[value], []).append((value, said_by))
        kept: set[str] = set()
        unknown: list[str] = []
        for index, group in enumerate(object_type.groups):
            stated = given.get(index, [])
            if group.exclusive and len(stated) > 1:
                self.report.add(
                    "dropped: attribute values that contradict each other",
                    f"{obj['type']} {group.name}: {', '.join(v for v, _ in stated)}",
                )
                stated = []
            for value, said_by in stated:
                kept.add(value)
                self.report.add(f"mapped: attributes of {obj['type']}", f"{said_by} -> {value}")
            # A group of flags is told when the source is complete (and says anything of the object at
            # all: a complete source that lists no value for it says nothing), or states every flag.
            said = (
                bool(stated)
                if group.exclusive
                else (self.complete and bool(first)) or len(stated) == len(group.values)
            )
            if not said:
                unknown.append(group.name)
                self.report.add(
                    "unknown: attribute groups the source does not give", f"{obj['type']} {group.name}"
                )
        return object_document(
            obj["id"],
            obj["type"],
            obj["bbox"],
            [value for value in object_type.attributes if value in kept],
            not unknown,
            unknown,
            obj["flags"],
            obj["source"],
        )

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
            self.report.add("dropped: relationships whose subject or object has no box", predicate)
            return None
        subject, obj = id_of[relation.subject], id_of[relation.object]
        if subject is None or obj is None:
            self.report.add("dropped: relationships of dropped objects", predicate)
            return None
        rule = self.mapping.relationships.get(predicate)
        if rule is None and predicate not in self.mapping.drop_predicates:
            rule = self.own.relationships.get(predicate)
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
        mapper = SceneMapper(
            context.mapping,
            context.vocabulary,
            context.complete,
            context.report,
            context.add_relationship_objects,
        )
        return Reading(opened.total, _mapped(opened.items, mapper))

    return read


def _mapped(items: Iterable[Record | RecordError], mapper: SceneMapper) -> Iterator[Record | RecordError]:
    for item in items:
        if isinstance(item, Record):
            yield from item.data.refused
            yield Record(item.number, mapper.record(item.data), item.place)
        else:
            yield item
