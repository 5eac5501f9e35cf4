"""Vocabularies (docs/method.md sections 2, 3 and 9): object types, attribute groups, relationships, regions.

`parse_vocabulary` validates the JSON document and builds an immutable `Vocabulary` whose indices are
what the fitted arrays use: attribute values are bits of a per-type mask, relationships are bits of a
per-pair mask, regions are bits of a per-object visibility mask. Every problem is reported with the
path of the offending key.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from kernel.errors import VocabularyError, at
from kernel.regions import Region, parse_regions

MAX_ATTRIBUTES_PER_TYPE = 64  # one uint64 mask per object
MAX_RELATIONSHIPS = 32  # forward and reverse bits of a pair share one uint64 mask
MAX_TYPES = 127  # int8 type codes

DEFAULT_ATTRIBUTE_PHRASE = "is {value}"
_ARTICLE = re.compile(r"\ba \{value\}")


@dataclass(frozen=True)
class AttributeGroup:
    name: str
    exclusive: bool
    values: tuple[str, ...]
    phrase: str = DEFAULT_ATTRIBUTE_PHRASE
    phrases: Mapping[str, str] = field(default_factory=dict)

    def phrase_for(self, value: str) -> str:
        """The predicate said of an object: "is walking", "is an adult", "has exactly one visible tire"."""
        if value in self.phrases:
            return self.phrases[value]
        article = "an" if value[:1].lower() in "aeiou" else "a"
        return _ARTICLE.sub(article + " {value}", self.phrase).replace("{value}", value)


@dataclass(frozen=True)
class ObjectType:
    name: str
    groups: tuple[AttributeGroup, ...]

    @cached_property
    def attributes(self) -> tuple[str, ...]:
        """Every attribute value of the type; the position is the value's bit in an attribute mask."""
        return tuple(value for group in self.groups for value in group.values)

    @cached_property
    def bit_of(self) -> dict[str, int]:
        return {value: index for index, value in enumerate(self.attributes)}

    @cached_property
    def group_of(self) -> dict[str, int]:
        """Attribute value -> index of its group."""
        return {value: g for g, group in enumerate(self.groups) for value in group.values}

    @cached_property
    def group_masks(self) -> tuple[int, ...]:
        """Per group, the mask of its values' bits."""
        return tuple(sum(1 << self.bit_of[value] for value in group.values) for group in self.groups)

    def mask_of(self, values: Sequence[str] | frozenset[str]) -> int:
        mask = 0
        for value in values:
            mask |= 1 << self.bit_of[value]
        return mask


@dataclass(frozen=True)
class RelationshipType:
    name: str
    subject_types: frozenset[str]
    object_types: frozenset[str]
    symmetric: bool
    group: str
    phrase: str

    def allows(self, subject_type: str, object_type: str) -> bool:
        if subject_type in self.subject_types and object_type in self.object_types:
            return True
        # A symmetric relationship holds between the two objects whatever their order.
        return self.symmetric and object_type in self.subject_types and subject_type in self.object_types


@dataclass(frozen=True)
class Vocabulary:
    name: str
    types: tuple[ObjectType, ...]
    relationships: tuple[RelationshipType, ...]
    regions: tuple[Region, ...]
    regions_spec: str | tuple[Region, ...] = "default"
    description: str = ""

    @cached_property
    def type_index(self) -> dict[str, int]:
        return {object_type.name: index for index, object_type in enumerate(self.types)}

    @cached_property
    def relationship_index(self) -> dict[str, int]:
        return {relationship.name: index for index, relationship in enumerate(self.relationships)}

    @cached_property
    def region_index(self) -> dict[str, int]:
        return {region.id: index for index, region in enumerate(self.regions)}

    @cached_property
    def relationship_pairs(self) -> dict[str, tuple[bool, frozenset[tuple[str, str]]]]:
        """Per relationship: whether it is symmetric, and the (subject type, object type) pairs it allows."""
        types = [t.name for t in self.types]
        return {
            r.name: (r.symmetric, frozenset((a, b) for a in types for b in types if r.allows(a, b)))
            for r in self.relationships
        }

    def object_type(self, name: str) -> ObjectType:
        return self.types[self.type_index[name]]

    def relationship(self, name: str) -> RelationshipType:
        return self.relationships[self.relationship_index[name]]

    def region(self, region_id: str) -> Region:
        return self.regions[self.region_index[region_id]]

    def to_document(self) -> dict[str, Any]:
        """The JSON document of docs/method.md section 9; `parse_vocabulary(v.to_document()) == v`."""
        return {
            "name": self.name,
            "description": self.description,
            "types": {
                t.name: {"attribute_groups": [_group_document(g) for g in t.groups]} for t in self.types
            },
            "relationships": [_relationship_document(r) for r in self.relationships],
            "regions": "default"
            if self.regions_spec == "default"
            else [{"id": r.id, "box": list(r.box)} for r in self.regions],
        }


def _group_document(group: AttributeGroup) -> dict[str, Any]:
    document: dict[str, Any] = {
        "name": group.name,
        "exclusive": group.exclusive,
        "values": list(group.values),
    }
    if group.phrase != DEFAULT_ATTRIBUTE_PHRASE:
        document["phrase"] = group.phrase
    if group.phrases:
        document["phrases"] = dict(group.phrases)
    return document


def _relationship_document(relationship: RelationshipType) -> dict[str, Any]:
    document: dict[str, Any] = {
        "name": relationship.name,
        "subject_types": sorted(relationship.subject_types),
        "object_types": sorted(relationship.object_types),
        "symmetric": relationship.symmetric,
        "group": relationship.group,
    }
    if relationship.phrase != relationship.name:
        document["phrase"] = relationship.phrase
    return document


# --- Parsing ----------------------------------------------------------------------------------------------


def load_vocabulary(path: str | Path) -> Vocabulary:
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise VocabularyError(f"cannot read the vocabulary file: {exc.strerror}", where=str(path)) from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise VocabularyError(f"not valid JSON ({exc.msg})", where=f"{path}:{exc.lineno}") from None
    try:
        return parse_vocabulary(document)
    except VocabularyError as exc:
        raise VocabularyError(exc.message, where=f"{path}: {exc.where}") from None


def parse_vocabulary(document: Any) -> Vocabulary:
    """Validate a vocabulary document (docs/method.md section 9) and build the `Vocabulary`."""
    _expect(isinstance(document, dict), "a vocabulary is a JSON object", "vocabulary")
    nul = _where_nul(document, "")
    # Names and phrases become text columns, and no database text (nor JSON in PostgreSQL) holds a NUL.
    _expect(nul is None, "text may not contain a NUL character", nul or "vocabulary")
    name = document.get("name")
    _expect(isinstance(name, str) and name.strip() != "", "a non-empty string is required", "name")
    description = document.get("description", "")
    _expect(isinstance(description, str), "must be a string", "description")
    types = _parse_types(document.get("types"))
    relationships = _parse_relationships(document.get("relationships", []))
    return build_vocabulary(
        name=name.strip(),
        description=description,
        types=types,
        relationships=relationships,
        regions=document.get("regions", "default"),
    )


def build_vocabulary(
    *,
    name: str,
    description: str,
    types: tuple[ObjectType, ...],
    relationships: tuple[RelationshipType, ...],
    regions: Any,
) -> Vocabulary:
    """A `Vocabulary` from objects already made (say, from database rows), checked for what only the
    whole can break: limits, names unique where a question names them, relationships between known
    types, and the region set (`"default"` or a list of {id, box})."""
    _expect(len(types) > 0, "at least one object type is required", "types")
    _expect(len(types) <= MAX_TYPES, f"at most {MAX_TYPES} object types", "types")
    _check_unique([t.name for t in types], "object type", "types")
    for object_type in types:
        where = f"types.{object_type.name}.attribute_groups"
        _check_unique([g.name for g in object_type.groups], "attribute group", where)
        _check_unique(list(object_type.attributes), "attribute value", where)
        _expect(
            len(object_type.attributes) <= MAX_ATTRIBUTES_PER_TYPE,
            f"at most {MAX_ATTRIBUTES_PER_TYPE} attribute values",
            f"types.{object_type.name}",
        )
    _expect(
        len(relationships) <= MAX_RELATIONSHIPS, f"at most {MAX_RELATIONSHIPS} relationships", "relationships"
    )
    _check_unique([r.name for r in relationships], "relationship", "relationships")
    type_names = {t.name for t in types}
    for i, relationship in enumerate(relationships):
        for side in ("subject_types", "object_types"):
            for type_name in sorted(getattr(relationship, side)):
                _expect(
                    type_name in type_names,
                    f"unknown object type {type_name!r}",
                    f"relationships[{i}].{side}",
                )
    regions_spec, region_set = parse_regions(regions)
    return Vocabulary(
        name=name,
        types=types,
        relationships=relationships,
        regions=region_set,
        regions_spec=regions_spec,
        description=description,
    )


def _where_nul(node: Any, where: str) -> str | None:
    """The path of the first string (key or value) of the document that holds a NUL, or None."""
    if isinstance(node, str):
        return (where or "vocabulary") if "\x00" in node else None
    if isinstance(node, dict):
        for key, value in node.items():
            if isinstance(key, str) and "\x00" in key:
                return where or "vocabulary"
            found = _where_nul(value, at(where, str(key)))
            if found is not None:
                return found
    if isinstance(node, list):
        for index, item in enumerate(node):
            found = _where_nul(item, at(where, f"[{index}]"))
            if found is not None:
                return found
    return None


def _expect(condition: bool, message: str, where: str) -> None:
    if not condition:
        raise VocabularyError(message, where=where)


def _parse_types(raw: Any) -> tuple[ObjectType, ...]:
    _expect(isinstance(raw, dict) and len(raw) > 0, "at least one object type is required", "types")
    types = []
    for type_name, spec in raw.items():
        where = f"types.{type_name}"
        _expect(isinstance(type_name, str) and type_name.strip() == type_name != "", "bad type name", where)
        _expect(isinstance(spec, dict), "an object type is a JSON object", where)
        groups_raw = spec.get("attribute_groups", [])
        _expect(
            isinstance(groups_raw, list), "attribute_groups must be a list", at(where, "attribute_groups")
        )
        groups = tuple(_parse_group(g, at(where, f"attribute_groups[{i}]")) for i, g in enumerate(groups_raw))
        types.append(ObjectType(name=type_name, groups=groups))
    return tuple(types)


def _parse_group(raw: Any, where: str) -> AttributeGroup:
    _expect(isinstance(raw, dict), "an attribute group is a JSON object", where)
    name = raw.get("name")
    _expect(isinstance(name, str) and name.strip() != "", "a group needs a name", at(where, "name"))
    exclusive = raw.get("exclusive", False)
    _expect(isinstance(exclusive, bool), "exclusive must be true or false", at(where, "exclusive"))
    values = raw.get("values")
    _expect(
        isinstance(values, list) and len(values) > 0, "a group needs a list of values", at(where, "values")
    )
    for i, value in enumerate(values):
        _expect(
            isinstance(value, str) and value.strip() == value != "",
            "bad attribute value",
            at(where, f"values[{i}]"),
        )
    _expect(
        not exclusive or len(values) >= 2, "an exclusive group needs at least two values", at(where, "values")
    )
    phrase = raw.get("phrase", DEFAULT_ATTRIBUTE_PHRASE)
    _expect(
        isinstance(phrase, str) and "{value}" in phrase, "phrase must contain {value}", at(where, "phrase")
    )
    _expect(
        phrase.split(" ", 1)[0] in {"is", "has"}, "phrase must start with 'is' or 'has'", at(where, "phrase")
    )
    phrases = raw.get("phrases", {})
    _expect(isinstance(phrases, dict), "phrases maps values to phrases", at(where, "phrases"))
    for value, text in phrases.items():
        _expect(value in values, f"{value!r} is not a value of this group", at(where, "phrases"))
        _expect(
            isinstance(text, str) and text.split(" ", 1)[0] in {"is", "has"},
            "a phrase starts with 'is' or 'has'",
            at(where, f"phrases.{value}"),
        )
    return AttributeGroup(
        name=name, exclusive=exclusive, values=tuple(values), phrase=phrase, phrases=dict(phrases)
    )


def _parse_relationships(raw: Any) -> tuple[RelationshipType, ...]:
    _expect(isinstance(raw, list), "relationships must be a list", "relationships")
    _expect(len(raw) <= MAX_RELATIONSHIPS, f"at most {MAX_RELATIONSHIPS} relationships", "relationships")
    relationships = []
    for i, spec in enumerate(raw):
        where = f"relationships[{i}]"
        _expect(isinstance(spec, dict), "a relationship is a JSON object", where)
        name = spec.get("name")
        _expect(
            isinstance(name, str) and name.strip() == name != "",
            "a relationship needs a name",
            at(where, "name"),
        )
        sides = {}
        for side in ("subject_types", "object_types"):
            listed = spec.get(side)
            _expect(
                isinstance(listed, list) and len(listed) > 0,
                "a non-empty list of types",
                at(where, f"{side}"),
            )
            _expect(all(isinstance(n, str) for n in listed), "type names are strings", at(where, side))
            sides[side] = frozenset(listed)
        symmetric = spec.get("symmetric", False)
        _expect(isinstance(symmetric, bool), "symmetric must be true or false", at(where, "symmetric"))
        group = spec.get("group", name)
        _expect(
            isinstance(group, str) and group != "", "group must be a non-empty string", at(where, "group")
        )
        phrase = spec.get("phrase", name)
        _expect(
            isinstance(phrase, str) and phrase != "", "phrase must be a non-empty string", at(where, "phrase")
        )
        relationships.append(
            RelationshipType(name, sides["subject_types"], sides["object_types"], symmetric, group, phrase)
        )
    return tuple(relationships)


def _check_unique(names: list[str], what: str, where: str) -> None:
    seen: set[str] = set()
    for name in names:
        _expect(name not in seen, f"duplicate {what} {name!r}", where)
        seen.add(name)
