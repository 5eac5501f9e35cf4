"""Fitted statistics: one row per fit, with the exact training set, the settings and the file.

The arrays themselves live in one file of the platform's storage, `engine/<file_name>` (vtt_site/storage.py,
engine.files; the format: engine.core.statistics);
the row says what went into it and how it went.
"""

from __future__ import annotations

from django.db import models

from engine.queues import FIT_SHARD, FIT_STATISTICS
from vtt_site.job_model import Job, job_status_field

STATISTICS_FOLDER = "engine"


class FitStatus(models.TextChoices):
    QUEUED = "queued"
    FITTING = "fitting"
    # A fit over more than ENGINE_FIT_SHARD_IMAGES images is split into shards fitted by workers side by
    # side; the fit waits for them, and the last one to settle queues it again to merge them.
    WAITING = "waiting", "waiting for its shards"
    READY = "ready"
    FAILED = "failed"


class FittedStatistics(Job):
    """Progress: the fraction of the training images read so far."""

    running_statuses = (FitStatus.FITTING,)
    done_status = FitStatus.READY
    task = FIT_STATISTICS

    vocabulary = models.ForeignKey("annotations.Vocabulary", on_delete=models.PROTECT, related_name="+")
    collections = models.ManyToManyField("annotations.Collection", related_name="fitted_statistics")
    # The exact training set: the reviewed train images of the collections when the fit was asked for.
    training_images = models.ManyToManyField("annotations.Image", related_name="fitted_statistics")
    # Fitting settings (the region overlap). Proposing settings belong to a test (engine.settings).
    settings = models.JSONField(default=dict)
    status = models.CharField(max_length=10, choices=FitStatus.choices, default=FitStatus.QUEUED)
    n_images = models.PositiveIntegerField(default=0)
    n_objects = models.PositiveIntegerField(default=0)
    n_pairs = models.PositiveBigIntegerField(default=0)
    summary = models.JSONField(default=dict, blank=True)
    file_name = models.CharField(max_length=200, blank=True, help_text="In the storage's engine/ folder.")
    file_size = models.PositiveBigIntegerField(default=0)
    fit_seconds = models.FloatField(null=True, blank=True)

    class Meta(Job.Meta):
        verbose_name = "fitted statistics"
        verbose_name_plural = "fitted statistics"

    def __str__(self) -> str:
        return f"statistics {self.pk} ({self.status}, {self.n_images} images)"

    @property
    def storage_name(self) -> str | None:
        return f"{STATISTICS_FOLDER}/{self.file_name}" if self.file_name else None


class FitShard(Job):
    """One shard of a large fit: the training images `first` to `last` (excluded) of the fit's image ids
    in id order. Its file is merged into the fit's (engine.core.shards.merge) and then removed."""

    running_statuses = ("fitting",)
    task = FIT_SHARD

    statistics = models.ForeignKey(FittedStatistics, on_delete=models.CASCADE, related_name="shards")
    index = models.PositiveSmallIntegerField()
    first = models.PositiveIntegerField()
    last = models.PositiveIntegerField()
    status = job_status_field(running_statuses)
    file_name = models.CharField(max_length=200, blank=True, help_text="In the storage's engine/ folder.")

    class Meta(Job.Meta):
        ordering = ["statistics", "index"]
        constraints = [models.UniqueConstraint(fields=["statistics", "index"], name="unique_fit_shard")]

    def __str__(self) -> str:
        return f"shard {self.index} of statistics {self.statistics_id} ({self.status})"

    @property
    def storage_name(self) -> str | None:
        return f"{STATISTICS_FOLDER}/{self.file_name}" if self.file_name else None
