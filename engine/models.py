"""Fitted statistics: one row per fit, with the exact training set, the settings and the file.

The arrays themselves live in one file under settings.VTT["ENGINE_DIR"] (see engine.core.statistics);
the row says what went into it and how it went.
"""

from __future__ import annotations

from pathlib import Path

from django.conf import settings as django_settings
from django.db import models

from vtt_site.jobs import Job


class FitStatus(models.TextChoices):
    QUEUED = "queued"
    FITTING = "fitting"
    READY = "ready"
    FAILED = "failed"


class FittedStatistics(Job):
    """Progress: the fraction of the training images read so far."""

    running_statuses = (FitStatus.FITTING,)
    done_status = FitStatus.READY
    task_name = "engine.fit_statistics"

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
    file_name = models.CharField(max_length=200, blank=True, help_text="Inside ENGINE_DIR.")
    file_size = models.PositiveBigIntegerField(default=0)
    fit_seconds = models.FloatField(null=True, blank=True)

    class Meta(Job.Meta):
        verbose_name = "fitted statistics"
        verbose_name_plural = "fitted statistics"

    def __str__(self) -> str:
        return f"statistics {self.pk} ({self.status}, {self.n_images} images)"

    @property
    def path(self) -> Path | None:
        return Path(django_settings.VTT["ENGINE_DIR"]) / self.file_name if self.file_name else None
