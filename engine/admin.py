"""Fitted statistics in the admin: read-only rows; "add" asks for a fit, which runs as a Celery task."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db.models import Count
from django.utils.html import format_html, format_html_join

from annotations.models import Collection
from engine import services
from engine.conf import conf
from engine.models import FitShard, FittedStatistics
from vtt_site.admin_jobs import FollowsRunningJobs
from vtt_site.errors import ApplicationError
from vtt_site.jobs import job_limit_check


class FitForm(forms.ModelForm):
    collections = forms.ModelMultipleChoiceField(queryset=Collection.objects.select_related("vocabulary"))
    min_overlap = forms.FloatField(
        min_value=0.0,
        max_value=0.99,
        required=False,
        help_text="Fraction of a box that must lie in a region to count as visible there (0: any overlap). "
        f"Default {conf.ENGINE_REGION_MIN_OVERLAP}.",
    )

    class Meta:
        model = FittedStatistics
        fields = ["collections"]

    user = None  # who asks (set by the admin): a user may have only so many fits waiting or running

    def clean(self):
        super().clean()
        cleaned = self.cleaned_data
        try:
            services.check_fit_request(
                collections=list(cleaned.get("collections") or []), min_overlap=cleaned.get("min_overlap")
            )
            job_limit_check(FittedStatistics, user=self.user, what="fits")
        except ApplicationError as exc:
            raise forms.ValidationError(exc.message) from None
        return cleaned


@admin.register(FittedStatistics)
class FittedStatisticsAdmin(FollowsRunningJobs, admin.ModelAdmin):
    list_display = [
        "id",
        "status",
        "vocabulary",
        "collection_names",
        "n_images",
        "n_objects",
        "n_pairs",
        "progress_percent",
        "following",
        "fit_seconds",
        "created_at",
        "created_by",
    ]
    list_filter = ["status", "vocabulary", "created_at"]
    search_fields = ["collections__name", "vocabulary__name", "message", "file_name"]
    readonly_fields = [
        "vocabulary",
        "status",
        "following",
        "progress",
        "message",
        "settings",
        "n_images",
        "n_objects",
        "n_pairs",
        "summary_table",
        "file_name",
        "file_size",
        "fit_seconds",
        "created_by",
        "created_at",
        "enqueued_at",
        "started_at",
        "heartbeat_at",
        "finished_at",
        "claimed_by",
        "attempts",
        "training_image_count",
    ]
    exclude = ["training_images"]
    actions = ["fit_again"]

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .select_related("vocabulary", "created_by")
            .prefetch_related("collections")
            .annotate(training_image_total=Count("training_images", distinct=True))
        )

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is None:
            kwargs["form"] = type("FitForm", (FitForm,), {"user": request.user})
        return super().get_form(request, obj, change, **kwargs)

    def get_readonly_fields(self, request, obj=None):
        return [*self.readonly_fields, "collections"] if obj else []

    def get_fields(self, request, obj=None):
        return ["collections", "min_overlap"] if obj is None else ["collections", *self.readonly_fields]

    def has_change_permission(self, request, obj=None) -> bool:
        return obj is None and super().has_change_permission(request, obj)  # a fit is a record: view only

    def save_model(self, request, obj, form, change):
        statistics = services.statistics_fit_start(
            user=request.user,
            collections=list(form.cleaned_data["collections"]),
            min_overlap=form.cleaned_data.get("min_overlap"),
        )
        obj.pk = statistics.pk  # the admin redirects to the row the service made
        # No status here: the fit runs after this request commits (at once without a worker), so by the
        # time the list shows, its row may already be ready.
        self.message_user(
            request,
            f"Fit {statistics.pk} asked for on {statistics.training_images.count()} training images; "
            "its row shows how far it is.",
            messages.SUCCESS,
        )

    def response_add(self, request, obj, post_url_continue=None):
        # Django's own "... was added" names the row as it was before the fit ran ("queued, 0 images").
        return self.response_post_save_add(request, obj)

    def save_related(self, request, form, formsets, change):
        pass  # the service has set the collections and the training images

    def delete_model(self, request, obj):
        services.statistics_delete(statistics=obj)

    def delete_queryset(self, request, queryset):
        for statistics in queryset:
            services.statistics_delete(statistics=statistics)

    @admin.display(description="collections")
    def collection_names(self, obj) -> str:
        return ", ".join(c.name for c in obj.collections.all())

    @admin.display(description="progress")
    def progress_percent(self, obj) -> str:
        return f"{obj.progress:.0%}"

    @admin.display(description="summary")
    def summary_table(self, obj) -> str:
        """The fit's counts as a table: totals, then per object type its attribute frequencies."""
        summary = obj.summary or {}
        if not summary:
            return "(not fitted yet)"
        totals = format_html_join(
            "",
            "<tr><th scope='row'>{}</th><td>{}</td></tr>",
            ((key, summary.get(key, "")) for key in ("images", "objects", "pairs")),
        )
        types = format_html_join(
            "",
            "<tr><th scope='row'>{}</th><td>{}</td><td>{}</td><td>{}</td></tr>",
            (
                (
                    name,
                    counts.get("objects", ""),
                    counts.get("attributes_known", ""),
                    ", ".join(
                        f"{value} {frequency:.0%}" if frequency is not None else f"{value} -"
                        for value, frequency in (counts.get("attribute_frequencies") or {}).items()
                    )
                    or "-",
                )
                for name, counts in (summary.get("types") or {}).items()
            ),
        )
        return format_html(
            "<table class='fit-summary'><tbody>{}</tbody></table>"
            "<table class='fit-summary'><thead><tr><th>type</th><th>objects</th><th>attributes known</th>"
            "<th>share of known objects with each attribute value</th></tr></thead>"
            "<tbody>{}</tbody></table>",
            totals,
            types,
        )

    @admin.display(description="training images")
    def training_image_count(self, obj) -> int:
        return getattr(obj, "training_image_total", None) or obj.training_images.count()

    @admin.action(description="Fit again on the same collections (current reviewed images)")
    def fit_again(self, request, queryset):
        for statistics in queryset:
            try:
                services.statistics_fit_start(
                    user=request.user,
                    collections=list(statistics.collections.all()),
                    min_overlap=statistics.settings.get("min_overlap"),
                )
            except ApplicationError as exc:
                self.message_user(request, f"Statistics {statistics.pk}: {exc.message}", messages.ERROR)
        self.message_user(request, "Fitting started.", messages.SUCCESS)


@admin.register(FitShard)
class FitShardAdmin(admin.ModelAdmin):
    """Shards of large fits, read-only: they exist while their fit is split across the workers."""

    list_display = ["statistics", "index", "first", "last", "status", "attempts", "message", "finished_at"]
    list_filter = ["status"]
    search_fields = ["statistics__vocabulary__name", "message", "file_name"]
    list_select_related = ["statistics__vocabulary"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False
