"""A first mapping file, proposed from the source's own frequencies, for a person to edit.

Read with the format's reader before any mapping (`SceneFormat.read_open`), the source is counted:
object names (with their synsets), the attribute names on each, the predicates. A name is proposed for
a type when it is the type's name or one of its values ("car" is a vehicle whose kind is car), by
itself or through its synset's word (`car.n.01`); an attribute or a predicate when it is one of the
vocabulary's. Everything else is proposed for `drop`, most frequent first, with its count, so that the
proposal is a mapping that loads as it is and the person moves names from `drop` to where they belong.

For each type, the attribute names that are frequent on its objects but almost never together on one
object (standing, walking, sitting) are listed as candidates for an exclusive group; names that often
come together (white and parked) are not, since a group allows one value.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import combinations

from annotations.formats.mapping import normalize
from annotations.formats.open_vocabulary import OpenScene
from kernel.vocabulary import Vocabulary

TOP = 40  # names listed per section
GROUP_CANDIDATES = 12  # the most frequent attribute names of a type considered for exclusive groups
TOGETHER = 0.05  # at most this share of the rarer name's objects may carry both, in one group


@dataclass
class Frequencies:
    images: int = 0
    objects: int = 0
    names: Counter[str] = field(default_factory=Counter)
    synsets: dict[str, Counter[str]] = field(default_factory=dict)
    attributes: dict[str, Counter[str]] = field(default_factory=dict)  # by object name
    pairs: dict[str, Counter[tuple[str, str]]] = field(default_factory=dict)  # by object name
    predicates: Counter[str] = field(default_factory=Counter)


def count(scenes: Iterable[OpenScene]) -> Frequencies:
    counted = Frequencies()
    for scene in scenes:
        counted.images += 1
        for obj in scene.objects.values():
            name = normalize(obj.names[0]) if obj.names else normalize(obj.synsets[0]) if obj.synsets else ""
            if not name:
                continue
            counted.objects += 1
            counted.names[name] += 1
            counted.synsets.setdefault(name, Counter()).update(normalize(s) for s in obj.synsets)
            attributes = sorted({normalize(a) for a in obj.attributes if a.strip()})
            counted.attributes.setdefault(name, Counter()).update(attributes)
            counted.pairs.setdefault(name, Counter()).update(combinations(attributes, 2))
        counted.predicates.update(normalize(r.predicate) for r in scene.relationships)
    return counted


def _type_of(name: str, synsets: Counter[str], vocabulary: Vocabulary) -> tuple[str, str | None] | None:
    """(type, implied value) when the name, or its most frequent synset's word, is a type or a value."""
    words = [name] + [synset.split(".")[0].replace("_", " ") for synset, _ in synsets.most_common(1)]
    for word in words:
        for object_type in vocabulary.types:
            if word == normalize(object_type.name):
                return object_type.name, None
            for value in object_type.attributes:
                if word == normalize(value):
                    return object_type.name, value
    return None


def _pair(a: str, b: str) -> tuple[str, str]:
    """Two names in the order the pair counts keep them (sorted)."""
    return (a, b) if a <= b else (b, a)


def exclusive_candidates(attributes: Counter[str], pairs: Counter[tuple[str, str]]) -> list[list[str]]:
    """Groups of frequent attribute names seldom on the same object, each of two names or more."""
    groups: list[list[str]] = []
    for name, _ in attributes.most_common(GROUP_CANDIDATES):
        for group in groups:
            if all(
                pairs[_pair(name, other)] <= TOGETHER * min(attributes[name], attributes[other])
                for other in group
            ):
                group.append(name)
                break
        else:
            groups.append([name])
    return [group for group in groups if len(group) > 1]


def propose(counted: Frequencies, vocabulary: Vocabulary, source: str) -> str:
    """The proposed mapping as YAML text, every count in a comment."""
    types: dict[str, list[tuple[str, int, str | None]]] = {t.name: [] for t in vocabulary.types}
    unassigned: list[tuple[str, int]] = []
    for name, objects in counted.names.most_common():
        found = _type_of(name, counted.synsets.get(name, Counter()), vocabulary)
        if found is None:
            unassigned.append((name, objects))
        else:
            types[found[0]].append((name, objects, found[1]))
    lines = [
        f"# A first mapping proposed from {source}: {counted.objects:,} objects in {counted.images:,} images,",
        f"# for the vocabulary {vocabulary.name!r}. Counts are in comments. Edit it: move names from `drop`",
        "# to the type they are (with `implies` for what a name says by itself), map attribute names and",
        "# predicates, and use the candidate exclusive groups to check the attributes of each type.",
        "types:",
    ]
    for type_name, names in types.items():
        lines.append(f"  {_quoted(type_name)}:")
        lines.append("    names:" + ("" if names else " []"))
        lines.extend(
            f"      - {_quoted(name)}  # {_many(objects, 'object')}" for name, objects, _ in names[:TOP]
        )
        implied = [(name, value) for name, _, value in names[:TOP] if value]
        if implied:
            lines.append("    implies:")
            lines.extend(f"      {_quoted(name)}: [{_quoted(value)}]" for name, value in implied)
    lines.append("attributes:")
    dropped_attributes = Counter[str]()
    for type_name, names in types.items():
        attributes = Counter[str]()
        pairs = Counter[tuple[str, str]]()
        for name, _, _ in names:
            attributes.update(counted.attributes.get(name, Counter()))
            pairs.update(counted.pairs.get(name, Counter()))
        values = {normalize(v): v for v in vocabulary.object_type(type_name).attributes}
        mapped = [(name, n) for name, n in attributes.most_common(TOP) if name in values]
        dropped_attributes.update({name: n for name, n in attributes.items() if name not in values})
        lines.append(f"  {_quoted(type_name)}:" + ("" if mapped else " {}"))
        lines.extend(
            f"    {_quoted(name)}: {_quoted(values[name])}  # {_many(n, 'object')}" for name, n in mapped
        )
        for group in exclusive_candidates(attributes, pairs):
            counts = ", ".join(f"{name} {attributes[name]:,}" for name in group)
            lines.append(f"    # candidate exclusive group (seldom on one {type_name} together): {counts}")
    relationships = {normalize(r.name): r.name for r in vocabulary.relationships}
    mapped_predicates = [(p, n) for p, n in counted.predicates.most_common() if p in relationships]
    lines.append("relationships:" + ("" if mapped_predicates else " {}"))
    lines.extend(
        f"  {_quoted(p)}: {_quoted(relationships[p])}  # {_many(n, 'time')}" for p, n in mapped_predicates
    )
    lines.append("drop:")
    for key, items, unit in (
        ("names", unassigned, "objects"),
        ("attributes", dropped_attributes.most_common(), "objects"),
        (
            "predicates",
            [(p, n) for p, n in counted.predicates.most_common() if p not in relationships],
            "times",
        ),
    ):
        lines.append(f"  {key}:" + ("" if items else " []"))
        lines.extend(f"    - {_quoted(name)}  # {n:,} {unit}" for name, n in items[:TOP])
        if len(items) > TOP:
            lines.append(f"    # and {len(items) - TOP:,} more, {sum(n for _, n in items[TOP:]):,} {unit}")
    return "\n".join(lines) + "\n"


def _many(count: int, unit: str) -> str:
    return f"{count:,} {unit}{'' if count == 1 else 's'}"


def _quoted(text: str) -> str:
    """A YAML scalar for any name: JSON's double-quoted strings are YAML's too."""
    return json.dumps(text, ensure_ascii=False)
