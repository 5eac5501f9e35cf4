"""The mapping file: how an open vocabulary (Visual Genome's, GQA's, Open Images') becomes ours.

YAML or JSON (JSON is YAML too), one document:

    types:                      # which names (or synsets, or Open Images' label ids) become which type
      person:
        names: [person, man, woman, boy]
        synsets: [person.n.01]
        implies:                # attributes a name says by itself
          man: [male, adult]
          boy: [male, child]
    attributes:                 # per type: a source's attribute name -> one of the type's values
      person: {walking: walking, standing: standing still}
    relationships:              # a predicate -> a relationship; reverse: the source says it the other way
      in front of: closer than
      behind: {relationship: closer than, reverse: true}
    drop:                       # what the source has and we leave out on purpose (counted as such)
      names: [tree, building]
      attributes: [green]
      predicates: [on, has]

Names are compared case- and space-insensitively, in Unicode's composed form (`normalize`; the whole
file is read in that form, its values too). Whatever the mapping does not name is dropped too, and the
import's report counts it apart ("not in the mapping") from what `drop` names. A mapping is checked as
a whole against the vocabulary before anything is read: every problem has its place
(`types.person.implies.man[1]`). With no mapping file, the vocabulary's own names map to themselves
(`identity_mapping`), which is what a round trip through an export needs.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import yaml

from kernel import safejson
from kernel.vocabulary import Vocabulary

TOP_KEYS = ("types", "attributes", "relationships", "drop")
TYPE_KEYS = ("names", "synsets", "implies")
DROP_KEYS = ("names", "attributes", "predicates")
MAX_BYTES = 5 * 1024 * 1024


class _Loader(yaml.SafeLoader):
    """YAML with only `true` and `false` as booleans: to YAML 1.1 `on`, `no`, `yes` and `off` are
    booleans too, and they are predicates and names ("on", "next to") a mapping must be able to write
    bare."""


_Loader.yaml_implicit_resolvers = {
    first: [(tag, regexp) for tag, regexp in resolvers if tag != "tag:yaml.org,2002:bool"]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF")
)


def normalize(name: str) -> str:
    """How source names are compared, the mapping's and the data's alike: "Man ", "man" and "MAN" are
    one name, and so are "Señora" with ñ and with n and a combining tilde (Unicode's NFC: a mapping
    typed on one system and a download made on another need not agree on the form)."""
    folded = name.casefold() if name.isascii() else nfc(nfc(name).casefold())  # ASCII is NFC already
    return " ".join(folded.split())


def nfc(text: str) -> str:
    """Unicode's composed normal form, which names take wherever a mapping or a source gives them."""
    return unicodedata.normalize("NFC", text)


class MappingInvalid(ValueError):
    """Every problem of a mapping file, each as (place, message)."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        super().__init__(f"{len(problems)} problem(s) in the mapping")
        self.problems = problems

    def messages(self) -> list[str]:
        return [f"{place}: {message}" if place else message for place, message in self.problems]


@dataclass(frozen=True)
class Relation:
    relationship: str
    reverse: bool = False


@dataclass
class Mapping:
    # normalized source name (or synset) -> (type, implied attribute values)
    names: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    synsets: dict[str, tuple[str, tuple[str, ...]]] = field(default_factory=dict)
    # type -> normalized attribute name -> value
    attributes: dict[str, dict[str, str]] = field(default_factory=dict)
    relationships: dict[str, Relation] = field(default_factory=dict)
    drop_names: set[str] = field(default_factory=set)
    drop_attributes: set[str] = field(default_factory=set)
    drop_predicates: set[str] = field(default_factory=set)

    def type_of(
        self, names: Iterable[str], synsets: Iterable[str]
    ) -> tuple[str, tuple[str, ...], str] | None:
        """(type, implied values, the name or synset that decided) for the first of the object's names,
        then synsets, that the mapping knows; None when none is known."""
        for table, keys in ((self.names, names), (self.synsets, synsets)):
            for key in keys:
                found = table.get(normalize(key))
                if found is not None:
                    return found[0], found[1], normalize(key)
        return None


def identity_mapping(vocabulary: Vocabulary) -> Mapping:
    """The vocabulary's own names: types by name, each type's values, relationships by name."""
    mapping = Mapping()
    for object_type in vocabulary.types:
        mapping.names[normalize(object_type.name)] = (object_type.name, ())
        mapping.attributes[object_type.name] = {normalize(v): v for v in object_type.attributes}
    for relationship in vocabulary.relationships:
        mapping.relationships[normalize(relationship.name)] = Relation(relationship.name)
    return mapping


def load_mapping(data: bytes, vocabulary: Vocabulary, max_depth: int = safejson.DEFAULT_MAX_DEPTH) -> Mapping:
    """The mapping in `data` (YAML or JSON), checked against the vocabulary; `MappingInvalid` lists
    every problem with its place."""
    document = _parse(data, max_depth)
    problems: list[tuple[str, str]] = []
    mapping = Mapping()
    if not isinstance(document, dict):
        raise MappingInvalid([("", "a mapping is a document with types, attributes, relationships and drop")])
    _unknown_keys(document, TOP_KEYS, "", problems)
    _types(document.get("types", {}), vocabulary, mapping, problems)
    _attributes(document.get("attributes", {}), vocabulary, mapping, problems)
    _relationships(document.get("relationships", {}), vocabulary, mapping, problems)
    _drop(document.get("drop", {}), mapping, problems)
    if problems:
        raise MappingInvalid(problems)
    return mapping


def _parse(data: bytes, max_depth: int) -> Any:
    if len(data) > MAX_BYTES:
        raise MappingInvalid([("", f"a mapping file has at most {MAX_BYTES // 1024 // 1024} MB")])
    try:
        # Keys and values alike: a value is a vocabulary's name, compared with it as it is.
        text = nfc(data.decode("utf-8-sig"))
        safejson.check_depth(text.encode(), max_depth)
    except UnicodeDecodeError:
        raise MappingInvalid([("", "the mapping file is not UTF-8 text")]) from None
    except safejson.UnsafeJSON as exc:
        raise MappingInvalid([("", str(exc))]) from None
    if text.lstrip().startswith("{"):
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            raise MappingInvalid([("", f"not valid JSON ({exc.msg} at line {exc.lineno})")]) from None
    try:
        return yaml.load(text, Loader=_Loader)  # a SafeLoader: plain data only
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark is not None else ""
        raise MappingInvalid([("", f"not valid YAML{where}")]) from None


def _unknown_keys(section: dict[str, Any], keys: tuple[str, ...], place: str, problems: list) -> None:
    for key in section:
        if key not in keys:
            problems.append((place, f"unknown key {str(key)!r}; known: {', '.join(keys)}"))


def _section(value: Any, place: str, problems: list) -> dict[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        problems.append((place, "must be a mapping of names"))
        return {}
    return value


def _strings(value: Any, place: str, problems: list) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        problems.append((place, "must be a list of names"))
        return []
    return value


def _types(raw: Any, vocabulary: Vocabulary, mapping: Mapping, problems: list) -> None:
    seen: dict[str, str] = {}
    for type_name, rules in _section(raw, "types", problems).items():
        place = f"types.{type_name}"
        if type_name not in vocabulary.type_index:
            problems.append(
                (place, f"{type_name!r} is not a type of the vocabulary ({', '.join(vocabulary.type_index)})")
            )
            continue
        rules = _section(rules, place, problems)
        _unknown_keys(rules, TYPE_KEYS, place, problems)
        implies = _section(rules.get("implies"), f"{place}.implies", problems)
        names = _strings(rules.get("names"), f"{place}.names", problems)
        for name in implies:
            if normalize(str(name)) not in {normalize(n) for n in names}:
                names.append(str(name))  # a name that implies something is a name of the type
        implied = {
            normalize(str(name)): _implied(type_name, values, vocabulary, f"{place}.implies.{name}", problems)
            for name, values in implies.items()
        }
        for key, table in (("names", mapping.names), ("synsets", mapping.synsets)):
            entries = names if key == "names" else _strings(rules.get(key), f"{place}.{key}", problems)
            for i, name in enumerate(entries):
                normal = normalize(name)
                other = seen.get(f"{key}:{normal}")
                if other is not None and other != type_name:
                    problems.append((f"{place}.{key}[{i}]", f"{name!r} is mapped to {other} too"))
                seen[f"{key}:{normal}"] = type_name
                table[normal] = (type_name, implied.get(normal, ()) if key == "names" else ())


def _implied(
    type_name: str, values: Any, vocabulary: Vocabulary, place: str, problems: list
) -> tuple[str, ...]:
    values = _strings(values, place, problems)
    object_type = vocabulary.object_type(type_name)
    taken: dict[int, str] = {}
    for i, value in enumerate(values):
        if value not in object_type.bit_of:
            problems.append((f"{place}[{i}]", f"{value!r} is not an attribute of {type_name}"))
            continue
        group = object_type.group_of[value]
        if object_type.groups[group].exclusive and group in taken:
            problems.append(
                (
                    f"{place}[{i}]",
                    f"{taken[group]!r} and {value!r} are both in exclusive group "
                    f"{object_type.groups[group].name!r}",
                )
            )
        taken[group] = value
    return tuple(values)


def _attributes(raw: Any, vocabulary: Vocabulary, mapping: Mapping, problems: list) -> None:
    for type_name, table in _section(raw, "attributes", problems).items():
        place = f"attributes.{type_name}"
        if type_name not in vocabulary.type_index:
            problems.append((place, f"{type_name!r} is not a type of the vocabulary"))
            continue
        values = vocabulary.object_type(type_name).bit_of
        mapped = mapping.attributes.setdefault(type_name, {})
        for name, value in _section(table, place, problems).items():
            if value not in values:
                problems.append((f"{place}.{name}", f"{value!r} is not an attribute of {type_name}"))
                continue
            mapped[normalize(str(name))] = value


def _relationships(raw: Any, vocabulary: Vocabulary, mapping: Mapping, problems: list) -> None:
    for predicate, rule in _section(raw, "relationships", problems).items():
        place = f"relationships.{predicate}"
        if isinstance(rule, str):
            rule = {"relationship": rule}
        rule = _section(rule, place, problems)
        _unknown_keys(rule, ("relationship", "reverse"), place, problems)
        name, reverse = rule.get("relationship"), rule.get("reverse", False)
        if name not in vocabulary.relationship_index:
            problems.append((place, f"{name!r} is not a relationship of the vocabulary"))
            continue
        if not isinstance(reverse, bool):
            problems.append((f"{place}.reverse", "must be true or false"))
            continue
        mapping.relationships[normalize(str(predicate))] = Relation(name, reverse)


def _drop(raw: Any, mapping: Mapping, problems: list) -> None:
    section = _section(raw, "drop", problems)
    _unknown_keys(section, DROP_KEYS, "drop", problems)
    for key, target in (
        ("names", mapping.drop_names),
        ("attributes", mapping.drop_attributes),
        ("predicates", mapping.drop_predicates),
    ):
        target.update(normalize(name) for name in _strings(section.get(key), f"drop.{key}", problems))
