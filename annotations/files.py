"""Checks of uploaded files: images with Pillow, zip archives, and the names they arrive under.

Plain bytes and file objects in, checked data or a `Refused` reason out: no ORM, no settings (the
limits come in as `FileLimits`), so the rules can be read, tested and benchmarked on their own, like
`formats.py` beside it. `annotations.services.images` reads the settings, calls these checks and
stores what passes.

An image is checked for its real format (not its extension), its byte and pixel limits before any
decoding, `verify()` and a full decode, and its EXIF orientation is applied so the stored image is
upright. A zip archive is checked as a whole first (number of entries, total uncompressed size as
declared) and every entry is read with a cap, since a declared size can lie; all the archives of one
upload share one budget of unpacked bytes (`InflationBudget`), checked before each entry is unpacked. Every name, of a single
upload or of a zip entry, is reduced to a safe base name the same way (`clean_name`).
"""

from __future__ import annotations

import hashlib
import io
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO, Any

from PIL import ExifTags, ImageOps, UnidentifiedImageError
from PIL import Image as PILImage

from annotations.errors import AnnotationErrorCode as Code
from kernel.text import has_control_characters

# Pillow's format name -> the extension of the stored file. MPO is how Pillow names the multi-picture
# JPEG files many phone cameras write: a JPEG file.
ALLOWED_FORMATS = {"JPEG": "jpg", "MPO": "jpg", "PNG": "png", "WEBP": "webp"}
NAME_MAX_LENGTH = 255
# What archivers add beside the files; skipped without a word, since nobody put them there on purpose.
ARCHIVER_FILES = {".DS_Store", "Thumbs.db", "desktop.ini"}


class Refused(Exception):
    """A file, or a zip entry, that is not stored; `code` and `message` say why."""

    def __init__(self, code: Code, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class FileLimits:
    image_bytes: int
    pixels: int
    zip_bytes: int
    files: int


@dataclass(frozen=True)
class CheckedImage:
    data: bytes  # what is stored: the upload itself, or its upright re-encoding
    content_hash: str
    format: str
    width: int
    height: int

    @property
    def extension(self) -> str:
        return ALLOWED_FORMATS[self.format]


# --- Names -------------------------------------------------------------------------------------------------


def clean_name(raw: str | None) -> str:
    """The safe base name of an uploaded file or a zip entry, or `Refused`.

    Both separators count (a zip made on Windows may use backslashes), so `../../x.png`, `/tmp/x.png`,
    `ok/../../x.png` and `..\\..\\x.png` all become `x.png`: a name never carries a path, and the export
    never repeats one. A name with control characters (a NUL, a newline) or nothing left is refused.
    """
    base = (raw or "").replace("\\", "/").rsplit("/", 1)[-1].strip()
    if base in ("", ".", ".."):
        raise Refused(Code.INVALID_FILE_NAME, "The file has no usable name; rename it.")
    if has_control_characters(base):
        raise Refused(Code.INVALID_FILE_NAME, "The file name contains control characters; rename the file.")
    if len(base) > NAME_MAX_LENGTH:
        raise Refused(Code.FILE_NAME_TOO_LONG, f"File names may have at most {NAME_MAX_LENGTH} characters.")
    return base


def display_name(raw: str | None) -> str:
    """How a refused file is named back to the person: printable, short, never empty."""
    text = "".join(c if c.isprintable() else "?" for c in (raw or ""))[:NAME_MAX_LENGTH]
    return text or "unnamed file"


def is_archiver_file(path: str) -> bool:
    """Folders, and what archivers add beside the files (macOS resource forks, Finder and Explorer files)."""
    parts = path.replace("\\", "/").split("/")
    return (
        path.endswith(("/", "\\"))
        or parts[0] == "__MACOSX"
        or parts[-1] in ARCHIVER_FILES
        or parts[-1].startswith("._")
    )


# --- Zip archives --------------------------------------------------------------------------------------


def is_zip(upload: IO[bytes]) -> bool:
    upload.seek(0)
    found = zipfile.is_zipfile(upload)
    upload.seek(0)
    return found


class InflationBudget:
    """The bytes all the zip archives of one upload may unpack to, together (`limits.zip_bytes`).

    Each archive's declared size is checked against what is left before it is opened, and each entry's
    real size is charged as it is read, with the read capped at what is left: declared sizes can lie, so
    the budget is checked again before the next entry is decompressed. Twelve 1 GB zips of zeros in
    one upload used to be unpacked in full, one after the other (35 s of a web worker); now the upload
    stops unpacking once it has unpacked `zip_bytes`."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.left = total

    def refusal(self, what: str) -> Refused:
        return Refused(
            Code.ZIP_TOO_LARGE,
            f"{what} past the limit of {self.total:,} bytes unpacked per upload; send it in another upload.",
        )


def zip_entries(
    upload: IO[bytes], limits: FileLimits, files_left: int, inflation: InflationBudget
) -> Iterator[tuple[str, bytes | Refused]]:
    """(entry name as in the archive, bytes or the reason) per entry; one ("", Refused) when the archive
    as a whole is refused (damaged, too many entries, too large unpacked for what is left of the
    upload's `inflation`)."""
    try:
        archive = zipfile.ZipFile(upload)
    except (zipfile.BadZipFile, OSError, EOFError, ValueError):
        yield "", Refused(Code.BAD_ZIP, "The zip archive is damaged and cannot be opened.")
        return
    with archive:
        entries = [info for info in archive.infolist() if not is_archiver_file(info.filename)]
        declared = sum(info.file_size for info in entries)
        if len(entries) > files_left:
            yield (
                "",
                Refused(
                    Code.TOO_MANY_FILES,
                    f"The archive holds {len(entries)} files; at most {files_left} more are accepted in this upload.",
                ),
            )
        elif declared > inflation.left:
            yield "", inflation.refusal(f"The archive unpacks to {declared:,} bytes, which takes the upload")
        else:
            for info in entries:
                # The name as stored: zipfile cuts `filename` at a NUL, which must be refused, not hidden.
                yield info.orig_filename, _read_entry(archive, info, limits, inflation)


def _read_entry(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, limits: FileLimits, inflation: InflationBudget
) -> bytes | Refused:
    if info.file_size > limits.image_bytes:
        return too_big(info.file_size, limits)
    if inflation.left <= 0:
        return inflation.refusal("This entry was not unpacked: the upload's archives went")
    cap = min(limits.image_bytes, inflation.left)
    try:
        with archive.open(info) as entry:
            data = entry.read(cap + 1)  # the declared size may lie: never read past the cap
    except (zipfile.BadZipFile, RuntimeError, NotImplementedError, zlib.error, OSError, EOFError, ValueError):
        return Refused(
            Code.BAD_ZIP, "This entry cannot be unpacked (damaged, encrypted or an unknown method)."
        )
    inflation.left -= len(data)
    if len(data) > limits.image_bytes:
        return too_big(len(data), limits)
    if inflation.left < 0:
        return inflation.refusal("This entry unpacks")
    return data


def too_big(size: int, limits: FileLimits) -> Refused:
    return Refused(
        Code.IMAGE_TOO_LARGE,
        f"The file has {size:,} bytes; the limit is {limits.image_bytes:,} bytes per image.",
    )


# --- One image -------------------------------------------------------------------------------------------


def check_image(data: bytes, limits: FileLimits) -> CheckedImage:
    """The image as it will be stored, or `Refused` with the reason a person can act on."""
    if not data:
        raise Refused(Code.NOT_AN_IMAGE, "The file is empty.")
    try:
        with PILImage.open(io.BytesIO(data)) as probe:
            width, height = probe.size
            fmt = _check_header(probe.format, width, height, limits)  # before anything is decoded
            probe.verify()
        with PILImage.open(io.BytesIO(data)) as image:
            image.load()
            return _upright(image, data, "JPEG" if fmt == "MPO" else fmt)
    except Refused:
        raise
    except PILImage.DecompressionBombError:
        raise Refused(Code.TOO_MANY_PIXELS, _pixels_message(limits)) from None
    except UnidentifiedImageError:
        raise Refused(
            Code.NOT_AN_IMAGE, "This is not an image file we can read; upload JPEG, PNG or WebP."
        ) from None
    except Exception:
        # Damaged image data makes Pillow raise many different types (OSError, SyntaxError, ValueError,
        # struct.error, ...). Whatever the type, it is bad input, never a server error.
        raise Refused(Code.NOT_AN_IMAGE, "The image data is damaged or truncated.") from None


def _check_header(fmt: str | None, width: int, height: int, limits: FileLimits) -> str:
    """The image's format, once it is one we take and the image is not too large."""
    if fmt is None or fmt not in ALLOWED_FORMATS:
        raise Refused(
            Code.FORMAT_NOT_ALLOWED, f"{fmt or 'This'} files are not accepted; upload JPEG, PNG or WebP."
        )
    if width * height > limits.pixels:
        raise Refused(Code.TOO_MANY_PIXELS, f"The image is {width}x{height}; " + _pixels_message(limits))
    return fmt


def _pixels_message(limits: FileLimits) -> str:
    return f"images may have at most {limits.pixels:,} pixels."


def _upright(image: PILImage.Image, data: bytes, fmt: str) -> CheckedImage:
    """Apply the EXIF orientation, so that boxes drawn on the stored image mean what the camera saw."""
    orientation = image.getexif().get(ExifTags.Base.Orientation, 1)
    stored = data
    if orientation in range(2, 9):
        image = ImageOps.exif_transpose(image)
        stored = _encode(image, fmt)
    return CheckedImage(
        data=stored,
        content_hash=hashlib.sha256(data).hexdigest(),
        format=fmt,
        width=image.width,
        height=image.height,
    )


def _encode(image: PILImage.Image, fmt: str) -> bytes:
    options: dict[str, Any] = {"exif": image.getexif()}  # without the orientation tag now
    if image.info.get("icc_profile"):
        options["icc_profile"] = image.info["icc_profile"]
    if fmt in ("JPEG", "WEBP"):
        options["quality"] = 95
    if fmt == "JPEG" and image.mode not in ("RGB", "L", "CMYK"):
        image = image.convert("RGB")
    buffer = io.BytesIO()
    image.save(buffer, format=fmt, **options)
    return buffer.getvalue()
