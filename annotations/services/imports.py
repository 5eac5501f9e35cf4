"""Imports of scene graphs (JSON Lines or COCO) into a collection.

Two phases. Validation reads every record and checks it with `engine.core.scene` against the
collection's vocabulary and the images already in the collection, collecting every bad record with its
line number and committing progress (`lines_done`) as it goes. Only when no record is bad does the
writing phase run, as one transaction of bulk inserts: an import is all or nothing.

A record whose "image" is the name of an image of the collection becomes that image's annotation (it
replaces what was there); any other record creates an image without pixels, sized as the record says.
"""

from __future__ import annotations

import logging
import os
import uuid
from collections.abc import Iterable, Iterator
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.files.base import File
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from annotations import tasks
from annotations.formats import (
    Numbered,
    RecordError,
    coco_parse,
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

logger = logging.getLogger(__name__)

PROGRESS_EVERY = 500
NAME_MAX_LENGTH = 255
Status = ImportJob.Status


class _Abort(Exception):
    """The file as a whole cannot be imported; the message says why."""


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
        transaction.on_commit(lambda: tasks.import_run.delay(job.pk))
    return job


def import_run(*, job_id: int) -> ImportJob:
    """Run a queued import; running it again once it finished changes nothing.

    Not one transaction on purpose: validation commits its progress as it goes, and the writing phase
    is its own transaction.
    """
    job = _claim(job_id)
    if job is None:
        return ImportJob.objects.get(pk=job_id)
    try:
        index = vocabulary_index(job.collection.vocabulary)
        total, records = _records(job, index)
        _update(job, lines_total=total)
        scenes, errors = _validate(job, records, index)
        if errors:
            return _finish(job, Status.FAILED, errors=[e.as_dict() for e in errors])
        _update(job, status=Status.WRITING)
        created, updated = _write(job, scenes, index)
    except _Abort as exc:
        return _finish(job, Status.FAILED, errors=[RecordError(None, str(exc)).as_dict()])
    except Exception:
        # A bug or a lost database must not leave the job "writing" for ever; the transaction of the
        # writing phase has been rolled back, so nothing was imported.
        logger.exception("Import %s failed", job_id)
        message = "The import failed on the server (the error is logged); nothing was imported."
        return _finish(job, Status.FAILED, errors=[RecordError(None, message).as_dict()])
    return _finish(job, Status.DONE, images_created=created, images_updated=updated)


def _claim(job_id: int) -> ImportJob | None:
    """Move the job to validating unless another run has it. A run that died without finishing (a lost
    worker) is recognised by its age and started again, which is safe: nothing of it was written."""
    now = timezone.now()
    stale = now - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT)
    claimable = Q(status=Status.QUEUED) | Q(
        status__in=[Status.VALIDATING, Status.WRITING], started_at__lt=stale
    )
    claimed = ImportJob.objects.filter(claimable, pk=job_id).update(
        status=Status.VALIDATING, started_at=now, lines_done=0, errors=[]
    )
    if not claimed:
        return None
    return ImportJob.objects.select_related("collection__vocabulary", "created_by").get(pk=job_id)


def _update(job: ImportJob, **values: Any) -> None:
    """Outside the writing transaction, so that a client polling the job sees it at once."""
    ImportJob.objects.filter(pk=job.pk).update(**values)
    for key, value in values.items():
        setattr(job, key, value)


def _finish(job: ImportJob, status: str, **values: Any) -> ImportJob:
    _update(job, status=status, finished_at=timezone.now(), **values)
    return job


# --- Reading -----------------------------------------------------------------------------------------------


def _records(job: ImportJob, index: VocabularyIndex) -> tuple[int, Iterable[Numbered | RecordError]]:
    """The number of records and the records, numbered as the errors will name them."""
    if job.format == SceneFormat.COCO:
        with job.file.open("rb") as handle:
            document, unreadable = coco_parse(handle.read(), settings.JSON_MAX_DEPTH)
        if unreadable is not None:
            return 0, [unreadable]
        records, errors = coco_records(document, index.core.type_index)
        return len(records), [*errors, *records]
    with job.file.open("rb") as handle:
        total = sum(1 for line in handle if line.strip())
    return total, _jsonl_lines(job)


def _jsonl_lines(job: ImportJob) -> Iterator[Numbered | RecordError]:
    with job.file.open("rb") as handle:
        yield from jsonl_records(handle, settings.JSON_MAX_DEPTH)


# --- Validating --------------------------------------------------------------------------------------------


def _validate(
    job: ImportJob, records: Iterable[Numbered | RecordError], index: VocabularyIndex
) -> tuple[list[Scene], list[RecordError]]:
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
            continue
        number, record = item
        try:
            too_large = record_size_error(record, *limits)
            if too_large is not None:
                raise SceneError(too_large[1], where=too_large[0])
            scene = parse_scene(record, index.core, where=f"line {number}")
            _check_against_collection(scene, sizes, seen)
        except SceneError as exc:
            errors.append(RecordError(number, _without_line(exc, number)))
        else:
            seen[scene.image] = number
            scenes.append(scene)
        done += 1
        if done % PROGRESS_EVERY == 0:
            _update(job, lines_done=done)
    _update(job, lines_done=done)
    return scenes, sorted(errors, key=lambda e: (e.line is not None, e.line or 0))


def _check_against_collection(scene: Scene, sizes: dict[str, tuple[int, int]], seen: dict[str, int]) -> None:
    if has_control_characters(scene.image):
        raise SceneError(
            "image names may not contain control characters (a NUL, a line break)", where="image"
        )
    if len(scene.image) > NAME_MAX_LENGTH:
        raise SceneError(f"image names have at most {NAME_MAX_LENGTH} characters", where="image")
    if scene.image in seen:
        raise SceneError(f"image {scene.image!r} is already on line {seen[scene.image]}", where="image")
    size = sizes.get(scene.image)
    if size is not None and size != (scene.width, scene.height):
        raise SceneError(
            f"image {scene.image!r} is {size[0]}x{size[1]} in the collection, "
            f"but this record says {scene.width}x{scene.height}",
            where="image",
        )


def _without_line(exc: SceneError, number: int) -> str:
    """`line 3.objects[0].bbox` -> `objects[0].bbox: ...`: the line number is reported beside it."""
    where = (exc.where or "").removeprefix(f"line {number}").lstrip(".")
    return f"{where}: {exc.message}" if where else exc.message


# --- Writing -------------------------------------------------------------------------------------------------


def _write(job: ImportJob, scenes: list[Scene], index: VocabularyIndex) -> tuple[int, int]:
    try:
        with transaction.atomic():
            return _write_all(job, scenes, index)
    except IntegrityError:
        raise _Abort(
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
