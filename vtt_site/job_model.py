"""A background job's row: its status and lifecycle, declared once for every job of every app.

The lifecycle (`JobStatus`): a job is created **queued**; a claim makes it **running** while a worker
holds it (`vtt_site.jobs.job_run`), and the run settles it **done** or **failed**. A job whose work
needs a person's choice may stop in a **waiting** status of its own (`job_wait`), from which it is
queued again (`job_resume`) or **cancelled** (`job_cancel`). A settled job is run again only from the
start (`job_restart`). Done, failed and cancelled are final for a run: nothing of the mechanism moves a
job out of them.

What a job model may say in its own words, and nothing more: the name of its running status (an audit
is `auditing`, a deal `dealing`, and a run that has steps a person can follow names each: an import is
`validating`, then `writing`), with `job_status_field`; a job with statuses beyond the lifecycle (an
import's `previewed`, a fit that waits for its shards and is `ready` when done) declares its own
choices, which hold the lifecycle's values (`tests/vtt_site/test_jobs_lifecycle.py`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import ClassVar

from django.conf import settings
from django.db import models
from django.utils import timezone

from vtt_site.queueing import TaskName

STATUS_MAX_LENGTH = 12


class JobStatus(models.TextChoices):
    """The statuses of a job's lifecycle (the module's docstring)."""

    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"
    CANCELLED = "cancelled"  # by a person, while it waited for them (`job_cancel`)


def job_status_choices(
    running: Iterable[str] = (JobStatus.RUNNING,), waiting: Iterable[tuple[str, str]] = ()
) -> list[tuple[str, str]]:
    """The lifecycle's choices, with the job's own running statuses (and waiting ones, value and label)."""
    running_choices = [(status, status.capitalize()) for status in running]
    return [
        (JobStatus.QUEUED.value, JobStatus.QUEUED.label),
        *running_choices,
        *waiting,
        *((status.value, status.label) for status in (JobStatus.DONE, JobStatus.FAILED, JobStatus.CANCELLED)),
    ]


def job_status_field(running: Iterable[str], waiting: Iterable[tuple[str, str]] = ()) -> models.CharField:
    """The `status` of a job whose running statuses have names of their own (the first: a claim's)."""
    return models.CharField(
        max_length=STATUS_MAX_LENGTH,
        choices=job_status_choices(running, waiting),
        default=JobStatus.QUEUED,
    )


class Job(models.Model):
    """What every background job records. A concrete job names its task, and its running statuses when
    they are not the lifecycle's `running` (then with a `status = job_status_field(...)` of its own)."""

    # The statuses while a worker holds the job (the first is the one a claim sets), and the final one.
    running_statuses: ClassVar[tuple[str, ...]] = (JobStatus.RUNNING,)
    done_status: ClassVar[str] = JobStatus.DONE
    # The Celery task that runs the job, called with the row's id.
    task: ClassVar[TaskName]  # the task that runs it (vtt_site.queueing)

    status = models.CharField(
        max_length=STATUS_MAX_LENGTH, choices=JobStatus.choices, default=JobStatus.QUEUED
    )
    progress = models.FloatField(default=0.0, help_text="From 0 to 1.")
    message = models.TextField(blank=True, help_text="For a person: why it failed, or what it waits for.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    enqueued_at = models.DateTimeField(
        null=True, blank=True, help_text="When its task last reached the broker; empty: not yet."
    )
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(
        null=True, blank=True, help_text="Refreshed by the running worker; stale: the worker died."
    )
    finished_at = models.DateTimeField(null=True, blank=True)
    claim = models.UUIDField(null=True, blank=True, editable=False, help_text="The holder's token.")
    claimed_by = models.CharField(max_length=100, blank=True, help_text="host:pid of the last holder.")
    attempts = models.PositiveSmallIntegerField(default=0, help_text="How many runs claimed it.")

    class Meta:
        abstract = True
        ordering = ["-created_at", "-id"]

    @property
    def running(self) -> bool:
        return self.status in self.running_statuses

    @property
    def unfinished(self) -> bool:
        """Queued or running: a worker has it, or will."""
        return self.status == JobStatus.QUEUED or self.running

    @classmethod
    def unfinished_rows(cls) -> models.Q:
        """The filter of the jobs of this model that are queued or running."""
        return models.Q(status=JobStatus.QUEUED) | models.Q(status__in=cls.running_statuses)

    @classmethod
    def settled_statuses(cls) -> tuple[str, ...]:
        """The statuses a run ends in: done, failed, cancelled."""
        return (cls.done_status, JobStatus.FAILED, JobStatus.CANCELLED)
