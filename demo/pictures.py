"""The demo's pictures: a scene drawn by `demo.synthetic` and uploaded exactly as a person's upload is.

Used by the demo's collection and tests (demo.services, demo.checks), and by the tests and benchmarks
that need test images with pixels.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile

from annotations.models import Collection, Image, Split
from annotations.services.images import image_upload
from demo.synthetic.render import render_scene
from vtt_site.errors import ApplicationError


def scene_picture(scene: dict) -> bytes:
    """A drawing of the scene (demo.synthetic) as PNG bytes, of its width and height; a scene given by its
    name and size alone is an empty street."""
    buffer = io.BytesIO()
    render_scene({"objects": [], "relationships": [], **scene}).save(buffer, format="PNG")
    return buffer.getvalue()


def scene_pictures_upload(*, collection: Collection, scenes: Iterable[dict], split: str) -> list[Image]:
    """A drawing of each scene (demo.synthetic), uploaded under its image's name: the demo's pictures,
    and the pixels of the test images that the tests and the benchmarks make (a test takes only images
    with pixels). A scene graph imported after them attaches to them."""
    files = [
        SimpleUploadedFile(scene["image"], scene_picture(scene), content_type="image/png") for scene in scenes
    ]
    result = image_upload(collection=collection, files=files, split=split)
    if result.rejected:
        first = result.rejected[0]
        raise ApplicationError(first.code, f"The picture {first.file} was refused: {first.message}")
    return result.created


def pictures_ensure(collection: Collection, scenes: Iterable[dict]) -> list[Any]:
    """The scenes' pictures as test images of the collection, uploaded if missing, without their scene
    graphs (nobody has annotated them), in the order of their names."""
    scenes = list(scenes)
    names = [scene["image"] for scene in scenes]
    present = set(collection.images.filter(original_name__in=names).values_list("original_name", flat=True))
    missing = [scene for scene in scenes if scene["image"] not in present]
    if missing:
        scene_pictures_upload(collection=collection, scenes=missing, split=Split.TEST)
    return list(collection.images.filter(original_name__in=names).order_by("original_name"))
