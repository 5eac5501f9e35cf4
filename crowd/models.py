"""The crowd's rows: a collection's crowd settings, each annotator's own copy of an image, the merge of an
image's copies, the gold images and the scores of the work done on them, and the pauses of annotators.

A copy is its annotator's alone: it is a scene-graph document in this app's table, not rows of
`annotations`, so nobody else (no page, no API, no export, no fit) reads it until the merge of the
image's copies is accepted and written as the image's annotation (`annotations.services.decided`).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from annotations.models import Collection, Image
from vtt_site.leases import Leased

OVERLAP_MAX = 5


class CrowdSettings(models.Model):
    """A collection's crowd settings; no row, or an overlap of 1, is today's flow exactly."""

    collection = models.OneToOneField(Collection, on_delete=models.CASCADE, related_name="crowd_settings")
    overlap = models.PositiveSmallIntegerField(default=1, help_text="Annotators per image, 1 to 5.")
    iou_threshold = models.FloatField(default=0.5, help_text="Two boxes match above this IoU (0 to 1).")
    agreement_threshold = models.FloatField(
        default=0.8,
        help_text="An image whose lowest agreement figure (box F1, attributes, relationships) is below this "
        "goes to a reviewer.",
    )
    auto_accept = models.BooleanField(
        default=False, help_text="Accept the merge without review when the agreement reaches the threshold."
    )
    gold_rate = models.FloatField(default=0.05, help_text="The share of hand-outs that are gold images.")
    pause_threshold = models.FloatField(
        default=0.6,
        help_text="An annotator whose gold accuracy is surely below this (the top of its 95% interval) is paused.",
    )
    min_gold = models.PositiveSmallIntegerField(
        default=5, help_text="Gold images an annotator has done before the pause rule applies."
    )
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "crowd settings"
        constraints = [
            models.CheckConstraint(
                condition=Q(overlap__gte=1, overlap__lte=OVERLAP_MAX), name="overlap_1_to_5"
            ),
            models.CheckConstraint(condition=Q(iou_threshold__gt=0, iou_threshold__lte=1), name="iou_0_to_1"),
            models.CheckConstraint(
                condition=Q(agreement_threshold__gte=0, agreement_threshold__lte=1), name="agreement_0_to_1"
            ),
            models.CheckConstraint(condition=Q(gold_rate__gte=0, gold_rate__lte=1), name="gold_rate_0_to_1"),
            models.CheckConstraint(
                condition=Q(pause_threshold__gte=0, pause_threshold__lte=1), name="pause_0_to_1"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.collection}: {self.overlap} per image"


class CopyState(models.TextChoices):
    IN_PROGRESS = "in_progress", "in progress"
    SUBMITTED = "submitted"


class Copy(Leased):
    """One annotator's own work on one image, handed out by the crowd queue (never twice to one person)."""

    image = models.ForeignKey(Image, on_delete=models.CASCADE, related_name="+")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    # Work on a gold image: scored against its answer, never merged. Never shown to the annotator.
    gold = models.BooleanField(default=False)
    state = models.CharField(max_length=12, choices=CopyState.choices, default=CopyState.IN_PROGRESS)
    # The annotator's scene graph ({"objects", "relationships"}, ids "o1".."oN"), validated on each save.
    document = models.JSONField(default=dict, blank=True)
    taken_at = models.DateTimeField(default=timezone.now)
    submitted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        verbose_name_plural = "copies"
        constraints = [models.UniqueConstraint(fields=["image", "annotator"], name="one_copy_per_annotator")]
        indexes = [models.Index(fields=["image", "state"], name="copy_image_state")]

    def __str__(self) -> str:
        return f"copy {self.pk} of image {self.image_id} by {self.annotator_id}"


class MergeState(models.TextChoices):
    REVIEW = "review", "waiting for review"
    ACCEPTED = "accepted"


class ImageMerge(Leased):
    """The merge of an image's copies once all are in: the agreement between them and the merged answer.
    A reviewer holds it (a lease) while they review it."""

    image = models.OneToOneField(Image, on_delete=models.CASCADE, related_name="crowd_merge")
    state = models.CharField(max_length=10, choices=MergeState.choices, default=MergeState.REVIEW)
    box_f1 = models.FloatField(null=True, blank=True)
    attribute_agreement = models.FloatField(null=True, blank=True)
    relationship_agreement = models.FloatField(null=True, blank=True)
    # The merged scene graph, then what the reviewer accepted; the disagreements the page marks.
    merged = models.JSONField(default=dict)
    disagreements = models.JSONField(default=list, blank=True)
    weighted = models.BooleanField(default=False, help_text="Votes weighed by estimated reliability.")
    created_at = models.DateTimeField(default=timezone.now)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    decided_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["image"]

    def __str__(self) -> str:
        return f"merge of image {self.image_id} ({self.state})"


class GoldImage(models.Model):
    """An accepted image a reviewer marked as gold: its answer is the annotation it was accepted with."""

    image = models.OneToOneField(Image, on_delete=models.CASCADE, related_name="crowd_gold")
    answer = models.JSONField()
    marked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    marked_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["image"]

    def __str__(self) -> str:
        return f"gold image {self.image_id}"


class GoldScore(models.Model):
    """How a copy of a gold image compares with its answer."""

    copy = models.OneToOneField(Copy, on_delete=models.CASCADE, related_name="gold_score")
    box_f1 = models.FloatField()
    attribute_accuracy = models.FloatField(null=True, blank=True)
    # Decisions against gold (each box found, missed or drawn in excess; each attribute of a matched box):
    # what the pause rule adds up.
    correct = models.PositiveIntegerField()
    total = models.PositiveIntegerField()
    scored_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"gold score of copy {self.copy_id}: {self.box_f1:.2f}"


class Pause(models.Model):
    """An annotator taken off a collection's crowd queue by the gold rule, until a reviewer lifts it."""

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="+")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    reason = models.TextField()
    paused_at = models.DateTimeField(default=timezone.now)
    lifted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    lifted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-paused_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["collection", "annotator"],
                condition=Q(lifted_at__isnull=True),
                name="one_active_pause",
            )
        ]

    def __str__(self) -> str:
        return f"{self.annotator} paused in {self.collection}"


class Reliability(models.Model):
    """An annotator's reliability in a collection as Dawid and Skene estimate it from the merged images
    (crowd.consensus.estimate_reliability), kept for the weighted vote and the quality page."""

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="+")
    annotator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    sensitivity = models.FloatField()
    specificity = models.FloatField()
    n_items = models.PositiveIntegerField()
    enough = models.BooleanField()
    # kind ("box", "attribute", "relation") -> {sensitivity, specificity, n_items, enough}
    kinds = models.JSONField(default=dict, blank=True)
    estimated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["collection", "annotator"], name="one_reliability")]

    def __str__(self) -> str:
        return f"reliability of {self.annotator_id} in {self.collection_id}"


class CrowdPriors(models.Model):
    """The prior P(yes) of each kind of decision in a collection, estimated with the reliabilities: the
    weighted vote starts from it. `priors` is a list of [kind, label, name, p]."""

    collection = models.OneToOneField(Collection, on_delete=models.CASCADE, related_name="+")
    priors = models.JSONField(default=list)
    estimated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "crowd priors"

    def __str__(self) -> str:
        return f"priors of {self.collection_id}"
