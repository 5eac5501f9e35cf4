"""What the steps of an import share: the job's statuses, how a failure is worded, the format a job names."""

from __future__ import annotations

from annotations.errors import AnnotationErrorCode
from datasets.formats import RecordError, SceneFormat, UnknownFormat, scene_format
from datasets.models import ImportJob
from vtt_site.errors import ApplicationError
from vtt_site.jobs import JobFailed

ERRORS_KEPT = 10_000  # refused entries listed on the job (all are counted: `entries_refused`)
Status = ImportJob.Status


def format_named(value: object) -> SceneFormat:
    """The format called `value`; an unknown one is the API's `unknown_format` (a 400 naming the known)."""
    try:
        return scene_format(value)
    except UnknownFormat as exc:
        raise ApplicationError(AnnotationErrorCode.UNKNOWN_FORMAT, exc.message, fields=exc.fields) from None


def problems(count: int) -> str:
    return f"Nothing was imported: {count} problem{'' if count == 1 else 's'}."


def failed(message: str) -> JobFailed:
    return JobFailed(message, errors=[RecordError(None, message).as_dict()])


def format_of(job: ImportJob) -> SceneFormat:
    """The job's format; one this server no longer knows (a job queued before a format was removed)
    fails the job with the message that names the known ones."""
    try:
        return scene_format(job.format)
    except UnknownFormat as exc:
        raise failed(f"{exc.message} Nothing was imported.") from None
