"""The first phase of an import: every record read and checked, in constant memory.

The format's reader turns the file into records (through the mapping file for a format with an open
vocabulary); each is checked with `kernel.scene` against the collection's vocabulary and the images
already in the collection, every bad record is collected with its place, and progress (`lines_done`) is
committed as it goes. The good scenes wait in a scratch file (`spooled`) for the plan and the write.
"""

from __future__ import annotations

import pickle
from collections import abc
from collections.abc import Iterator
from typing import IO

from django.conf import settings

from annotations.conf import conf as annotation_conf
from annotations.models import Collection
from annotations.selectors.vocabularies import VocabularyIndex
from datasets.conf import conf
from datasets.formats import Reading, RecordError, SceneFormat, record_size_error
from datasets.formats.mapping import Mapping, MappingInvalid, load_mapping
from datasets.formats.records import ImportReport
from datasets.models import ImportJob
from datasets.services.common import ERRORS_KEPT, problems
from kernel.errors import SceneError
from kernel.scene import Scene, parse_scene
from kernel.text import has_control_characters
from vtt_site.jobs import JobFailed, job_progress

PROGRESS_EVERY = 500  # records validated between two commits of the progress
NAME_MAX_LENGTH = 255


def refuse_if_too_bad(job: ImportJob, errors: list[RecordError], good: int, report: ImportReport) -> None:
    """All or nothing for a strict import; otherwise the good entries go in unless the file cannot be
    read on, or more than IMPORT_MAX_REFUSED_SHARE of its entries (images read plus entries refused)
    are refused: a file that bad is more likely the wrong file than a download with a few flaws."""
    if not errors:
        return
    share = len(errors) / (good + len(errors))
    limit = conf.IMPORT_MAX_REFUSED_SHARE
    if job.strict or any(e.whole_file for e in errors) or share > limit:
        message = problems(len(errors))
        if not job.strict and share > limit:
            message += f" {share:.0%} of the entries are refused, more than the {limit:.0%} an import allows."
        raise JobFailed(message, errors=[e.as_dict() for e in errors[:ERRORS_KEPT]], report=report.as_list())


def mapping_of(job: ImportJob, index: VocabularyIndex) -> Mapping | None:
    if not job.mapping:
        return None
    with job.mapping.open("rb") as handle:
        data = handle.read()
    try:
        return load_mapping(data, index.core, settings.JSON_MAX_DEPTH)
    except MappingInvalid as exc:  # checked when the job was created; the vocabulary cannot change
        raise JobFailed(
            problems(len(exc.problems)),
            errors=[RecordError(None, f"mapping: {m}").as_dict() for m in exc.messages()],
        ) from None


def sizes_of(collection: Collection) -> dict[str, tuple[int, int]]:
    return {name: (w, h) for name, w, h in collection.images.values_list("original_name", "width", "height")}


def validate(
    job: ImportJob,
    spec: SceneFormat,
    reading: Reading,
    index: VocabularyIndex,
    sizes: abc.Mapping[str, tuple[int, int]],
    spool: IO[bytes],
) -> tuple[list[RecordError], int]:
    """Every record checked; the good scenes pickled into `spool` for the writing phase; (the errors in
    the order of the file, how many records are good)."""
    limits = annotation_conf.ANNOTATION_MAX_OBJECTS, annotation_conf.ANNOTATION_MAX_RELATIONSHIPS
    seen: dict[str, str] = {}  # image name -> the place of its record
    errors: list[RecordError] = []
    done = good = 0
    for item in reading.items:
        if isinstance(item, RecordError):
            errors.append(item)
            if item.line is None:
                continue  # the file, or an entry that is not a record (a COCO category or annotation)
        else:
            try:
                too_large = record_size_error(item.data, *limits)
                if too_large is not None:
                    raise SceneError(too_large[1], where=f"{item.place}.{too_large[0]}")
                scene = parse_scene(item.data, index.core, where=item.place)
                _check_against_collection(scene, sizes, seen)
            except SceneError as exc:
                message = _without_place(exc, item.place)
                errors.append(
                    RecordError(item.number, message)
                    if spec.line_numbers
                    else RecordError(None, f"{item.place}: {message}")
                )
            else:
                seen[scene.image] = item.place
                good += 1
                if not (errors and job.strict):  # a strict import with a bad record writes nothing
                    pickle.dump(scene, spool, protocol=pickle.HIGHEST_PROTOCOL)
        done += 1
        if done % PROGRESS_EVERY == 0:
            job_progress(job, lines_done=done, progress=done / max(job.lines_total, 1))
    # Every record has been checked, those that could not be read at all included.
    job_progress(job, lines_done=reading.total, progress=1.0 if reading.total else 0.0)
    return sorted(errors, key=lambda e: (e.line is not None, e.line or 0)), good


def spooled(spool: IO[bytes]) -> Iterator[Scene]:
    """The validated scenes back from the scratch file (written by this run: trusted)."""
    spool.seek(0)
    while True:
        try:
            yield pickle.load(spool)
        except EOFError:
            return


def _check_against_collection(
    scene: Scene, sizes: abc.Mapping[str, tuple[int, int]], seen: dict[str, str]
) -> None:
    if has_control_characters(scene.image):
        raise SceneError(
            "image names may not contain control characters (a NUL, a line break)", where="image"
        )
    if len(scene.image) > NAME_MAX_LENGTH:
        raise SceneError(f"image names have at most {NAME_MAX_LENGTH} characters", where="image")
    if scene.image in seen:
        raise SceneError(f"image {scene.image!r} is already at {seen[scene.image]}", where="image")
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
