"""Suggestions from a model: a collection's model server and the boxes it proposed (decision 0078).

A model server speaks Label Studio's ML backend protocol (`annotations.suggestions`). What it answers is
stored here as `Prediction` rows, apart from the annotation: a prediction becomes part of an image's
annotation only when an annotator saves an object that names it (`ObjectAnnotation.suggestion`), and part
of the training set only when a reviewer accepts that image. Nothing here is read by the engine.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone

from annotations.models.collections import Collection, Image
from annotations.models.vocabularies import ObjectType
from annotations.queues import PREANNOTATE_RUN
from vtt_site.job_model import Job


class BackendAuth(models.TextChoices):
    NONE = "none", "none"
    BASIC = "basic", "basic (user name and password)"
    HEADER = "header", "a header (name and value)"


class ModelBackend(models.Model):
    """The model server a collection's suggestions come from; set by a reviewer of the collection or an
    admin. The credential (`secret`, a password or a header's value) is stored encrypted
    (`annotations.suggestions.secrets`), never returned by the API, shown by a page or logged."""

    collection = models.OneToOneField(Collection, on_delete=models.CASCADE, related_name="model_backend")
    url = models.URLField(max_length=500, help_text="The ML backend's base URL (it answers /health).")
    auth = models.CharField(max_length=8, choices=BackendAuth.choices, default=BackendAuth.NONE)
    username = models.CharField(max_length=200, blank=True, help_text="For basic authentication.")
    header_name = models.CharField(max_length=100, blank=True, help_text="For header authentication.")
    # Encrypted; blank when there is none. Write it through the service, never directly.
    secret = models.TextField(blank=True)
    enabled = models.BooleanField(default=True)
    # What the server said about itself at its last /setup (Label Studio's `model_version`).
    model_version = models.CharField(max_length=200, blank=True)
    # The last contact: when, and what went wrong (blank: it answered well).
    checked_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["collection"]

    def __str__(self) -> str:
        return f"model server of {self.collection}"


class PredictionStatus(models.TextChoices):
    PENDING = "pending"
    ACCEPTED = "accepted"  # an object of the image's annotation names it
    REJECTED = "rejected"


class Prediction(models.Model):
    """One box a model proposed for an image, in the collection's vocabulary, clipped to the image."""

    image = models.ForeignKey(Image, on_delete=models.CASCADE, related_name="predictions")
    model_version = models.CharField(max_length=200, blank=True)
    object_type = models.ForeignKey(ObjectType, on_delete=models.PROTECT, related_name="+")
    # Pixels, as ObjectAnnotation's.
    x = models.FloatField()
    y = models.FloatField()
    w = models.FloatField()
    h = models.FloatField()
    # Attribute value names the model gave, in the vocabulary's order; at most one per exclusive group.
    attributes = models.JSONField(default=list, blank=True)
    score = models.FloatField(null=True, blank=True)
    status = models.CharField(
        max_length=10, choices=PredictionStatus.choices, default=PredictionStatus.PENDING
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["image", "-score", "id"]
        indexes = [models.Index(fields=["image", "status"], name="prediction_image_status")]

    def __str__(self) -> str:
        return f"{self.object_type_id} suggested for image {self.image_id} ({self.status})"


class PreannotationJob(Job):
    """A model's suggestions for every image of a collection still to annotate (decision 0078).

    Progress: the share of those images asked. Each image's suggestions are written in a transaction of
    their own, so an image that failed (its reason in `failures`) leaves the others' suggestions, and
    its own earlier ones, as they were."""

    task = PREANNOTATE_RUN

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="preannotations")
    images_total = models.PositiveIntegerField(default=0)
    images_done = models.PositiveIntegerField(default=0, help_text="Images asked so far, failed or not.")
    images_failed = models.PositiveIntegerField(default=0)
    boxes = models.PositiveIntegerField(default=0, help_text="Suggestions written.")
    regions_refused = models.PositiveIntegerField(
        default=0, help_text="Regions of the answers refused (an unknown label, a box outside the image...)."
    )
    failures = models.JSONField(
        default=list, blank=True, help_text="Every image that failed: {image, name, reason}."
    )

    class Meta(Job.Meta):
        pass

    def __str__(self) -> str:
        return f"pre-annotation {self.pk} of {self.collection} ({self.status})"
