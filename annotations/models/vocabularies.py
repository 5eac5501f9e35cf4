"""A vocabulary in rows (docs/method.md section 2): object types, attribute groups and values, relationships.

The rows hold exactly what the JSON document of docs/method.md section 9 holds, in the same order (`position`),
because the order is meaningful to the engine: it numbers attribute bits and relationship bits by it.
Validation is not repeated here: every document is checked by `kernel.vocabulary.parse_vocabulary`
before it becomes rows, and the admin re-checks the rows the same way after an edit.
"""

from __future__ import annotations

from django.db import models
from django.utils import timezone

from kernel.vocabulary import DEFAULT_ATTRIBUTE_PHRASE


def default_regions() -> str:
    return "default"


class Vocabulary(models.Model):
    name = models.CharField(max_length=100)
    # Importing a document whose name exists makes the next version; a vocabulary in use never changes.
    version = models.PositiveIntegerField(default=1)
    description = models.TextField(blank=True)
    regions = models.JSONField(
        default=default_regions,
        help_text='"default" (docs/method.md section 3) or a list of {"id": ..., "box": [x0, y0, x1, y1]} in '
        "fractions of the image.",
    )
    # Bumped by every edit, so that a process-wide cache keyed by (id, revision) is never stale.
    revision = models.PositiveIntegerField(default=0, editable=False)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["name", "-version"]
        verbose_name_plural = "vocabularies"
        constraints = [models.UniqueConstraint(fields=["name", "version"], name="unique_vocabulary_version")]

    def __str__(self) -> str:
        return f"{self.name} v{self.version}"


class ObjectType(models.Model):
    vocabulary = models.ForeignKey(Vocabulary, on_delete=models.CASCADE, related_name="types")
    name = models.CharField(max_length=100)
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["vocabulary", "position", "id"]
        constraints = [models.UniqueConstraint(fields=["vocabulary", "name"], name="unique_type_name")]

    def __str__(self) -> str:
        return self.name


class AttributeGroup(models.Model):
    object_type = models.ForeignKey(ObjectType, on_delete=models.CASCADE, related_name="groups")
    name = models.CharField(max_length=100)
    # Exclusive: exactly one value per object (radio buttons); otherwise independent flags.
    exclusive = models.BooleanField(default=False)
    phrase = models.CharField(
        max_length=200,
        default=DEFAULT_ATTRIBUTE_PHRASE,
        help_text='How a value is said of an object, e.g. "is {value}", "is a {value}", "has {value}".',
    )
    phrases = models.JSONField(default=dict, blank=True, help_text="Per-value phrases overriding `phrase`.")
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["object_type", "position", "id"]
        constraints = [models.UniqueConstraint(fields=["object_type", "name"], name="unique_group_name")]

    def __str__(self) -> str:
        return f"{self.object_type.name}: {self.name}"


class AttributeValue(models.Model):
    group = models.ForeignKey(AttributeGroup, on_delete=models.CASCADE, related_name="values")
    name = models.CharField(max_length=100)
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["group", "position", "id"]
        constraints = [models.UniqueConstraint(fields=["group", "name"], name="unique_value_name")]

    def __str__(self) -> str:
        return self.name


class RelationshipType(models.Model):
    vocabulary = models.ForeignKey(Vocabulary, on_delete=models.CASCADE, related_name="relationships")
    name = models.CharField(max_length=100)
    symmetric = models.BooleanField(default=False)
    group = models.CharField(max_length=100, blank=True, help_text="Defaults to the name.")
    phrase = models.CharField(max_length=200, blank=True, help_text="Defaults to the name.")
    subject_types = models.ManyToManyField(ObjectType, related_name="relationships_as_subject")
    object_types = models.ManyToManyField(ObjectType, related_name="relationships_as_object")
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["vocabulary", "position", "id"]
        constraints = [
            models.UniqueConstraint(fields=["vocabulary", "name"], name="unique_relationship_name")
        ]

    def __str__(self) -> str:
        return self.name
