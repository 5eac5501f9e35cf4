"""Reading and writing large files in constant memory: JSON arrays and objects an entry at a time
(ijson), CSV rows with their line numbers, the members of a zip archive, and a zip written as it streams.

Visual Genome's `attributes.json` is hundreds of megabytes and Open Images' box CSV gigabytes: a reader
holds one image's entry at a time, never the file.
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from collections.abc import Callable, Iterable, Iterator
from typing import IO, Any

import ijson
import numpy as np

from kernel import safejson

CHUNK_BYTES = 1024 * 1024
# A whole JSON string, and the rest of one up to its closing quote (not included).
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')
_STRING_REST = re.compile(rb'[^"\\]*(?:\\.[^"\\]*)*')
_NOT_BRACKET = bytes(b for b in range(256) if b not in b"[]{}")
_OPEN = np.zeros(256, dtype=np.int64)
_OPEN[list(b"[{")] = 1
_OPEN[list(b"]}")] = -1
_IS_BRACKET = _OPEN != 0
_QUOTE = ord('"')


class Unreadable(ValueError):
    """The file (or a member of the archive) cannot be read any further; the message says where."""


class DepthGuard(io.RawIOBase):
    """A binary file that refuses, while it is being read, JSON nested deeper than `max_depth`.

    The streaming parser's cost grows with the square of the nesting (a 200 KB file of brackets takes
    gigabytes), so the depth is counted before the parser sees the bytes: strings are skipped (one may
    straddle two chunks), and the running depth is a cumulative sum over the brackets left.
    """

    def __init__(self, raw: IO[bytes], max_depth: int) -> None:
        super().__init__()
        self.raw, self.max_depth = raw, max_depth
        self.depth = 0
        # Where the previous chunk ended: inside a string, and right after its backslash. Only this is
        # carried over, never the string itself (which may be as long as the file).
        self.in_string = self.escaped = False

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.raw.read(len(buffer))
        self._check(data)
        buffer[: len(data)] = data
        return len(data)

    def _check(self, data: bytes) -> None:
        if not self.escaped and b"\\" not in data:
            self._check_unescaped(data)
            return
        start = self._string_end(data, 0) if self.in_string else 0
        # Whole strings go in one C-speed pass; a quote left over opens a string the next chunk goes on
        # with (a regex tried from inside it cannot close on one of its escaped quotes).
        outside = _STRING.sub(b"", data[start:])
        quote = outside.find(b'"')
        if quote >= 0:
            outside = outside[:quote]
            self.in_string = True
            trailing = len(data) - len(data.rstrip(b"\\"))
            self.escaped = trailing % 2 == 1
        self._count(np.frombuffer(outside.translate(None, _NOT_BRACKET), dtype=np.uint8))

    def _check_unescaped(self, data: bytes) -> None:
        """A chunk without a backslash (nearly every chunk of a real download): every quote opens or
        closes a string, so a byte is inside one when an odd number of quotes (counting one left open by
        the previous chunk) comes before it. Four times as fast as removing the strings one by one."""
        codes = np.frombuffer(data, dtype=np.uint8)
        if not len(codes):
            return
        quotes = codes == _QUOTE
        before = np.cumsum(quotes, dtype=np.int32) - quotes + self.in_string
        self._count(codes[(before & 1 == 0) & _IS_BRACKET[codes]])
        self.in_string = bool((int(before[-1]) + int(quotes[-1])) & 1)

    def _count(self, brackets: np.ndarray) -> None:
        """The running depth through these brackets (those outside strings, in order)."""
        if not len(brackets):
            return
        depths = self.depth + np.cumsum(_OPEN[brackets])
        if int(depths.max()) > self.max_depth:
            raise safejson.UnsafeJSON(f"JSON may be nested at most {self.max_depth} levels deep.")
        self.depth = int(depths[-1])

    def _string_end(self, data: bytes, start: int) -> int:
        """Past the closing quote of the string that goes on at `start`, or the chunk's end."""
        if self.escaped:
            if start >= len(data):
                return len(data)
            start, self.escaped = start + 1, False
        end = _STRING_REST.match(data, start).end()  # type: ignore[union-attr]
        if end == len(data):
            return end
        if data[end] == ord('"'):
            self.in_string = False
            return end + 1
        self.escaped = True  # a backslash ends the chunk: what it escapes is in the next one
        return len(data)


class KeepRepeats(dict[str, Any]):
    """A JSON object that keeps a key given twice: the first value is the object's, the later ones are
    in `repeats` (a plain dict keeps only the last, without a word)."""

    __slots__ = ("repeats",)

    def __setitem__(self, key: Any, value: Any) -> None:
        if key in self:
            if not hasattr(self, "repeats"):
                self.repeats: list[tuple[Any, Any]] = []
            self.repeats.append((key, value))
        else:
            super().__setitem__(key, value)

    def pairs(self) -> Iterator[tuple[Any, Any]]:
        yield from self.items()
        yield from getattr(self, "repeats", ())


def json_entries(
    handle: IO[bytes], prefix: str, max_depth: int, kv: bool = False, keep_repeats: bool = False
) -> Iterator[Any]:
    """The items of the array at `prefix` ("item" for a top-level array), or with `kv` the (key, value)
    pairs of the object at `prefix` ("" for the top level), one at a time; `Unreadable` when the JSON
    breaks off or is refused (the caller says after which entry). `keep_repeats`: objects are
    `KeepRepeats` (slower)."""
    guarded = io.BufferedReader(DepthGuard(handle, max_depth), CHUNK_BYTES)
    options: dict[str, Any] = {"use_float": True}
    if keep_repeats:
        options["map_type"] = KeepRepeats
    entries = ijson.kvitems(guarded, prefix, **options) if kv else ijson.items(guarded, prefix, **options)
    try:
        yield from entries
    except safejson.UnsafeJSON as exc:
        raise Unreadable(str(exc)) from None
    except (ijson.JSONError, UnicodeDecodeError, ValueError):
        # The parser's own message quotes the bytes around the fault, which may be anything.
        raise Unreadable("it is not valid JSON (UTF-8) from there on") from None


def count(entries: Iterator[Any]) -> int:
    """How many entries can be read (the reading itself says where one cannot, and why)."""
    counted = 0
    try:
        for _ in entries:
            counted += 1
    except Unreadable:
        pass
    return counted


def entries_with_places(
    entries: Iterator[Any], place: Callable[[int], str], file: str
) -> Iterator[tuple[int, Any] | Unreadable]:
    """(position, entry) pairs, and at most one `Unreadable` naming the last good entry, at the end."""
    position = -1
    try:
        for position, entry in enumerate(entries):
            yield position, entry
    except Unreadable as exc:
        after = f" after {place(position)}" if position >= 0 else ""
        yield Unreadable(f"{file}: cannot be read{after}: {exc}")


def csv_rows(handle: IO[bytes], file: str) -> Iterator[tuple[int, list[str]]]:
    """(line number, cells) of a CSV file (UTF-8, an optional byte-order mark); `Unreadable` when it is
    not text."""
    text = io.TextIOWrapper(handle, encoding="utf-8-sig", newline="")
    reader = csv.reader(text)
    try:
        for cells in reader:
            yield reader.line_num, cells
    except (UnicodeDecodeError, csv.Error):
        raise Unreadable(f"{file} line {reader.line_num + 1}: not UTF-8 CSV text") from None


def describe(value: Any) -> str:
    """A value for a message, short and safe (never the repr of a whole nested structure)."""
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


# --- Archives ------------------------------------------------------------------------------------------------


def zip_members(handle: IO[bytes]) -> dict[str, zipfile.ZipInfo] | None:
    """The archive's files by base name (folders inside it do not matter), or None if it is no zip."""
    try:
        archive = zipfile.ZipFile(handle)
    except (zipfile.BadZipFile, OSError):
        handle.seek(0)
        return None
    members: dict[str, zipfile.ZipInfo] = {}
    for info in archive.infolist():
        base = info.filename.replace("\\", "/").rsplit("/", 1)[-1]
        if base and not info.is_dir() and not base.startswith("._"):
            members.setdefault(base, info)
    return members


class _Sink(io.RawIOBase):
    """Where a zip being written puts its bytes until the stream takes them."""

    def __init__(self) -> None:
        super().__init__()
        self.chunks: list[bytes] = []
        self.offset = 0

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self.chunks.append(bytes(data))
        self.offset += len(data)
        return len(data)

    def tell(self) -> int:
        return self.offset

    def drain(self) -> bytes:
        data, self.chunks = b"".join(self.chunks), []
        return data


def zip_stream(members: Iterable[tuple[str, Iterable[bytes]]]) -> Iterator[bytes]:
    """A zip archive of (name, chunks) members, produced as the members are: nothing is held whole."""
    sink = _Sink()
    with zipfile.ZipFile(sink, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, chunks in members:
            with archive.open(name, "w", force_zip64=True) as entry:
                for chunk in chunks:
                    entry.write(chunk)
                    if sink.offset and len(sink.chunks) > 16:
                        yield sink.drain()
    yield sink.drain()
