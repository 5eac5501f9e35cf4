"""Imports of scene graphs, in any registered format (annotations.formats), into a collection.

Two phases, in constant memory whatever the size of the file. Validation reads every record (the
format's reader turns the file into records, through the mapping file for a format with an open
vocabulary) and checks it with `kernel.scene` against the collection's vocabulary and the images
already in the collection, collecting every bad record with its place and committing progress
(`lines_done`) as it goes; the good scenes wait in a scratch file. Only when no record is bad does the
writing phase run, as one transaction of bulk inserts a chunk of scenes at a time: an import is all or
nothing.

A record whose "image" is the name of an image of the collection becomes that image's annotation; any
other record creates an image without pixels, sized as the record says. Between the two phases the
import plans what it would change (decision 0071): images created, existing images changed (those
nobody annotated yet, and accepted ones, counted apart) and unchanged (the stored annotation, read back
as a record, equals the imported one: not rewritten, its stage kept). When it would replace existing
annotations and the importer has not chosen what becomes of accepted images (`accepted`), or was asked
to preview, the job stops `previewed` holding the plan; `import_confirm` goes on with the choice,
`import_cancel` ends it. Without `AcceptedImages.REPLACE` an accepted image is left as it is and
counted as kept. The writing phase plans again under its locks and writes only what was planned (or
stops again when the collection changed meanwhile). Where the written images go: to review (a complete
source: every object of the vocabulary's types boxed, every attribute given), to accepted as well with
`mark_reviewed`, or, from a source that is not complete, to the annotation queue as drafts to complete.
The job's `report` counts what the mapping mapped, merged and dropped.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import tempfile
import uuid
from collections import abc
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import IO, Any

from django.conf import settings
from django.core.files.base import ContentFile, File
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotations.conf import conf
from annotations.errors import AnnotationErrorCode
from annotations.files import FileLimits, InflationBudget, Refused, check_image, zip_entries
from annotations.formats import (
    ReadContext,
    Reading,
    RecordError,
    SceneFormat,
    UnknownFormat,
    has_control_characters,
    record_size_error,
    scene_format,
)
from annotations.formats.mapping import Mapping, MappingInvalid, load_mapping
from annotations.formats.records import ImportReport
from annotations.models import AcceptedImages, Collection, Image, ImportJob, Split, Stage
from annotations.selectors.annotation import object_id, scene_records
from annotations.selectors.vocabularies import VocabularyIndex, vocabulary_index
from annotations.services.annotation import annotation_delete, annotation_insert, chunked
from annotations.services.images import image_pixels_attach, limits_from_settings
from kernel.errors import SceneError
from kernel.scene import Scene, parse_scene
from vtt_site.errors import ApplicationError, CommonErrorCode, ConflictError
from vtt_site.jobs import (
    JobFailed,
    job_cancel,
    job_enqueue,
    job_finish,
    job_limit_check,
    job_progress,
    job_resume,
    job_run,
    job_wait,
)

PROGRESS_EVERY = 500
ERRORS_KEPT = 10_000  # refused entries listed on the job (all are counted: `entries_refused`)
WRITE_CHUNK = 500  # scenes written per round of bulk inserts
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
    complete: bool | None = None,
    mapping: File | None = None,
    images: File | None = None,
    strict: bool = False,
    add_relationship_objects: bool = False,
    accepted: str = "",
    preview: bool = False,
    created_by: Any = None,
    start: bool = True,
) -> ImportJob:
    """Keep the uploaded file (and mapping) and queue the import (`start=False`: the caller runs
    `import_run`). `complete`: the source is complete (unset: the format's default;
    `mark_reviewed` needs a complete source). `accepted`: what becomes of accepted images the import would change (empty: stop
    and ask if it would replace existing annotations); `preview`: stop to show the plan in any case.
    An unknown format, a mapping for a format without an open vocabulary, a mapping
    with problems, or a user with too many imports waiting is refused here, before anything is stored."""
    spec = scene_format(format)
    complete = _complete(spec, complete, mark_reviewed)
    _check_accepted(accepted, allow_empty=True)
    mapping_data = _mapping_data(spec, mapping, collection)
    job_limit_check(ImportJob, user=created_by, what="imports")
    job = ImportJob(
        collection=collection,
        format=spec.value,
        split=split,
        mark_reviewed=mark_reviewed,
        complete=complete,
        strict=strict or not spec.mapped,
        add_relationship_objects=add_relationship_objects,
        accepted=accepted,
        preview=preview,
        created_by=created_by,
        original_name=os.path.basename(file.name or "")[:255],
    )
    job.file.save(f"{uuid.uuid4().hex}.{spec.extension}", file, save=False)
    if mapping_data is not None:
        job.mapping.save(f"{uuid.uuid4().hex}.mapping", ContentFile(mapping_data), save=False)
    if images is not None:
        job.images.save(f"{uuid.uuid4().hex}.zip", images, save=False)
    job.save()
    if start:
        job_enqueue(job)
    return job


@transaction.atomic
def import_confirm(*, job: ImportJob, accepted: str, user: Any = None) -> ImportJob:
    """Go on with an import that waits for a choice (`previewed`): queue it again with `accepted`,
    what becomes of the accepted images it would change. It runs from the start and writes only the
    plan that was shown; if the collection changed meanwhile it stops again with the new plan."""
    _check_accepted(accepted, allow_empty=False)
    job_limit_check(ImportJob, user=user, what="imports")
    if not job_resume(ImportJob, job.pk, waiting=Status.PREVIEWED, accepted=accepted, preview=False):
        raise _not_waiting(job, "go on")
    return ImportJob.objects.get(pk=job.pk)


@transaction.atomic
def import_cancel(*, job: ImportJob) -> ImportJob:
    """End an import that waits for a choice; nothing of it was written."""
    if not job_cancel(
        ImportJob,
        job.pk,
        waiting=Status.PREVIEWED,
        message="Cancelled after the preview: nothing was imported.",
    ):
        raise _not_waiting(job, "be cancelled")
    return ImportJob.objects.get(pk=job.pk)


def _check_accepted(accepted: str, *, allow_empty: bool) -> None:
    if accepted in AcceptedImages.values or (allow_empty and accepted == ""):
        return
    raise ApplicationError(
        CommonErrorCode.INVALID,
        f"Say what becomes of the accepted images the import would change: "
        f"{' or '.join(repr(v) for v in AcceptedImages.values)}.",
        fields={"accepted": [f"One of {', '.join(AcceptedImages.values)}."]},
    )


def _not_waiting(job: ImportJob, what: str) -> ConflictError:
    status = ImportJob.objects.filter(pk=job.pk).values_list("status", flat=True).first() or job.status
    return ConflictError(
        AnnotationErrorCode.IMPORT_NOT_WAITING,
        f"This import is {Status(status).label.lower()}, not waiting for a choice: only a previewed import "
        f"can {what}. Nothing was changed.",
    )


def _complete(spec: SceneFormat, complete: bool | None, mark_reviewed: bool) -> bool:
    """Whether the source is complete: as the importer says, else as the format says. Marking as
    reviewed needs a complete source, said so or by the format's default: accepting a partial source
    (an open vocabulary's, unless the importer says otherwise) would turn what it does not say into "no"."""
    complete = spec.complete if complete is None else complete
    if mark_reviewed and not complete:
        raise ApplicationError(
            CommonErrorCode.INVALID,
            f"Mark as reviewed needs a complete source, and this {spec.name} source is not declared "
            'complete: accepted as it is, everything it does not say would count as "no". Declare it '
            "complete if it is (every object boxed, every attribute given), or leave mark as reviewed off.",
            fields={"mark_reviewed": ["Only with a source declared complete."]},
        )
    return complete


def _mapping_data(spec: SceneFormat, mapping: File | None, collection: Collection) -> bytes | None:
    if mapping is None:
        return None
    if not spec.mapped:
        raise ApplicationError(
            CommonErrorCode.INVALID,
            f"{spec.name} names things with the vocabulary's own names: it takes no mapping file.",
            fields={"mapping": ["Only for a format with an open vocabulary."]},
        )
    data = mapping.read()
    try:
        load_mapping(data, vocabulary_index(collection.vocabulary).core, settings.JSON_MAX_DEPTH)
    except MappingInvalid as exc:
        raise ApplicationError(
            AnnotationErrorCode.MAPPING_INVALID,
            f"The mapping file has {len(exc.problems)} problem{'' if len(exc.problems) == 1 else 's'}; "
            "nothing was imported.",
            fields={"mapping": exc.messages()},
        ) from None
    return data


def import_run(*, job_id: int) -> ImportJob:
    """Run a queued import (or take over one whose worker died); once it finished, nothing changes.

    Not one transaction on purpose: validation commits its progress as it goes, and the writing phase
    is its own transaction, which also marks the job done: an import is written once or not at all.
    """
    job_run(
        ImportJob,
        job_id,
        _run,
        # Errors and the report are written once, at the end of a phase: a run that takes over keeps
        # those of the phases before (the report of an import whose pixels were being attached).
        reset={"lines_done": 0},
        unexpected=_failed("The import failed on the server (the error is logged); nothing was imported."),
    )
    return ImportJob.objects.get(pk=job_id)


def _run(job: ImportJob) -> None:
    if job.written_at is None and not _read_and_write(job):
        return  # stopped before writing, until a person chooses (decision 0071)
    if job.images:
        _attach_pixels(job)
    job_finish(job)


def _read_and_write(job: ImportJob) -> bool:
    """Validate, plan and write the scenes; False when the job stopped before writing (`previewed`)."""
    job.collection = Collection.objects.select_related("vocabulary").get(pk=job.collection_id)
    index = vocabulary_index(job.collection.vocabulary)
    spec = _format_of(job)
    report = ImportReport()
    context = ReadContext(
        vocabulary=index.core,
        max_depth=settings.JSON_MAX_DEPTH,
        mapping=_mapping_of(job, index),
        complete=job.complete,
        report=report,
        add_relationship_objects=job.add_relationship_objects,
        sizes=_sizes(job.collection),
    )
    with job.file.open("rb") as handle, tempfile.TemporaryFile() as spool:
        reading = spec.read(handle, context)
        job_progress(job, lines_total=reading.total)
        errors, good = _validate(job, spec, reading, index, context.sizes, spool)
        _refuse_if_too_bad(job, errors, good, report)
        # What a stop and the write record besides the plan: the refused entries, the mapping's report.
        values = {
            "report": report.as_list(),
            "errors": [e.as_dict() for e in errors[:ERRORS_KEPT]],
            "entries_refused": len(errors),
        }
        if _stopped(job, _planned(job, _spooled(spool), index), **values):
            return False
        job_progress(job, status=Status.WRITING)
        return _write(job, _spooled(spool), index, **values)


def _refuse_if_too_bad(job: ImportJob, errors: list[RecordError], good: int, report: ImportReport) -> None:
    """All or nothing for a strict import; otherwise the good entries go in unless the file cannot be
    read on, or more than IMPORT_MAX_REFUSED_SHARE of its entries (images read plus entries refused)
    are refused: a file that bad is more likely the wrong file than a download with a few flaws."""
    if not errors:
        return
    share = len(errors) / (good + len(errors))
    limit = conf.IMPORT_MAX_REFUSED_SHARE
    if job.strict or any(e.whole_file for e in errors) or share > limit:
        message = _problems(len(errors))
        if not job.strict and share > limit:
            message += f" {share:.0%} of the entries are refused, more than the {limit:.0%} an import allows."
        raise JobFailed(message, errors=[e.as_dict() for e in errors[:ERRORS_KEPT]], report=report.as_list())


def _mapping_of(job: ImportJob, index: VocabularyIndex) -> Mapping | None:
    if not job.mapping:
        return None
    with job.mapping.open("rb") as handle:
        data = handle.read()
    try:
        return load_mapping(data, index.core, settings.JSON_MAX_DEPTH)
    except MappingInvalid as exc:  # checked when the job was created; the vocabulary cannot change
        raise JobFailed(
            _problems(len(exc.problems)),
            errors=[RecordError(None, f"mapping: {m}").as_dict() for m in exc.messages()],
        ) from None


def _sizes(collection: Collection) -> dict[str, tuple[int, int]]:
    return {name: (w, h) for name, w, h in collection.images.values_list("original_name", "width", "height")}


def _problems(count: int) -> str:
    return f"Nothing was imported: {count} problem{'' if count == 1 else 's'}."


def _failed(message: str) -> JobFailed:
    return JobFailed(message, errors=[RecordError(None, message).as_dict()])


# --- Reading -----------------------------------------------------------------------------------------------


def _format_of(job: ImportJob) -> SceneFormat:
    """The job's format; one this server no longer knows (a job queued before a format was removed)
    fails the job with the message that names the known ones."""
    try:
        return scene_format(job.format)
    except UnknownFormat as exc:
        raise _failed(f"{exc.message} Nothing was imported.") from None


# --- Validating --------------------------------------------------------------------------------------------


def _validate(
    job: ImportJob,
    spec: SceneFormat,
    reading: Reading,
    index: VocabularyIndex,
    sizes: abc.Mapping[str, tuple[int, int]],
    spool: IO[bytes],
) -> tuple[list[RecordError], int]:
    """Every record checked; the good scenes pickled into `spool` for the writing phase; (the errors in
    the order of the file, how many records are good)."""
    limits = conf.ANNOTATION_MAX_OBJECTS, conf.ANNOTATION_MAX_RELATIONSHIPS
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


def _spooled(spool: IO[bytes]) -> Iterator[Scene]:
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


# --- Planning: what the import would change (decision 0071) -------------------------------------------------


class Change(StrEnum):
    """What an import does to one image of its file."""

    CREATE = "create"  # no image of the collection has its name
    FILL = "fill"  # an existing image nobody annotated yet (uploaded pixels): its first annotation
    REPLACE = "replace"  # an existing image's annotation, not accepted, replaced by a different one
    REPLACE_ACCEPTED = "accepted"  # the same, on an accepted image: only with AcceptedImages.REPLACE
    UNCHANGED = "unchanged"  # the stored annotation equals the imported one: not rewritten


ACCEPTED_SHOWN = 20  # names of accepted images a plan lists


@dataclass
class Plan:
    """The counts of an import's changes, and a digest of which image gets which change: two plans
    with the same digest change the same images in the same way."""

    created: int = 0
    changed: int = 0  # existing images whose annotation the import changes (the three below included)
    unannotated: int = 0  # of those, images nobody annotated yet
    accepted: int = 0  # of those, accepted images
    unchanged: int = 0
    accepted_names: list[str] = field(default_factory=list)
    _digest: Any = field(default_factory=hashlib.sha256, repr=False)

    def add(self, name: str, change: Change) -> None:
        self._digest.update(f"{change}\0{name}\n".encode())
        if change is Change.CREATE:
            self.created += 1
        elif change is Change.UNCHANGED:
            self.unchanged += 1
        else:
            self.changed += 1
            self.unannotated += change is Change.FILL
            if change is Change.REPLACE_ACCEPTED:
                self.accepted += 1
                if len(self.accepted_names) < ACCEPTED_SHOWN:
                    self.accepted_names.append(name)

    @property
    def overwrites(self) -> int:
        """Existing annotations the import would replace: what a person must see before it does."""
        return self.changed - self.unannotated

    @property
    def digest(self) -> str:
        return self._digest.hexdigest()

    def as_dict(self) -> dict[str, Any]:
        return {
            "created": self.created,
            "changed": self.changed,
            "unannotated": self.unannotated,
            "accepted": self.accepted,
            "unchanged": self.unchanged,
            "accepted_names": self.accepted_names,
            "digest": self.digest,
        }


def _planned(job: ImportJob, scenes: Iterable[Scene], index: VocabularyIndex) -> Plan:
    """What writing `scenes` would change now; reads only (the writing phase checks it again under
    its locks, in case the collection changes meanwhile)."""
    existing = _existing(job)
    plan = Plan()
    for chunk in _chunks(scenes):
        for scene, (change, _) in zip(chunk, _changes(chunk, existing, index), strict=True):
            plan.add(scene.image, change)
    return plan


def _stopped(job: ImportJob, plan: Plan, **values: Any) -> bool:
    """Stop the job, holding `plan` (and `values`: the refused entries, the mapping's report) for a
    person to see, when it may not go on to write it."""
    message = _why_stop(job, plan)
    if message is None:
        return False
    job_wait(job, Status.PREVIEWED, message, plan=plan.as_dict(), accepted="", progress=1.0, **values)
    return True


def _why_stop(job: ImportJob, plan: Plan) -> str | None:
    """The message of a stop before writing `plan`, or None to write it. The import stops when asked
    to preview, when it would replace existing annotations and nobody chose what becomes of accepted
    images, and when the plan differs from the one a person went on from (the collection changed)."""
    nothing = "Nothing has been imported yet."
    if job.preview:
        return f"Preview: this is what the import would do. {nothing} Go on, or cancel."
    if job.accepted:
        if job.plan and job.plan.get("digest") != plan.digest:
            return (
                "The collection changed since the preview (annotations were saved, reviewed or added "
                f"meanwhile): this is what the import would do now. {nothing} Choose again, or cancel."
            )
        return None
    if plan.overwrites:
        accepted = f", {plan.accepted} of them accepted" if plan.accepted else ""
        return (
            f"This import would replace the annotations of {plan.overwrites} existing "
            f"image{'' if plan.overwrites == 1 else 's'}{accepted}. {nothing} Go on, or cancel."
        )
    return None


def _existing(job: ImportJob) -> dict[str, int]:
    return dict(job.collection.images.values_list("original_name", "id"))


def _chunks(scenes: Iterable[Scene]) -> Iterator[list[Scene]]:
    chunk: list[Scene] = []
    for scene in scenes:
        chunk.append(scene)
        if len(chunk) == WRITE_CHUNK:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _changes(
    scenes: list[Scene], existing: abc.Mapping[str, int], index: VocabularyIndex, *, lock: bool = False
) -> list[tuple[Change, Image | None]]:
    """What the import does to each image of a chunk, with the existing image it changes. The stored
    annotation is read back through the selector of records (`scene_records`) and compared with the
    record the imported scene would read back as, so that every field a record carries is compared.
    `lock`: the existing images stay locked until the transaction ends (the writing phase)."""
    rows = Image.objects.filter(pk__in=[existing[s.image] for s in scenes if s.image in existing])
    if lock:
        rows = rows.select_for_update(of=("self",)).order_by("pk")
    images = {image.original_name: image for image in rows}
    stored = {
        record["image"]: record
        for record in scene_records(images=[i for i in images.values() if i.annotated_at], index=index)
    }
    changes: list[tuple[Change, Image | None]] = []
    for scene in scenes:
        image = images.get(scene.image)
        if image is None:
            changes.append((Change.CREATE, None))
        elif image.annotated_at is None:
            changes.append((Change.FILL, image))
        elif stored[scene.image] == _as_stored(scene, index):
            changes.append((Change.UNCHANGED, image))
        elif image.stage == Stage.ACCEPTED:
            changes.append((Change.REPLACE_ACCEPTED, image))
        else:
            changes.append((Change.REPLACE, image))
    return changes


def _as_stored(scene: Scene, index: VocabularyIndex) -> dict[str, Any]:
    """The record `scene` reads back as once stored: its objects named o1..oN in their order."""
    document = scene.to_document(index.core)
    renamed = {obj["id"]: object_id(position) for position, obj in enumerate(document["objects"])}
    for obj in document["objects"]:
        obj["id"] = renamed[obj["id"]]
    for link in document["relationships"]:
        link["subject"], link["object"] = renamed[link["subject"]], renamed[link["object"]]
    return document


# --- Writing -------------------------------------------------------------------------------------------------


class _PlanChanged(Exception):
    """The collection changed between the plan and the write: roll the write back and stop again."""

    def __init__(self, plan: Plan) -> None:
        super().__init__()
        self.plan = plan


def _write(job: ImportJob, scenes: Iterable[Scene], index: VocabularyIndex, **values: Any) -> bool:
    """One transaction: the images, their annotations and the job marked written (with `values` and the
    counts of what was written), or nothing. The plan is made again under the write's locks: when it
    would now need a person's choice (the collection changed since it was planned), nothing is written
    and the job stops with it (False)."""
    try:
        with transaction.atomic():
            plan = _write_all(job, scenes, index)
            if _why_stop(job, plan) is not None:
                raise _PlanChanged(plan)
            kept = plan.accepted if job.accepted != AcceptedImages.REPLACE else 0
            job_progress(
                job,
                status=Status.ATTACHING if job.images else Status.WRITING,
                written_at=timezone.now(),
                images_created=plan.created,
                images_updated=plan.changed - kept,
                images_unchanged=plan.unchanged,
                images_kept=kept,
                plan=plan.as_dict(),
                **values,
            )
    except _PlanChanged as changed:
        _stopped(job, changed.plan, **values)
        return False
    except IntegrityError:
        raise _failed(
            "Images were added to the collection while this import ran, under names it uses; "
            "nothing was imported. Run the import again."
        ) from None
    return True


def _write_all(job: ImportJob, scenes: Iterable[Scene], index: VocabularyIndex) -> Plan:
    """A chunk of scenes at a time (memory stays flat), all in the caller's transaction; the plan of
    what was written."""
    existing = _existing(job)
    state = _imported_state(job, timezone.now())
    plan = Plan()
    for chunk in _chunks(scenes):
        _write_chunk(job, chunk, existing, state, index, plan)
    return plan


def _write_chunk(
    job: ImportJob,
    scenes: list[Scene],
    existing: dict[str, int],
    state: dict[str, Any],
    index: VocabularyIndex,
    plan: Plan,
) -> None:
    """Create the new images, replace the annotations that change (an accepted image's only with
    `AcceptedImages.REPLACE`), leave the others as they are; each image's change added to `plan`."""
    changes = _changes(scenes, existing, index, lock=True)
    replace_accepted = job.accepted == AcceptedImages.REPLACE
    new: list[Image] = []
    replaced: list[int] = []
    identified: list[tuple[int, str]] = []  # replaced images and their ids in the source
    written: list[tuple[Scene, Image]] = []
    for scene, (change, image) in zip(scenes, changes, strict=True):
        plan.add(scene.image, change)
        if image is None:  # Change.CREATE
            image = Image(
                collection=job.collection,
                original_name=scene.image,
                source_id=scene.source_id,
                width=scene.width,
                height=scene.height,
                split=job.split,
                uploaded_by=job.created_by,
                **state,
            )
            new.append(image)
        elif change is Change.UNCHANGED or (change is Change.REPLACE_ACCEPTED and not replace_accepted):
            continue
        else:
            replaced.append(image.pk)
            if scene.source_id:
                identified.append((image.pk, scene.source_id))
        written.append((scene, image))
    Image.objects.bulk_create(new, batch_size=2000)
    for ids in chunked(replaced):
        Image.objects.filter(pk__in=ids).update(**state)
    for pk, source_id in identified:
        Image.objects.filter(pk=pk).update(source_id=source_id)
    annotation_delete(image_ids=replaced)
    annotation_insert(
        images=[image for _, image in written], scenes=[scene for scene, _ in written], index=index
    )


def _imported_state(job: ImportJob, now) -> dict[str, Any]:
    """Where imported images go: to accepted for a reviewed dataset, to review for a complete source,
    else to the annotation queue as drafts to complete. Nobody on the platform annotated them, so any
    annotator may complete them and any reviewer may review them."""
    stage = Stage.ACCEPTED if job.mark_reviewed else Stage.REVIEW if job.complete else Stage.ANNOTATE
    return {
        "stage": stage,
        "annotator": None,
        "annotated_at": now,
        "lease_holder": None,
        "lease_expires_at": None,
        "returned": False,
        "review_comment": "",
        "reviewed_by": job.created_by if job.mark_reviewed else None,
        "reviewed_at": now if job.mark_reviewed else None,
    }


# --- Attaching the pixels ------------------------------------------------------------------------------------


def _attach_pixels(job: ImportJob) -> None:
    """Give the collection's images that have no pixels those of the images archive, matched by file
    name (`2370799.jpg`), else by the image's id in its source (`2370799.png`). Image by image, each in
    its own transaction: a run that takes over goes on where this one stopped (an image with pixels is
    not matched again). Every file that matched nothing, or whose pixels were refused, is reported."""
    collection = job.collection
    waiting = dict(collection.images.filter(file="").values_list("original_name", "id"))
    by_id = dict(collection.images.filter(file="").exclude(source_id="").values_list("source_id", "id"))
    by_stem = {os.path.splitext(name)[0]: pk for name, pk in waiting.items()}
    done = set(collection.images.exclude(file="").values_list("original_name", flat=True))
    report = ImportReport()
    attached = 0
    limits = import_image_limits()
    with job.images.open("rb") as handle:
        for number, (entry, payload) in enumerate(
            zip_entries(handle, limits, limits.files, InflationBudget(limits.zip_bytes)), start=1
        ):
            name = os.path.basename(entry or job.images.name)
            stem = os.path.splitext(name)[0]
            pk = waiting.get(name) or by_id.get(stem) or by_stem.get(stem)
            if isinstance(payload, Refused) and not entry:
                raise _failed(f"The images archive cannot be read: {payload.message}")
            if pk is None:
                why = "images that have pixels already" if name in done else "files that match no image"
                report.add(f"pixels: {why}", name)
                continue
            try:
                if isinstance(payload, Refused):
                    raise payload
                image_pixels_attach(image=Image.objects.get(pk=pk), checked=check_image(payload, limits))
            except Refused as refused:
                report.add("pixels: files refused", f"{name}: {refused.message}")
                continue
            attached += 1
            report.add("pixels: attached", "images")
            if number % PROGRESS_EVERY == 0:
                job_progress(job, pixels_attached=job.pixels_attached + attached)
                attached = 0
    missing = collection.images.filter(file="").values_list("original_name", flat=True)
    for name in missing.iterator():
        report.add("pixels: images still without pixels", name)
    job_progress(job, pixels_attached=job.pixels_attached + attached, report=[*job.report, *report.as_list()])


def import_image_limits() -> FileLimits:
    """An import's images archive holds a download's images (Visual Genome: 108,077, 15 GB): each image
    is checked as an upload is, but the archive is not held to an upload's count and size."""
    limits = limits_from_settings()
    return FileLimits(
        image_bytes=limits.image_bytes,
        pixels=limits.pixels,
        zip_bytes=conf.IMPORT_IMAGES_MAX_BYTES,
        files=conf.IMPORT_IMAGES_MAX_FILES,
    )
