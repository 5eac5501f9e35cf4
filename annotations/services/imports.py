"""Imports of scene graphs (JSON Lines or COCO) into a collection.

Two phases. Validation reads every record and checks it with `engine.core.scene` against the
collection's vocabulary and the images already in the collection, collecting every bad record with its
line number and committing progress (`lines_done`) as it goes. Only when no record is bad does the
writing phase run, as one transaction of bulk inserts: an import is all or nothing.

A record whose "image" is the name of an image of the collection becomes that image's annotation (it
replaces what was there); any other record creates an image without pixels, sized as the record says.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from django.conf import settings
from django.core.files.base import File
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotations.formats import (
    Numbered,
    RecordError,
    coco_parse,
    coco_place,
    coco_records,
    has_control_characters,
    jsonl_records,
    record_size_error,
)
from annotations.models import Collection, Image, ImportJob, SceneFormat, Split, Stage
from annotations.selectors.vocabularies import VocabularyIndex, vocabulary_index
from annotations.services.annotation import annotation_delete, annotation_insert, chunked
from engine.core.errors import SceneError
from engine.core.scene import Scene, parse_scene
from vtt_site.jobs import JobFailed, job_enqueue, job_finish, job_limit_check, job_progress, job_run

PROGRESS_EVERY = 500
NAME_MAX_LENGTH = 255
Status = ImportJob.Status


@transaction.atomic
def import_create(
    *,
    collection: Collection,
    format: SceneFormat | str,
    file: File,
    split: str = Split.TRAIN,
    mark_reviewed: bool = False,
    created_by: Any = None,
    start: bool = True,
) -> ImportJob:
    """Keep the uploaded file and queue the import (`start=False`: the caller runs `import_run`)."""
    job_limit_check(ImportJob, user=created_by, what="imports")
    job = ImportJob(
        collection=collection,
        format=format,
        split=split,
        mark_reviewed=mark_reviewed,
        created_by=created_by,
        original_name=os.path.basename(file.name or "")[:255],
    )
    job.file.save(
        f"{uuid.uuid4().hex}.{'jsonl' if format == SceneFormat.JSONL else 'json'}", file, save=False
    )
    job.save()
    if start:
        job_enqueue(job)
    return job


def import_run(*, job_id: int) -> ImportJob:
    """Run a queued import (or take over one whose worker died); once it finished, nothing changes.

    Not one transaction on purpose: validation commits its progress as it goes, and the writing phase
    is its own transaction, which also marks the job done: an import is written once or not at all.
    """
    job_run(
        ImportJob,
        job_id,
        _run,
        reset={"lines_done": 0, "errors": []},
        unexpected=_failed("The import failed on the server (the error is logged); nothing was imported."),
    )
    return ImportJob.objects.get(pk=job_id)


def _run(job: ImportJob) -> None:
    job.collection = Collection.objects.select_related("vocabulary").get(pk=job.collection_id)
    index = vocabulary_index(job.collection.vocabulary)
    total, records = _records(job, index)
    job_progress(job, lines_total=total)
    scenes, errors = _validate(job, records, index, total)
    if errors:
        raise JobFailed(_problems(len(errors)), errors=[e.as_dict() for e in errors])
    job_progress(job, status=Status.WRITING)
    _write(job, scenes, index)


def _problems(count: int) -> str:
    return f"Nothing was imported: {count} problem{'' if count == 1 else 's'}."


def _failed(message: str) -> JobFailed:
    return JobFailed(message, errors=[RecordError(None, message).as_dict()])


# --- Reading -----------------------------------------------------------------------------------------------


def _records(job: ImportJob, index: VocabularyIndex) -> tuple[int, Iterable[Numbered | RecordError]]:
    """The number of records (bad ones included) and the records, numbered as the errors name them."""
    if job.format == SceneFormat.COCO:
        with job.file.open("rb") as handle:
            document, unreadable = coco_parse(handle.read(), settings.JSON_MAX_DEPTH)
        if unreadable is not None:
            return 0, [unreadable]
        records, errors = coco_records(document, index.core.type_index)
        images = document.get("images") if isinstance(document, dict) else None
        return len(images) if isinstance(images, list) else 0, [*errors, *records]
    with job.file.open("rb") as handle:
        total = sum(1 for line in handle if line.strip())
    return total, _jsonl_lines(job)


def _jsonl_lines(job: ImportJob) -> Iterator[Numbered | RecordError]:
    with job.file.open("rb") as handle:
        yield from jsonl_records(handle, settings.JSON_MAX_DEPTH)


# --- Validating --------------------------------------------------------------------------------------------


def _validate(
    job: ImportJob, records: Iterable[Numbered | RecordError], index: VocabularyIndex, total: int
) -> tuple[list[Scene], list[RecordError]]:
    coco = job.format == SceneFormat.COCO
    place: Callable[[int], str] = coco_place if coco else (lambda number: f"line {number}")
    sizes = {
        name: (w, h) for name, w, h in job.collection.images.values_list("original_name", "width", "height")
    }
    limits = settings.VTT["ANNOTATION_MAX_OBJECTS"], settings.VTT["ANNOTATION_MAX_RELATIONSHIPS"]
    seen: dict[str, int] = {}
    scenes: list[Scene] = []
    errors: list[RecordError] = []
    done = 0
    for item in records:
        if isinstance(item, RecordError):
            errors.append(item)
            if item.line is None:
                continue  # the file, a category or an annotation of COCO: not a record
        else:
            number, record = item
            try:
                too_large = record_size_error(record, *limits)
                if too_large is not None:
                    raise SceneError(too_large[1], where=f"{place(number)}.{too_large[0]}")
                scene = parse_scene(record, index.core, where=place(number))
                _check_against_collection(scene, sizes, seen, place)
            except SceneError as exc:
                message = _without_place(exc, place(number))
                errors.append(
                    RecordError(None, f"{place(number)}: {message}") if coco else RecordError(number, message)
                )
            else:
                seen[scene.image] = number
                scenes.append(scene)
        done += 1
        if done % PROGRESS_EVERY == 0:
            job_progress(job, lines_done=done, progress=done / max(job.lines_total, 1))
    # Every record has been checked, those that could not be read at all included.
    job_progress(job, lines_done=total, progress=1.0 if total else 0.0)
    return scenes, sorted(errors, key=lambda e: (e.line is not None, e.line or 0))


def _check_against_collection(
    scene: Scene, sizes: dict[str, tuple[int, int]], seen: dict[str, int], place: Callable[[int], str]
) -> None:
    if has_control_characters(scene.image):
        raise SceneError(
            "image names may not contain control characters (a NUL, a line break)", where="image"
        )
    if len(scene.image) > NAME_MAX_LENGTH:
        raise SceneError(f"image names have at most {NAME_MAX_LENGTH} characters", where="image")
    if scene.image in seen:
        raise SceneError(f"image {scene.image!r} is already at {place(seen[scene.image])}", where="image")
    size = sizes.get(scene.image)
    if size is not None and size != (scene.width, scene.height):
        raise SceneError(
            f"image {scene.image!r} is {size[0]}x{size[1]} in the collection, "
            f"but this record says {scene.width}x{scene.height}",
            where="image",
        )


def _without_place(exc: SceneError, place: str) -> str:
    """`line 3.objects[0].bbox` -> `objects[0].bbox: ...`: the place is reported beside it."""
    where = (exc.where or "").removeprefix(place).lstrip(".")
    return f"{where}: {exc.message}" if where else exc.message


# --- Writing -------------------------------------------------------------------------------------------------


def _write(job: ImportJob, scenes: list[Scene], index: VocabularyIndex) -> None:
    """One transaction: the images, their annotations and the job marked done, or nothing."""
    try:
        with transaction.atomic():
            created, updated = _write_all(job, scenes, index)
            job_finish(job, images_created=created, images_updated=updated)
    except IntegrityError:
        raise _failed(
            "Images were added to the collection while this import ran, under names it uses; "
            "nothing was imported. Run the import again."
        ) from None


def _write_all(job: ImportJob, scenes: list[Scene], index: VocabularyIndex) -> tuple[int, int]:
    now = timezone.now()
    existing = {image.original_name: image for image in job.collection.images.only("id", "original_name")}
    state = _imported_state(job, now)
    new = [
        Image(
            collection=job.collection,
            original_name=scene.image,
            width=scene.width,
            height=scene.height,
            split=job.split,
            uploaded_by=job.created_by,
            **state,
        )
        for scene in scenes
        if scene.image not in existing
    ]
    Image.objects.bulk_create(new, batch_size=2000)
    replaced = [existing[scene.image].pk for scene in scenes if scene.image in existing]
    for chunk in chunked(replaced):
        Image.objects.filter(pk__in=chunk).update(**state)
    annotation_delete(image_ids=replaced)
    by_name = existing | {image.original_name: image for image in new}
    annotation_insert(images=[by_name[scene.image] for scene in scenes], scenes=scenes, index=index)
    return len(new), len(replaced)


def _imported_state(job: ImportJob, now) -> dict[str, Any]:
    """Imported annotations go to review, or straight to accepted for an already reviewed dataset.
    Nobody on the platform annotated them, so any reviewer may review them."""
    return {
        "stage": Stage.ACCEPTED if job.mark_reviewed else Stage.REVIEW,
        "annotator": None,
        "annotated_at": now,
        "lease_holder": None,
        "lease_expires_at": None,
        "returned": False,
        "review_comment": "",
        "reviewed_by": job.created_by if job.mark_reviewed else None,
        "reviewed_at": now if job.mark_reviewed else None,
    }
