"""Collections of images, their members, and the images with their place in the annotation workflow.

An image moves annotate -> review -> accepted; a reviewer may send it back to annotate (`returned`),
and then it goes back to the annotator who did it. A lease (`lease_holder` until `lease_expires_at`) is
who works on it right now, in whichever stage it is; an expired lease is as good as none
(`vtt_site.leases`).
"""

from __future__ import annotations

import os
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from annotations.models.vocabularies import Vocabulary
from vtt_site.leases import Leased
from vtt_site.storage import random_key


class MemberRole(models.TextChoices):
    ANNOTATOR = "annotator"
    REVIEWER = "reviewer"
    OPERATOR = "operator"


class Split(models.TextChoices):
    TRAIN = "train"
    TEST = "test"


class Stage(models.TextChoices):
    ANNOTATE = "annotate", "in annotation"
    REVIEW = "review", "in review"
    ACCEPTED = "accepted"


class Collection(models.Model):
    name = models.CharField(max_length=200, unique=True)
    # PROTECT: annotations name the vocabulary's rows; a vocabulary in use is never deleted under them.
    vocabulary = models.ForeignKey(Vocabulary, on_delete=models.PROTECT, related_name="collections")
    description = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # The stubs cannot follow a user model named by a setting through a model named by a string.
    members: models.ManyToManyField[Any, Any] = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="CollectionMembership", related_name="annotation_collections"
    )

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class CollectionMembership(models.Model):
    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="collection_memberships"
    )
    role = models.CharField(max_length=16, choices=MemberRole.choices)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["collection", "user__username"]
        constraints = [models.UniqueConstraint(fields=["collection", "user"], name="unique_membership")]

    def __str__(self) -> str:
        return f"{self.user} ({self.role}) in {self.collection}"


def image_path(instance: Image, filename: str) -> str:
    """A random key of the image's extension: a presigned URL handed to a vision system tells nothing
    about the image (its name, its collection, its pixels' hash) beyond what the API says."""
    return random_key("images", os.path.splitext(filename)[1])


class Image(Leased):
    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="images")
    # Blank for an imported scene graph whose pixels the platform never received.
    file = models.FileField(upload_to=image_path, blank=True, max_length=300)
    original_name = models.CharField(max_length=255)
    # The image's id in the scene-graph file it was imported from (Visual Genome's image_id, Open Images'
    # ImageID), written back by exports; blank for an image of the platform's own.
    source_id = models.CharField(max_length=200, blank=True)
    # SHA-256 of the bytes as uploaded (before the EXIF rotation), so the same upload is recognised.
    content_hash = models.CharField(max_length=64, blank=True)
    width = models.PositiveIntegerField()
    height = models.PositiveIntegerField()
    format = models.CharField(max_length=8, blank=True, help_text="JPEG, PNG or WEBP; blank without pixels.")
    split = models.CharField(max_length=8, choices=Split.choices, default=Split.TRAIN)
    stage = models.CharField(max_length=10, choices=Stage.choices, default=Stage.ANNOTATE)
    # Who did the annotation: a sent-back image returns to them, and they may not review it.
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # When an annotation was first saved or imported; null means the image was never annotated.
    annotated_at = models.DateTimeField(null=True, blank=True)
    returned = models.BooleanField(default=False, help_text="Sent back by a reviewer to its annotator.")
    review_comment = models.TextField(blank=True)
    # The box the comment is about ("o3", the annotation's object id), or blank: about the whole image.
    review_comment_object = models.CharField(max_length=16, blank=True)
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reviewed_at = models.DateTimeField(null=True, blank=True)
    # A reviewer who changed the annotation while reviewing it (the annotator stays who drew it).
    corrected_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    corrected_at = models.DateTimeField(null=True, blank=True)
    uploaded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(
                fields=["collection", "content_hash"],
                condition=~Q(content_hash=""),
                name="unique_image_content",
            ),
            # Imports attach scene graphs to images by name, so a name means one image.
            models.UniqueConstraint(fields=["collection", "original_name"], name="unique_image_name"),
        ]
        indexes = [
            models.Index(fields=["collection", "stage", "id"], name="image_queue"),
            # The collection page's list in its order: a deep page's ids are read from the index alone
            # (vtt_site.paging.IdsFirstPaginator; decision 0098).
            models.Index(fields=["collection", "id"], name="image_collection_order"),
            # "Annotate next": the first free image waiting for annotation, and those sent back to the
            # annotator. Without them PostgreSQL walked the primary key past every accepted image
            # (20 ms at 108,077 images, growing with the collection), and every image the annotator
            # had ever annotated.
            models.Index(
                fields=["collection", "id"], condition=Q(stage="annotate"), name="image_annotate_queue"
            ),
            models.Index(
                fields=["collection", "annotator", "id"], condition=Q(returned=True), name="image_returned"
            ),
        ]

    def __str__(self) -> str:
        return self.original_name
