"""A first mapping file, proposed from the source's own frequencies, for a person to edit.

Read with the format's reader before any mapping (`SceneFormat.read_open`), the source is counted:
object names (with their synsets), the attribute names on each, the predicates. A name is proposed for
a type when it is the type's name or one of its values ("car" is a vehicle whose kind is car), by
itself or through its synset's word (`car.n.01`); an attribute or a predicate when it is one of the
vocabulary's. Everything else is proposed for `drop`, most frequent first, with its count, so that the
proposal is a mapping that loads as it is and the person moves names from `drop` to where they belong.
Every name listed says which attribute names its objects carry, a name proposed for `drop` too: the
person who moves "man" to person sees that its "standing" needs mapping, and `drop.attributes` holds
the attribute names of every object, whatever its name.

A download has bad entries (a box of zero width): the reader yields them as `RecordError`s among its
records, or with the image they belong to (`OpenScene.refused`), and they are counted and listed (the first `SHOWN_PROBLEMS`, with their places) while every
good entry is read; a proposal is for a person to edit, so it is written all the same. An Open Images
group box (IsGroupOf: several objects in one box) is not an object of its name: group boxes are counted
apart, since the import drops them.

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

from datasets.formats.mapping import normalize
from datasets.formats.open_scenes import OpenObject, OpenScene
from datasets.formats.records import Record, RecordError
from kernel.vocabulary import Vocabulary

TOP = 40  # names listed per section
NAME_ATTRIBUTES = 8  # attribute names shown beside each name
SHOWN_PROBLEMS = 20  # bad entries listed with their place; the rest are counted
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
    groups: Counter[str] = field(default_factory=Counter)  # group boxes (IsGroupOf), by name
    bad: int = 0  # entries the reader refused
    problems: list[str] = field(default_factory=list)  # the first SHOWN_PROBLEMS of them, with their place

    def refused(self, error: RecordError) -> None:
        self.bad += 1
        if len(self.problems) < SHOWN_PROBLEMS:
            where = f"line {error.line}: " if error.line is not None else ""
            self.problems.append(" ".join(f"{where}{error.message}".split()))  # one line each


def count(items: Iterable[Record | RecordError]) -> Frequencies:
    """The frequencies of what a format's `read_open` yields: its scenes, every bad entry refused."""
    counted = Frequencies()
    for item in items:
        if isinstance(item, RecordError):
            counted.refused(item)
        else:
            for error in item.data.refused:  # an entry of this image refused, the rest of it read
                counted.refused(error)
            _count_scene(item.data, counted)
    return counted


def _count_scene(scene: OpenScene, counted: Frequencies) -> None:
    counted.images += 1
    for obj in scene.objects.values():
        name = _object_name(obj)
        if not name:
            continue
        if "group" in obj.flags:
            counted.groups[name] += 1
            continue
        counted.objects += 1
        counted.names[name] += 1
        counted.synsets.setdefault(name, Counter()).update(normalize(s) for s in obj.synsets)
        attributes = sorted({normalize(a) for a in obj.attributes if a.strip()})
        counted.attributes.setdefault(name, Counter()).update(attributes)
        counted.pairs.setdefault(name, Counter()).update(combinations(attributes, 2))
    counted.predicates.update(normalize(r.predicate) for r in scene.relationships)


def _object_name(obj: OpenObject) -> str:
    first = obj.names[:1] or obj.synsets[:1] or ([obj.label] if obj.label else [])
    return normalize(first[0]) if first else ""


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
        *_set_apart(counted),
        "types:",
    ]
    for type_name, names in types.items():
        lines.append(f"  {_quoted(type_name)}:")
        lines.append("    names:" + ("" if names else " []"))
        lines.extend(
            f"      - {_quoted(name)}  # {_many(objects, 'object')}{_carried(counted, name)}"
            for name, objects, _ in names[:TOP]
        )
        implied = [(name, value) for name, _, value in names[:TOP] if value]
        if implied:
            lines.append("    implies:")
            lines.extend(f"      {_quoted(name)}: [{_quoted(value)}]" for name, value in implied)
    attribute_lines, dropped_attributes = _attributes(counted, types, unassigned, vocabulary)
    lines.extend(attribute_lines)
    relationships = {normalize(r.name): r.name for r in vocabulary.relationships}
    mapped_predicates = [(p, n) for p, n in counted.predicates.most_common() if p in relationships]
    lines.append("relationships:" + ("" if mapped_predicates else " {}"))
    lines.extend(
        f"  {_quoted(p)}: {_quoted(relationships[p])}  # {_many(n, 'time')}" for p, n in mapped_predicates
    )
    lines.append("drop:")
    for key, items, unit in (
        ("names", unassigned, "object"),
        ("attributes", dropped_attributes.most_common(), "object"),
        (
            "predicates",
            [(p, n) for p, n in counted.predicates.most_common() if p not in relationships],
            "time",
        ),
    ):
        lines.append(f"  {key}:" + ("" if items else " []"))
        lines.extend(
            f"    - {_quoted(name)}  # {_many(n, unit)}" + (_carried(counted, name) if key == "names" else "")
            for name, n in items[:TOP]
        )
        if len(items) > TOP:
            lines.append(
                f"    # and {len(items) - TOP:,} more, {_many(sum(n for _, n in items[TOP:]), unit)}"
            )
    return "\n".join(lines) + "\n"


def _attributes(
    counted: Frequencies,
    types: dict[str, list[tuple[str, int, str | None]]],
    unassigned: list[tuple[str, int]],
    vocabulary: Vocabulary,
) -> tuple[list[str], Counter[str]]:
    """The `attributes` section, and the attribute names left to drop with their counts. The names on
    the objects of names proposed for drop are mapped where they are a type's value (ready for when the
    person moves the name to that type), else dropped: never left out."""
    on_dropped = Counter[str]()
    for name, _ in unassigned:
        on_dropped.update(counted.attributes.get(name, Counter()))
    lines = ["attributes:"]
    dropped = Counter[str]()
    proposed: set[str] = set()
    for type_name, names in types.items():
        attributes = Counter[str]()
        pairs = Counter[tuple[str, str]]()
        for name, _, _ in names:
            attributes.update(counted.attributes.get(name, Counter()))
            pairs.update(counted.pairs.get(name, Counter()))
        values = {normalize(v): v for v in vocabulary.object_type(type_name).attributes}
        seen = Counter({name: attributes[name] + on_dropped[name] for name in values})
        mapped = [name for name, n in seen.most_common(TOP) if n]
        proposed.update(mapped)
        dropped.update({name: n for name, n in attributes.items() if name not in values})
        lines.append(f"  {_quoted(type_name)}:" + ("" if mapped else " {}"))
        lines.extend(
            f"    {_quoted(name)}: {_quoted(values[name])}  # {_on(attributes[name], on_dropped[name])}"
            for name in mapped
        )
        for group in exclusive_candidates(attributes, pairs):
            counts = ", ".join(f"{name} {attributes[name]:,}" for name in group)
            lines.append(f"    # candidate exclusive group (seldom on one {type_name} together): {counts}")
    dropped.update({name: n for name, n in on_dropped.items() if name not in proposed})
    return lines, dropped


def _set_apart(counted: Frequencies) -> list[str]:
    """Comment lines on what the counts leave out: group boxes, and the entries the reader refused."""
    lines = []
    if counted.groups:
        names = ", ".join(f"{name} {n:,}" for name, n in counted.groups.most_common(NAME_ATTRIBUTES))
        lines.append(
            f"# Not counted as objects: {_many(counted.groups.total(), 'group box', 'group boxes')} (several "
            f"objects in one box, which the import drops): {names}"
            + (
                f" and {len(counted.groups) - NAME_ATTRIBUTES:,} more names"
                if len(counted.groups) > NAME_ATTRIBUTES
                else ""
            )
        )
    if counted.bad:
        shown = "" if counted.bad == len(counted.problems) else f"; the first {len(counted.problems)}"
        lines.append(
            f"# Left out of these counts: {_many(counted.bad, 'bad entry', 'bad entries')} of the source{shown}:"
        )
        lines.extend(f"#   {problem}" for problem in counted.problems)
    return lines


def _on(objects: int, dropped: int) -> str:
    """How many objects carry an attribute name: of the type's names, and of names proposed for drop."""
    if not objects:
        return f"{_many(dropped, 'object')} of names proposed for drop"
    return _many(objects, "object") + (f", and {dropped:,} of names proposed for drop" if dropped else "")


def _carried(counted: Frequencies, name: str) -> str:
    """The attribute names on a name's objects, most frequent first, for its comment."""
    attributes = counted.attributes.get(name)
    if not attributes:
        return ""
    shown = ", ".join(f"{attribute} {n:,}" for attribute, n in attributes.most_common(NAME_ATTRIBUTES))
    more = len(attributes) - NAME_ATTRIBUTES
    return f"; attributes: {shown}" + (f" and {more:,} more" if more > 0 else "")


def _many(count: int, unit: str, units: str | None = None) -> str:
    return f"{count:,} {unit if count == 1 else units or unit + 's'}"


def _quoted(text: str) -> str:
    """A YAML scalar for any name: JSON's double-quoted strings are YAML's too."""
    return json.dumps(text, ensure_ascii=False)
