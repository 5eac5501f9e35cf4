"""Scenes named in an open vocabulary, and how they become scene-graph records of ours.

The readers of Visual Genome, GQA and Open Images turn their files into `OpenScene`s
(datasets.formats.open_scenes): the source's own names, synsets, boxes in pixels and predicates, checked
for shape (a bad entry is refused with its place) but not yet for meaning. `SceneMapper` then applies the mapping file (datasets.formats.mapping)
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

from collections.abc import Iterable, Iterator
from typing import IO, Any

from datasets.formats.mapping import Mapping, identity_mapping, normalize
from datasets.formats.open_scenes import OpenObject, OpenRelationship, OpenScene, object_name
from datasets.formats.records import ImportReport, Record, RecordError
from datasets.formats.registry import ReadContext, Reader, Reading, SceneFormat
from kernel.errors import SceneError
from kernel.scene import NOT_IN_TESTS, OBJECT_FLAGS, clip_box, object_document
from kernel.vocabulary import Vocabulary

FLAG_NAMES = {"depiction": "depictions", "group": "group boxes (several objects in one box)"}


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
        name = object_name(obj)
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
