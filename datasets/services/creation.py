"""Asking for an import, and the person's choice when it stops to show its plan (decision 0071).

`import_create` keeps the uploaded file (and mapping, and images archive) and queues the job;
`import_confirm` goes on with a previewed import, `import_cancel` ends it. What is refused here (an
unknown format, a mapping for a format without an open vocabulary, a mapping with problems, a user with
too many imports waiting) is refused before anything is stored. The run itself: `datasets.services.run`.
"""

from __future__ import annotations

import os
import uuid
from typing import Any

from django.conf import settings
from django.core.files.base import ContentFile, File
from django.db import transaction

from annotations.errors import AnnotationErrorCode
from annotations.models import Collection, Split
from annotations.selectors.vocabularies import vocabulary_index
from datasets.formats import SceneFormat
from datasets.formats.mapping import MappingInvalid, load_mapping
from datasets.models import AcceptedImages, ImportJob
from datasets.services.common import Status, format_named
from vtt_site.errors import ApplicationError, CommonErrorCode, ConflictError
from vtt_site.jobs import job_cancel, job_enqueue, job_limit_check, job_resume


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
    spec = format_named(format)
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
