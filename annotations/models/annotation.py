"""An image's annotation: boxed objects with attributes, and relationships between them.

Rows are only ever written by the annotation services, which validate the whole scene graph with
`kernel.scene` first; `position` keeps the order of the objects, which is what their ids
("o1".."oN") are made from.
"""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q

from annotations.models.collections import Image
from annotations.models.vocabularies import ObjectType, RelationshipType


class ObjectAnnotation(models.Model):
    image = models.ForeignKey(Image, on_delete=models.CASCADE, related_name="object_annotations")
    position = models.PositiveIntegerField()
    object_type = models.ForeignKey(ObjectType, on_delete=models.PROTECT, related_name="+")
    # The box as stored: clipped to the image, in pixels.
    x = models.FloatField()
    y = models.FloatField()
    w = models.FloatField()
    h = models.FloatField()
    # Attribute value names known to hold, in the vocabulary's order (kernel.scene.SceneObject).
    attributes = models.JSONField(default=list, blank=True)
    # False while any group is unknown: then the engine uses none of the object's attributes.
    attributes_known = models.BooleanField(default=True)
    # The attribute groups nobody has told yet, by name: what the annotation queue still asks for.
    unknown_groups = models.JSONField(default=list, blank=True)
    # What the source said besides the type (kernel.scene.OBJECT_FLAGS): occluded, depiction, group...
    flags = models.JSONField(default=list, blank=True)
    # False for a depiction or a group box: kept, shown and exported, but not an object of a test.
    in_tests = models.BooleanField(default=True)
    # The object's identity in the file it came from ({id, names, synsets, label}), written back by exports.
    source = models.JSONField(default=dict, blank=True)
    # The model's suggestion this object was accepted from, if any (decision 0078), and whether the person
    # changed its type, box or attributes before or after accepting it: shown on the review page.
    suggestion = models.ForeignKey(
        "annotations.Prediction", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    suggestion_edited = models.BooleanField(default=False, db_default=False)  # the bulk COPY leaves it out

    class Meta:
        ordering = ["image", "position"]
        constraints = [models.UniqueConstraint(fields=["image", "position"], name="unique_object_position")]

    def __str__(self) -> str:
        return f"o{self.position + 1} ({self.object_type_id}) of image {self.image_id}"


# The columns the bulk writes fill and the record reads select, in one order.
OBJECT_COLUMNS = (
    "image_id",
    "position",
    "object_type_id",
    "x",
    "y",
    "w",
    "h",
    "attributes",
    "attributes_known",
    "unknown_groups",
    "flags",
    "in_tests",
    "source",
)
RELATIONSHIP_COLUMNS = ("image_id", "relationship_id", "subject_id", "object_id")


class RelationshipAnnotation(models.Model):
    image = models.ForeignKey(Image, on_delete=models.CASCADE, related_name="relationship_annotations")
    relationship = models.ForeignKey(RelationshipType, on_delete=models.PROTECT, related_name="+")
    subject = models.ForeignKey(ObjectAnnotation, on_delete=models.CASCADE, related_name="+")
    object = models.ForeignKey(ObjectAnnotation, on_delete=models.CASCADE, related_name="+")

    class Meta:
        ordering = ["image", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["subject", "relationship", "object"], name="unique_relationship_annotation"
            ),
            models.CheckConstraint(condition=~Q(subject=F("object")), name="no_self_relationship"),
        ]

    def __str__(self) -> str:
        return f"{self.subject_id} {self.relationship_id} {self.object_id}"
