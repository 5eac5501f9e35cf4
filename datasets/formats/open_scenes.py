"""What the readers of open-vocabulary sources make: `OpenScene`s in the source's own names.

A reader (Visual Genome, GQA, Open Images) checks each entry for shape with the helpers here (`box`,
`names`, `pixels`...: a bad entry is a `BadEntry`, refused with its place) and collects the objects and
relationships of an image, under the source's names, synsets and boxes in pixels, in an `OpenScene`.
Their meaning comes later: `datasets.formats.open_vocabulary.SceneMapper` maps them through the
mapping file into scene-graph records of ours.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any

from datasets.formats.mapping import normalize
from datasets.formats.records import RecordError
from datasets.formats.streaming import describe
from kernel.scene import SOURCE_LIST_MAX

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


def object_name(obj: OpenObject) -> str:
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
            self.merged.append(object_name(obj))
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
