"""Image uploads (one file, many files, zip archives) and image edits.

Each file is checked with Pillow (its real format, not its extension; byte and pixel limits before any
decoding; `verify()` and a full decode; EXIF orientation applied so the stored image is upright) and then
stored in its own transaction: a bad file is refused with a message naming it while the good files of
the same batch go in. A zip archive is checked as a whole first (number of entries, total uncompressed
size as declared, and every entry is read with a cap, since a declared size can lie).
"""

from __future__ import annotations

import hashlib
import io
import os
import zipfile
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile, File
from django.db import IntegrityError, transaction
from PIL import ExifTags, ImageOps, UnidentifiedImageError
from PIL import Image as PILImage

from annotations.errors import AnnotationErrorCode as Code
from annotations.models import Collection, Image, Split
from vtt_site.errors import ApplicationError

# Pillow's format name -> the extension of the stored file. MPO is how Pillow names the multi-picture
# JPEG files many phone cameras write: a JPEG file.
ALLOWED_FORMATS = {"JPEG": "jpg", "MPO": "jpg", "PNG": "png", "WEBP": "webp"}
NAME_MAX_LENGTH = 255


@dataclass(frozen=True)
class Rejection:
    file: str
    code: str
    message: str


@dataclass
class UploadResult:
    created: list[Image] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)


class _Refused(Exception):
    def __init__(self, code: Code, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class _Limits:
    image_bytes: int
    pixels: int
    zip_bytes: int
    files: int

    @classmethod
    def from_settings(cls) -> _Limits:
        vtt = settings.VTT
        return cls(
            image_bytes=vtt["IMAGE_MAX_BYTES"],
            pixels=vtt["IMAGE_MAX_PIXELS"],
            zip_bytes=vtt["ZIP_MAX_BYTES"],
            files=settings.DATA_UPLOAD_MAX_NUMBER_FILES,
        )


@dataclass(frozen=True)
class _Checked:
    data: bytes  # what is stored: the upload itself, or its upright re-encoding
    content_hash: str
    format: str
    width: int
    height: int


def image_upload(
    *, collection: Collection, files: Sequence[File], split: str = Split.TRAIN, uploaded_by: Any = None
) -> UploadResult:
    """Store every good image of the batch and say why each other file was refused.

    Deliberately not one transaction: each file is stored in its own (see the module docstring).
    """
    if not files:
        raise ApplicationError(
            Code.NO_FILES, "Choose at least one image or zip file to upload.", fields={"files": ["Required."]}
        )
    limits = _Limits.from_settings()
    result = UploadResult()
    for name, payload in _candidates(files, limits):
        try:
            if isinstance(payload, _Refused):
                raise payload
            checked = _inspect(payload, limits)
            result.created.append(
                _store(
                    collection=collection, name=name, checked=checked, split=split, uploaded_by=uploaded_by
                )
            )
        except _Refused as refused:
            result.rejected.append(Rejection(name, str(refused.code), refused.message))
    return result


@transaction.atomic
def image_update(*, image: Image, split: str) -> Image:
    image.split = split
    image.save(update_fields=["split"])
    return image


# --- Reading the batch -----------------------------------------------------------------------------------


def _candidates(files: Sequence[File], limits: _Limits) -> Iterator[tuple[str, bytes | _Refused]]:
    """(name, bytes or the reason it cannot be read) for every file and every zip entry."""
    remaining = limits.files
    for upload in files:
        name = os.path.basename(upload.name or "") or "unnamed file"
        if remaining <= 0:
            yield (
                name,
                _Refused(
                    Code.TOO_MANY_FILES, f"At most {limits.files} files per upload; send this one in another."
                ),
            )
            continue
        entries = (
            _zip_entries(upload, name, limits, remaining)
            if _is_zip(upload)
            else [_read(upload, name, limits)]
        )
        for entry in entries:
            remaining -= 1
            yield entry


def _is_zip(upload: File) -> bool:
    upload.seek(0)
    found = zipfile.is_zipfile(upload)
    upload.seek(0)
    return found


def _read(upload: File, name: str, limits: _Limits) -> tuple[str, bytes | _Refused]:
    if upload.size is not None and upload.size > limits.image_bytes:
        return name, _too_big(upload.size, limits)
    return name, upload.read()


def _too_big(size: int, limits: _Limits) -> _Refused:
    return _Refused(
        Code.IMAGE_TOO_LARGE,
        f"The file has {size:,} bytes; the limit is {limits.image_bytes:,} bytes per image.",
    )


def _is_junk(path: str) -> bool:
    """Folders and what archivers add beside the files (macOS resource forks, hidden files)."""
    parts = path.split("/")
    return parts[0] == "__MACOSX" or parts[-1].startswith(".") or path.endswith("/")


def _zip_entries(
    upload: File, zip_name: str, limits: _Limits, budget: int
) -> Iterator[tuple[str, bytes | _Refused]]:
    try:
        archive = zipfile.ZipFile(upload)
    except (zipfile.BadZipFile, OSError, EOFError):
        yield zip_name, _Refused(Code.BAD_ZIP, "The zip archive is damaged and cannot be opened.")
        return
    with archive:
        entries = [info for info in archive.infolist() if not info.is_dir() and not _is_junk(info.filename)]
        declared = sum(info.file_size for info in entries)
        if len(entries) > budget:
            yield (
                zip_name,
                _Refused(
                    Code.TOO_MANY_FILES,
                    f"The archive holds {len(entries)} files; at most {budget} more are accepted in this upload.",
                ),
            )
        elif declared > limits.zip_bytes:
            yield (
                zip_name,
                _Refused(
                    Code.ZIP_TOO_LARGE,
                    f"The archive unpacks to {declared:,} bytes; the limit is {limits.zip_bytes:,} bytes.",
                ),
            )
        else:
            for info in entries:
                yield info.filename, _read_entry(archive, info, limits)


def _read_entry(archive: zipfile.ZipFile, info: zipfile.ZipInfo, limits: _Limits) -> bytes | _Refused:
    if info.file_size > limits.image_bytes:
        return _too_big(info.file_size, limits)
    try:
        with archive.open(info) as entry:
            data = entry.read(limits.image_bytes + 1)  # the declared size may lie: never read past the cap
    except (zipfile.BadZipFile, RuntimeError, NotImplementedError, zlib.error, OSError, EOFError):
        return _Refused(
            Code.BAD_ZIP, "This entry cannot be unpacked (damaged, encrypted or an unknown method)."
        )
    if len(data) > limits.image_bytes:
        return _too_big(len(data), limits)
    return data


# --- Checking one image ----------------------------------------------------------------------------------


def _inspect(data: bytes, limits: _Limits) -> _Checked:
    if not data:
        raise _Refused(Code.NOT_AN_IMAGE, "The file is empty.")
    try:
        with PILImage.open(io.BytesIO(data)) as probe:
            fmt, (width, height) = probe.format, probe.size
            _check_header(fmt, width, height, limits)  # before anything is decoded
            probe.verify()
        with PILImage.open(io.BytesIO(data)) as image:
            image.load()
            return _upright(image, data, "JPEG" if fmt == "MPO" else fmt)
    except _Refused:
        raise
    except PILImage.DecompressionBombError:
        raise _Refused(Code.TOO_MANY_PIXELS, _pixels_message(limits)) from None
    except UnidentifiedImageError:
        raise _Refused(
            Code.NOT_AN_IMAGE, "This is not an image file Pillow can read; upload JPEG, PNG or WebP."
        ) from None
    except Exception:
        # Damaged image data makes Pillow raise many different types (OSError, SyntaxError, ValueError,
        # struct.error, ...). Whatever the type, it is bad input, never a server error.
        raise _Refused(Code.NOT_AN_IMAGE, "The image data is damaged or truncated.") from None


def _check_header(fmt: str | None, width: int, height: int, limits: _Limits) -> None:
    if fmt not in ALLOWED_FORMATS:
        raise _Refused(
            Code.FORMAT_NOT_ALLOWED, f"{fmt or 'This'} files are not accepted; upload JPEG, PNG or WebP."
        )
    if width * height > limits.pixels:
        raise _Refused(Code.TOO_MANY_PIXELS, f"The image is {width}x{height}; " + _pixels_message(limits))


def _pixels_message(limits: _Limits) -> str:
    return f"images may have at most {limits.pixels:,} pixels."


def _upright(image: PILImage.Image, data: bytes, fmt: str) -> _Checked:
    """Apply the EXIF orientation, so that boxes drawn on the stored image mean what the camera saw."""
    orientation = image.getexif().get(ExifTags.Base.Orientation, 1)
    stored = data
    if orientation in range(2, 9):
        image = ImageOps.exif_transpose(image)
        stored = _encode(image, fmt)
    return _Checked(
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


# --- Storing one image -------------------------------------------------------------------------------------


@transaction.atomic
def _store(*, collection: Collection, name: str, checked: _Checked, split: str, uploaded_by: Any) -> Image:
    if len(name) > NAME_MAX_LENGTH:
        raise _Refused(Code.FILE_NAME_TOO_LONG, f"File names may have at most {NAME_MAX_LENGTH} characters.")
    _refuse_duplicates(collection, name, checked.content_hash)
    image = Image(
        collection=collection,
        original_name=name,
        content_hash=checked.content_hash,
        width=checked.width,
        height=checked.height,
        format=checked.format,
        split=split,
        uploaded_by=uploaded_by,
    )
    image.file.save(
        f"{checked.content_hash[:32]}.{ALLOWED_FORMATS[checked.format]}",
        ContentFile(checked.data),
        save=False,
    )
    try:
        with transaction.atomic():
            image.save()
    except IntegrityError:
        image.file.delete(save=False)
        _refuse_duplicates(collection, name, checked.content_hash)  # a concurrent upload won the race
        raise
    return image


def _refuse_duplicates(collection: Collection, name: str, content_hash: str) -> None:
    same = Image.objects.filter(collection=collection, content_hash=content_hash).first()
    if same is not None:
        raise _Refused(
            Code.DUPLICATE_IMAGE,
            f"The same image is already in this collection as {same.original_name!r}.",
        )
    named = Image.objects.filter(collection=collection, original_name=name).first()
    if named is not None:
        raise _Refused(
            Code.IMAGE_NAME_TAKEN,
            f"Another image named {name!r} is already in this collection; rename the file.",
        )


THUMBNAIL_SIDE = 320


def image_thumbnail_ensure(*, image: Image) -> str:
    """The storage name of a small JPEG of the image, made the first time it is asked for.

    The name carries the content hash, so a thumbnail never outlives the pixels it was made from; it is
    written under a temporary name and moved into place, so two requests making it at once cannot leave
    a half-written file.
    """
    name = f"thumbnails/{image.collection_id}/{image.pk}-{(image.content_hash or 'x')[:12]}.jpg"
    storage = image.file.storage
    if storage.exists(name):
        return name
    with image.file.open("rb") as source, PILImage.open(source) as picture:
        picture.draft("RGB", (THUMBNAIL_SIDE, THUMBNAIL_SIDE))  # JPEG decodes at a reduced size
        small = picture.convert("RGB")
        small.thumbnail((THUMBNAIL_SIDE, THUMBNAIL_SIDE))
        buffer = io.BytesIO()
        small.save(buffer, format="JPEG", quality=80)
    path = storage.path(name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    partial = f"{path}.{os.getpid()}.partial"
    with open(partial, "wb") as handle:
        handle.write(buffer.getvalue())
    os.replace(partial, path)
    return name
