"""The files the annotations app keeps (vtt_site/storage_sweep.py): images, under a random key in
images/ (or collections/<id>/ for those stored before issue 49), and their thumbnails, made on demand."""

from __future__ import annotations

from collections.abc import Iterator

from annotations.models import Image
from vtt_site.storage_sweep import StoredFiles


def _image_names(folder: str) -> Iterator[str]:
    return iter(Image.objects.filter(file__startswith=f"{folder}/").values_list("file", flat=True).iterator())


def _thumbnail_names() -> Iterator[str]:
    images = Image.objects.exclude(file="").values_list("collection_id", "pk", "content_hash")
    for collection_id, pk, content_hash in images.iterator():
        yield f"thumbnails/{collection_id}/{pk}-{(content_hash or 'x')[:12]}.jpg"


STORED_FILES = [
    StoredFiles("images", lambda: _image_names("images")),
    StoredFiles("collections", lambda: _image_names("collections")),
    StoredFiles("thumbnails", _thumbnail_names, required=False),
]
