"""An import of scene graphs into a collection, run as a Celery task with visible progress.

The model moved here from the annotations app (decision "datasets get a room of their own"); its table
kept its name, `annotations_importjob`, so no row moved (migrations annotations 0011 and datasets 0001
change Django's state only)."""

from __future__ import annotations

from django.db import models

from annotations.models import Collection, Split
from datasets.formats import format_choices, scene_formats
from datasets.queues import IMPORT_RUN
from vtt_site.job_model import Job

# The registered formats as choices (`SceneFormat.JSONL`), for code that names one; the registry
# (`datasets.formats`) is where they are described.
SceneFormat = models.TextChoices(  # type: ignore[call-overload]  # the stubs take literal members only
    "SceneFormat",
    [(spec.value.upper().replace("-", "_"), (spec.value, spec.label)) for spec in scene_formats()],
)


def import_path(instance: ImportJob, filename: str) -> str:
    return f"imports/{instance.collection_id}/{filename}"


class AcceptedImages(models.TextChoices):
    """What an import does to accepted images whose annotation it would change (decision 0071)."""

    KEEP = "keep", "keep them as they are"
    REPLACE = "replace", "replace their annotations too"


class ImportJob(Job):
    """Progress: the validated fraction of the records until the writing phase, then 1 when done.

    An import that would change existing images' annotations, and whose importer has not chosen what
    becomes of accepted ones, stops `previewed` with its `plan` until a person goes on (`accepted`) or
    cancels (decision 0071)."""

    class Status(models.TextChoices):
        QUEUED = "queued"
        VALIDATING = "validating"
        WRITING = "writing"
        ATTACHING = "attaching", "attaching pixels"
        PREVIEWED = "previewed", "previewed: waiting for a choice"
        DONE = "done"
        FAILED = "failed"
        CANCELLED = "cancelled"

    running_statuses = (Status.VALIDATING, Status.WRITING, Status.ATTACHING)
    done_status = Status.DONE
    task = IMPORT_RUN

    collection = models.ForeignKey(Collection, on_delete=models.CASCADE, related_name="imports")
    # Choices from the registry, called when needed: a new format changes no migration.
    format = models.CharField(max_length=16, choices=format_choices)
    file = models.FileField(upload_to=import_path, max_length=300)
    original_name = models.CharField(max_length=255, blank=True)
    # The split of the images the import creates; images already in the collection keep theirs.
    split = models.CharField(max_length=8, choices=Split.choices, default=Split.TRAIN)
    mark_reviewed = models.BooleanField(
        default=False, help_text="Accept the imported annotations at once (an existing, reviewed dataset)."
    )
    complete = models.BooleanField(
        default=True,
        help_text="The source is complete (every object of the vocabulary's types boxed, every attribute "
        "given): its images go to review. Otherwise they go to the annotation queue as drafts.",
    )
    mapping = models.FileField(
        upload_to=import_path, max_length=300, blank=True, help_text="The mapping file of an open vocabulary."
    )
    strict = models.BooleanField(
        default=False,
        help_text="All or nothing: one bad entry refuses the file. Otherwise (open vocabularies) the good "
        "entries go in and every refused one is reported, unless more than a set share is bad.",
    )
    add_relationship_objects = models.BooleanField(
        default=False,
        help_text="Make objects, marked as added, of the subjects and objects of relationships that have no "
        "box of their own. Otherwise such relationships are dropped and counted.",
    )
    images = models.FileField(
        upload_to=import_path,
        max_length=300,
        blank=True,
        help_text="A zip of the images, matched by name or id.",
    )
    # Set in the writing transaction: a run that takes the job over after it only attaches the pixels.
    written_at = models.DateTimeField(null=True, blank=True)
    entries_refused = models.PositiveIntegerField(default=0)
    pixels_attached = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED)
    lines_total = models.PositiveIntegerField(default=0)
    lines_done = models.PositiveIntegerField(default=0, help_text="Records validated so far.")
    errors = models.JSONField(default=list, blank=True, help_text="Every bad record: {line, message}.")
    report = models.JSONField(
        default=list, blank=True, help_text="What the mapping mapped, merged and dropped, with counts."
    )
    accepted = models.CharField(
        max_length=8,
        choices=AcceptedImages.choices,
        blank=True,
        help_text="What becomes of accepted images whose annotation the import would change; empty: "
        "not chosen yet (the import stops to show its plan when it would change existing images).",
    )
    preview = models.BooleanField(
        default=False, help_text="Stop to show the plan whatever it holds, until a person goes on."
    )
    plan = models.JSONField(
        default=dict,
        blank=True,
        help_text="What the import would do, as last shown: images created, changed, unchanged, "
        "accepted images changed (decision 0071).",
    )
    images_created = models.PositiveIntegerField(default=0)
    images_updated = models.PositiveIntegerField(
        default=0, help_text="Existing images whose annotation the import replaced."
    )
    images_unchanged = models.PositiveIntegerField(
        default=0, help_text="Existing images whose annotation equals the imported one: left as they were."
    )
    images_kept = models.PositiveIntegerField(
        default=0, help_text="Accepted images the import would have changed, kept as they were."
    )

    class Meta(Job.Meta):
        db_table = "annotations_importjob"  # its table since it was the annotation app's

    def __str__(self) -> str:
        return f"import {self.pk} of {self.original_name or self.file.name} ({self.status})"


class BucketSource(models.Model):
    """A collection filled from a bucket (Label Studio's "source storage"; docs/storage.md): the images
    under a prefix of a bucket the platform's credentials reach, either copied into the platform's
    storage under random keys or, in the platform's own bucket, used where they are."""

    collection = models.OneToOneField(Collection, on_delete=models.CASCADE, related_name="bucket_source")
    bucket = models.CharField(max_length=63)
    prefix = models.CharField(max_length=500, blank=True)
    copy = models.BooleanField(default=True, help_text="Copy each image into the platform's storage.")
    split = models.CharField(max_length=5, default="train")
    synced_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"s3://{self.bucket}/{self.prefix} -> {self.collection}"


class BucketObject(models.Model):
    """An object of a source that became an image: what a later sync knows it has, and reports removed
    when the bucket no longer holds it."""

    source = models.ForeignKey(BucketSource, on_delete=models.CASCADE, related_name="synced")
    key = models.CharField(max_length=1024)
    image = models.ForeignKey("annotations.Image", null=True, on_delete=models.SET_NULL, related_name="+")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["source", "key"], name="unique_bucket_object")]

    def __str__(self) -> str:
        return self.key
