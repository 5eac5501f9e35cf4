"""Image uploads (one file, many files, zip archives) and image edits.

The checks of the files themselves (Pillow, zip, names) live in `annotations.files`, free of the ORM;
this service reads the limits from the settings, calls those checks and stores each file that passes in
its own transaction: a bad file is refused with a message naming it while the good files of the same
batch go in.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile, File
from django.db import IntegrityError, transaction
from PIL import Image as PILImage

from annotations.conf import conf
from annotations.errors import AnnotationErrorCode as Code
from annotations.files import (
    CheckedImage,
    FileLimits,
    InflationBudget,
    Refused,
    check_image,
    clean_name,
    display_name,
    is_zip,
    too_big,
    zip_entries,
)
from annotations.models import Collection, Image, Split
from vtt_site.errors import ApplicationError


@dataclass(frozen=True)
class Rejection:
    file: str
    code: str
    message: str


@dataclass
class UploadResult:
    created: list[Image] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)
    # Images imported without pixels (scene graphs) that this upload gave their pixels.
    attached: list[Image] = field(default_factory=list)


def limits_from_settings() -> FileLimits:
    return FileLimits(
        image_bytes=conf.IMAGE_MAX_BYTES,
        pixels=conf.IMAGE_MAX_PIXELS,
        zip_bytes=conf.ZIP_MAX_BYTES,
        files=settings.DATA_UPLOAD_MAX_NUMBER_FILES,
    )


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
    limits = limits_from_settings()
    result = UploadResult()
    for name, payload in _candidates(files, limits):
        try:
            if isinstance(payload, Refused):
                raise payload
            checked = check_image(payload, limits)
            image, attached = image_store(
                collection=collection, name=name, checked=checked, split=split, uploaded_by=uploaded_by
            )
            (result.attached if attached else result.created).append(image)
        except Refused as refused:
            result.rejected.append(Rejection(name, str(refused.code), refused.message))
    return result


@transaction.atomic
def image_update(*, image: Image, split: str) -> Image:
    image.split = split
    image.save(update_fields=["split"])
    return image


# --- Reading the batch -----------------------------------------------------------------------------------


def _candidates(files: Sequence[File], limits: FileLimits) -> Iterator[tuple[str, bytes | Refused]]:
    """(name, bytes or the reason it cannot be read) for every file and every zip entry.

    Every name, of an upload or of a zip entry, is reduced to a safe base name (`files.clean_name`); a
    name that cannot be is refused under a printable form of itself, so every entry is accounted for.
    """
    remaining = limits.files
    inflation = InflationBudget(limits.zip_bytes)  # shared by every archive of the upload
    for upload in files:
        name = display_name(os.path.basename(upload.name or ""))
        if remaining <= 0:
            yield (
                name,
                Refused(
                    Code.TOO_MANY_FILES, f"At most {limits.files} files per upload; send this one in another."
                ),
            )
            continue
        if is_zip(upload):
            # A generator: one entry's bytes in memory at a time.
            entries: Iterable[tuple[str, bytes | Refused]] = (
                _named(entry, payload) if entry else (name, payload)
                for entry, payload in zip_entries(upload, limits, remaining, inflation)
            )
        else:
            entries = [_named(upload.name, _read(upload, limits))]
        for entry in entries:
            remaining -= 1
            yield entry


def _named(raw: str | None, payload: bytes | Refused) -> tuple[str, bytes | Refused]:
    try:
        return clean_name(raw), payload
    except Refused as refused:
        return display_name(raw), refused


def _read(upload: File, limits: FileLimits) -> bytes | Refused:
    if upload.size is not None and upload.size > limits.image_bytes:
        return too_big(upload.size, limits)
    return upload.read()


# --- Storing one image -------------------------------------------------------------------------------------


@transaction.atomic
def image_store(
    *,
    collection: Collection,
    name: str,
    checked: CheckedImage,
    split: str,
    uploaded_by: Any,
    stored_name: str = "",
) -> tuple[Image, bool]:
    """(the image, whether it was one imported without pixels that these pixels now complete).
    `stored_name`: the pixels are in the storage already under that name (a bucket source's object,
    used where it is), so nothing is written but the row; `Refused` as for an upload."""
    waiting = (
        Image.objects.select_for_update().filter(collection=collection, original_name=name, file="").first()
    )
    if waiting is not None:  # an imported scene graph's image: these are its pixels
        return image_pixels_attach(image=waiting, checked=checked, stored_name=stored_name), True
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
    _put(image, checked, stored_name)
    try:
        with transaction.atomic():
            image.save()
    except IntegrityError:
        if not stored_name:
            image.file.delete(save=False)
        _refuse_duplicates(collection, name, checked.content_hash)  # a concurrent upload won the race
        raise
    return image, False


@transaction.atomic
def image_pixels_attach(*, image: Image, checked: CheckedImage, stored_name: str = "") -> Image:
    """Give an image imported without pixels (a scene graph's) its pixels, which must be of the size its
    annotation's boxes were drawn on. `Refused` (with nothing changed) when they are not, or when the
    same pixels are in the collection already."""
    if (checked.width, checked.height) != (image.width, image.height):
        raise Refused(
            Code.PIXELS_SIZE_MISMATCH,
            f"{image.original_name} is {checked.width}x{checked.height} pixels, but its scene graph was "
            f"drawn on {image.width}x{image.height}: not attached.",
        )
    same = Image.objects.filter(collection=image.collection_id, content_hash=checked.content_hash).first()
    if same is not None:
        raise Refused(
            Code.DUPLICATE_IMAGE, f"The same image is already in this collection as {same.original_name!r}."
        )
    image.content_hash, image.format = checked.content_hash, checked.format
    _put(image, checked, stored_name)
    try:
        with transaction.atomic():
            image.save(update_fields=["file", "content_hash", "format"])
    except IntegrityError:
        if not stored_name:
            image.file.delete(save=False)
        raise Refused(
            Code.DUPLICATE_IMAGE, "The same image was added to this collection meanwhile."
        ) from None
    return image


def _put(image: Image, checked: CheckedImage, stored_name: str) -> None:
    """The pixels into the storage under a random key (the first of the two writes; the row is the
    second), or the name of those already there."""
    if stored_name:
        image.file.name = stored_name
        return
    image.file.save(f"{checked.content_hash[:32]}.{checked.extension}", ContentFile(checked.data), save=False)


def _refuse_duplicates(collection: Collection, name: str, content_hash: str) -> None:
    same = Image.objects.filter(collection=collection, content_hash=content_hash).first()
    if same is not None:
        raise Refused(
            Code.DUPLICATE_IMAGE,
            f"The same image is already in this collection as {same.original_name!r}.",
        )
    named = Image.objects.filter(collection=collection, original_name=name).first()
    if named is not None:
        raise Refused(
            Code.IMAGE_NAME_TAKEN,
            f"Another image named {name!r} is already in this collection; rename the file.",
        )


THUMBNAIL_SIDE = 320


def image_thumbnail_ensure(*, image: Image) -> str:
    """The storage name of a small JPEG of the image, made the first time it is asked for.

    The name carries the content hash, so a thumbnail never outlives the pixels it was made from. Two
    requests making it at once: the storage keeps the first under the name and gives the second another,
    which is removed again (a bucket's put is atomic; the filesystem storage writes exclusively).
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
    saved = storage.save(name, ContentFile(buffer.getvalue()))
    if saved != name:
        storage.delete(saved)
    return name
