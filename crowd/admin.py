"""The crowd's rows in the Django admin. A collection's crowd settings may be added and changed here (the
same checks as the page and the API: the ranges, and the overlap while images are part-way); everything
else is written by the platform and only shown."""

from __future__ import annotations

from django import forms
from django.contrib import admin

from annotations.admin_common import ReadOnlyAdmin
from crowd.models import (
    Copy,
    CrowdPriors,
    CrowdSettings,
    GoldImage,
    GoldScore,
    ImageMerge,
    Pause,
    Reliability,
)
from crowd.services.settings import FIELDS, check_settings, images_part_way
from vtt_site.errors import ApplicationError


class CrowdSettingsForm(forms.ModelForm):
    class Meta:
        model = CrowdSettings
        fields = ["collection", *FIELDS]

    def clean(self):
        cleaned = super().clean() or {}
        try:
            check_settings({name: cleaned[name] for name in FIELDS if name in cleaned})
        except ApplicationError as exc:
            raise forms.ValidationError(exc.message) from None
        changed = self.instance.pk is not None and "overlap" in self.changed_data
        if changed and images_part_way(self.instance.collection):
            raise forms.ValidationError(
                "The number of annotators per image cannot change while images are part-way through "
                "annotation or review: finish or release them first."
            )
        return cleaned


@admin.register(CrowdSettings)
class CrowdSettingsAdmin(admin.ModelAdmin):
    form = CrowdSettingsForm
    list_display = (
        "collection",
        "overlap",
        "agreement_threshold",
        "auto_accept",
        "gold_rate",
        "pause_threshold",
    )
    search_fields = ("collection__name",)
    list_filter = ("overlap", "auto_accept")
    raw_id_fields = ("collection",)


@admin.register(Copy)
class CopyAdmin(ReadOnlyAdmin):
    list_display = ("pk", "image", "annotator", "state", "gold", "taken_at", "submitted_at")
    list_filter = ("state", "gold")
    search_fields = ("image__original_name", "annotator__username")


@admin.register(ImageMerge)
class ImageMergeAdmin(ReadOnlyAdmin):
    list_display = ("image", "state", "box_f1", "attribute_agreement", "relationship_agreement", "weighted")
    list_filter = ("state", "weighted")
    search_fields = ("image__original_name",)


@admin.register(GoldImage)
class GoldImageAdmin(ReadOnlyAdmin):
    list_display = ("image", "marked_by", "marked_at")
    search_fields = ("image__original_name",)


@admin.register(GoldScore)
class GoldScoreAdmin(ReadOnlyAdmin):
    list_display = ("copy", "box_f1", "attribute_accuracy", "correct", "total", "scored_at")
    search_fields = ("copy__annotator__username", "copy__image__original_name")


@admin.register(Pause)
class PauseAdmin(ReadOnlyAdmin):
    """Lifted on the collection's page (its Crowd section), which also keeps the earlier gold work out."""

    list_display = ("annotator", "collection", "paused_at", "lifted_at", "lifted_by")
    list_filter = ("lifted_at",)
    search_fields = ("annotator__username", "collection__name")


@admin.register(Reliability)
class ReliabilityAdmin(ReadOnlyAdmin):
    list_display = (
        "annotator",
        "collection",
        "sensitivity",
        "specificity",
        "n_items",
        "enough",
        "estimated_at",
    )
    list_filter = ("enough",)
    search_fields = ("annotator__username", "collection__name")


@admin.register(CrowdPriors)
class CrowdPriorsAdmin(ReadOnlyAdmin):
    list_display = ("collection", "estimated_at")
    search_fields = ("collection__name",)
