"""Running an import of scene graphs, in any registered format (datasets.formats), into a collection.

Three phases, in constant memory whatever the size of the file: validation (`validation.py`) reads and
checks every record; the plan (`plan.py`) says what the import would change and stops it for a person's
choice when it would replace existing annotations (decision 0071); the writing phase (`writing.py`) is
one transaction of bulk inserts, a chunk of scenes at a time, that writes the plan or nothing. An import
that came with an images archive then gives its images their pixels (`pixels.py`). A record whose
"image" is the name of an image of the collection becomes that image's annotation; any other record
creates an image without pixels, sized as the record says. The job's `report` counts what the mapping
mapped, merged and dropped.
"""

from __future__ import annotations

import tempfile

from django.conf import settings

from annotations.models import Collection
from annotations.selectors.vocabularies import vocabulary_index
from datasets.formats import ReadContext
from datasets.formats.records import ImportReport
from datasets.models import ImportJob
from datasets.services.common import ERRORS_KEPT, Status, failed, format_of
from datasets.services.pixels import attach_pixels
from datasets.services.plan import planned, stopped
from datasets.services.validation import mapping_of, refuse_if_too_bad, sizes_of, spooled, validate
from datasets.services.writing import write
from vtt_site.jobs import job_finish, job_progress, job_run


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
        unexpected=failed("The import failed on the server (the error is logged); nothing was imported."),
    )
    return ImportJob.objects.get(pk=job_id)


def _run(job: ImportJob) -> None:
    if job.written_at is None and not _read_and_write(job):
        return  # stopped before writing, until a person chooses (decision 0071)
    if job.images:
        attach_pixels(job)
    job_finish(job)


def _read_and_write(job: ImportJob) -> bool:
    """Validate, plan and write the scenes; False when the job stopped before writing (`previewed`)."""
    job.collection = Collection.objects.select_related("vocabulary").get(pk=job.collection_id)
    index = vocabulary_index(job.collection.vocabulary)
    spec = format_of(job)
    report = ImportReport()
    context = ReadContext(
        vocabulary=index.core,
        max_depth=settings.JSON_MAX_DEPTH,
        mapping=mapping_of(job, index),
        complete=job.complete,
        report=report,
        add_relationship_objects=job.add_relationship_objects,
        sizes=sizes_of(job.collection),
    )
    with job.file.open("rb") as handle, tempfile.TemporaryFile() as spool:
        reading = spec.read(handle, context)
        job_progress(job, lines_total=reading.total)
        errors, good = validate(job, spec, reading, index, context.sizes, spool)
        refuse_if_too_bad(job, errors, good, report)
        # What a stop and the write record besides the plan: the refused entries, the mapping's report.
        values = {
            "report": report.as_list(),
            "errors": [e.as_dict() for e in errors[:ERRORS_KEPT]],
            "entries_refused": len(errors),
        }
        if stopped(job, planned(job, spooled(spool), index), **values):
            return False
        job_progress(job, status=Status.WRITING)
        return write(job, spooled(spool), index, **values)
