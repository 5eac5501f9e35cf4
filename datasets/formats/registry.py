"""The one list of scene formats: every call site that offers, reads or writes a format iterates over it.

In the manner of CVAT's `dataset_manager/formats/registry.py`: each format is a module of this package
that describes itself once (`register(SceneFormat(...))`) with what the import, the export, the commands,
the URL converter and the web pages need: its value, its names for people, the content type and file
extension of an export, a reader and a writer. Nothing outside this package branches on a format's
value; an unknown value is refused here, with the known ones named (`UnknownFormat`).

A reader turns an uploaded file into numbered records in the scene-graph form of docs/method.md section
9 (`Record`) and located errors (`RecordError`); the scene rules themselves are checked afterwards by
`kernel.scene`, whatever the format. A writer turns scene-graph records into the bytes of a file.
Plain data in, plain data out: no Django here.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import IO, Any

from datasets.formats.mapping import Mapping as VocabularyMapping
from datasets.formats.records import ImportReport, Record, RecordError
from kernel import safejson
from kernel.vocabulary import Vocabulary


@dataclass(frozen=True)
class ReadContext:
    """What a reader may need besides the file."""

    vocabulary: Vocabulary  # the collection's, in the engine core's form
    max_depth: int = safejson.DEFAULT_MAX_DEPTH  # of any JSON it parses (settings.JSON_MAX_DEPTH)
    # For a format with an open vocabulary: the mapping file's rules (None: the vocabulary's own names),
    # whether the importer says the source is complete, and where the mapper counts what it did.
    mapping: VocabularyMapping | None = None
    complete: bool = True
    report: ImportReport = field(default_factory=ImportReport)
    # Make objects of the subjects and objects of relationships that have no box of their own (marked
    # `added`); otherwise such relationships are dropped and counted.
    add_relationship_objects: bool = False
    # The sizes of the images already in the collection, by name, for a format that gives none.
    sizes: Mapping[str, tuple[int, int]] = field(default_factory=dict)


@dataclass(frozen=True)
class Reading:
    """A file as read: how many records it holds (bad ones included: the job's `lines_total`), and the
    records and errors, in the file's order (`items` may be read once)."""

    total: int
    items: Iterable[Record | RecordError]


@dataclass(frozen=True)
class WriteContext:
    vocabulary: Vocabulary
    description: str  # the collection's name, where a format has room for one


Reader = Callable[[IO[bytes], ReadContext], Reading]
Writer = Callable[[Iterable[dict[str, Any]], WriteContext], Iterator[bytes]]


@dataclass(frozen=True)
class SceneFormat:
    value: str  # in URLs, the API, the commands and the stored job: "jsonl"
    name: str  # short, for links and tables: "JSON Lines"
    label: str  # for choices: "JSON Lines scene graphs"
    description: str  # what file to give, one sentence for the import form and the API's help
    content_type: str  # of an export
    extension: str  # of an export's file name and of the stored upload, without the dot
    read: Reader
    write: Writer
    # Errors carry a line number (`RecordError.line`); otherwise the message starts with the place.
    line_numbers: bool = False
    # A format with an open vocabulary: its reader before the mapping, whose records are
    # `open_vocabulary.OpenScene`s (`read` is `mapped_reader(read_open)`); the mapping proposal reads it.
    read_open: Reader | None = None
    # Whether an import takes the source as complete unless told (every object of the mapped types boxed,
    # every attribute group given): its images go to review rather than to the annotation queue.
    complete: bool = True

    @property
    def mapped(self) -> bool:
        return self.read_open is not None


class UnknownFormat(ValueError):
    """No format has this value. Plain Python like the rest of the package: the services turn it into
    the API's `unknown_format` error (`datasets.services.common.format_named`), a 400 that names the
    known formats."""

    def __init__(self, value: Any) -> None:
        known = ", ".join(spec.value for spec in _FORMATS.values())
        self.message = f"There is no scene format {value!r}; the formats are {known}."
        self.fields = {"format": [f"Unknown; one of {known}."]}
        super().__init__(self.message)


_FORMATS: dict[str, SceneFormat] = {}


def register(spec: SceneFormat) -> SceneFormat:
    """Add a format (at import of its module); its value must be new and fit the job's column."""
    if spec.value in _FORMATS:
        raise ValueError(f"scene format {spec.value!r} is registered twice")
    if not spec.value.isascii() or not spec.value.replace("-", "").isalnum() or len(spec.value) > 16:
        raise ValueError(f"scene format value {spec.value!r}: up to 16 letters, digits or dashes")
    _FORMATS[spec.value] = spec
    return spec


def scene_formats() -> tuple[SceneFormat, ...]:
    """Every format, in the order the package registers them (the order people see them in)."""
    return tuple(_FORMATS.values())


def scene_format(value: Any) -> SceneFormat:
    """The format called `value`, or `UnknownFormat` (which names the known ones)."""
    if isinstance(value, SceneFormat):
        return value
    spec = _FORMATS.get(value) if isinstance(value, str) else None
    if spec is None:
        raise UnknownFormat(value)
    return spec


def format_values() -> list[str]:
    return list(_FORMATS)


def format_choices() -> list[tuple[str, str]]:
    """(value, label) pairs: the model field's choices (a callable, so that a new format needs no
    migration), the API's and the forms'."""
    return [(spec.value, spec.label) for spec in _FORMATS.values()]


def chunked_text(pieces: Iterable[str], size: int = 64 * 1024) -> Iterator[bytes]:
    """Small text pieces (an encoder's) as UTF-8 chunks of a useful size for a streamed response."""
    buffer: list[str] = []
    length = 0
    for piece in pieces:
        buffer.append(piece)
        length += len(piece)
        if length >= size:
            yield "".join(buffer).encode()
            buffer, length = [], 0
    if buffer:
        yield "".join(buffer).encode()
