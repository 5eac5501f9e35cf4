"""Tests in the admin: "add" creates a draft through the service (a practice test if ticked); actions
start, publish (as the test says, or as a practice test), archive and export. Streams, steps, checks and disagreements are shown read-only: they change only through the
truthing services, and never once their test is published."""

from __future__ import annotations

import json
from functools import partial

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.widgets import FilteredSelectMultiple
from django.http import HttpResponse

from truthing.forms import SETTING_FIELDS, TestCreateForm, model_choices
from truthing.models import (
    AutomaticTruthing,
    Check,
    CheckAnswer,
    Deal,
    DealtStream,
    Disagreement,
    Step,
    Stream,
    Test,
    TestAudit,
    TestImage,
    TestState,
)
from truthing.selectors import export_of_test
from truthing.services import lifecycle
from vtt_site.admin_jobs import FollowsRunningJobs
from vtt_site.errors import ApplicationError


class AdminTestCreateForm(TestCreateForm):
    """The shared form, with the admin's two-pane picker for the images."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        images = model_choices(self, "images")
        images.widget = FilteredSelectMultiple("test images", is_stacked=False)
        images.widget.choices = images.choices  # a widget set after the field gets no choices itself


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    def has_delete_permission(self, request, obj=None):
        return False


@admin.register(Test)
class TestAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "state",
        "practice",
        "open_streams",
        "statistics",
        "seed",
        "streams_per_image",
        "created_at",
        "published_at",
    ]
    list_filter = ["state", "practice", "created_at"]
    search_fields = ["name", "description"]
    actions = ["start", "publish", "publish_practice", "archive", "export"]
    readonly_fields = [
        "statistics",
        "engine_settings",
        "seed",
        "streams_per_image",
        "state",
        "created_by",
        "created_at",
        "started_at",
        "published_at",
        "archived_at",
    ]

    def get_form(self, request, obj=None, change=False, **kwargs):
        if obj is None:
            kwargs["form"] = AdminTestCreateForm
        return super().get_form(request, obj, change, **kwargs)

    def get_readonly_fields(self, request, obj=None):
        return [] if obj is None else self.readonly_fields

    def get_fields(self, request, obj=None):
        if obj is None:
            return [*TestCreateForm.Meta.fields, "images", *SETTING_FIELDS]
        # Whether it is a practice test, and how many streams a session may have open at once, may change
        # until it is published (then the page is read-only).
        return ["name", "description", "practice", "open_streams", *self.readonly_fields]

    def has_change_permission(self, request, obj=None):
        """A published (or archived) test is shown read-only."""
        return super().has_change_permission(request, obj) and not (obj is not None and obj.frozen)

    def has_delete_permission(self, request, obj=None):
        return super().has_delete_permission(request, obj) and (obj is None or obj.state == TestState.DRAFT)

    def save_model(self, request, obj, form, change):
        if change:
            # Through the service, which refuses a test published since the page was opened.
            try:
                lifecycle.describe_test(
                    test_id=obj.pk,
                    name=obj.name,
                    description=obj.description,
                    practice=obj.practice,
                    open_streams=obj.open_streams,
                )
            except ApplicationError as exc:  # published meanwhile: nothing was saved
                self.message_user(request, exc.message, messages.ERROR)
            return
        try:
            created = form.create(user=request.user)
        except ApplicationError as exc:
            raise forms.ValidationError(exc.message) from None
        obj.pk = created.pk
        obj.refresh_from_db()

    def save_related(self, request, form, formsets, change):
        if change:
            super().save_related(request, form, formsets, change)

    def _each(self, request, queryset, service, done: str):
        for test in queryset:
            try:
                service(test=test)
            except ApplicationError as exc:
                self.message_user(request, f"{test.name}: {exc.message}", messages.ERROR)
            else:
                self.message_user(request, f"{test.name}: {done}.", messages.SUCCESS)

    @admin.action(description="Start truthing the selected draft tests")
    def start(self, request, queryset):
        self._each(request, queryset, lifecycle.start_test, "truthing started")

    @admin.action(description="Publish the selected tests (freezes them; a practice test as practice)")
    def publish(self, request, queryset):
        self._each(request, queryset, lifecycle.publish_test, "published")

    @admin.action(
        description="Publish the selected tests as practice tests (taken again and again, unranked)"
    )
    def publish_practice(self, request, queryset):
        publish = partial(lifecycle.publish_test, practice=True)
        self._each(request, queryset, publish, "published as a practice test")

    @admin.action(description="Archive the selected published tests")
    def archive(self, request, queryset):
        self._each(request, queryset, lifecycle.archive_test, "archived")

    @admin.action(description="Export the selected tests with their answers (JSON)")
    def export(self, request, queryset):
        documents = [export_of_test(test=test) for test in queryset]
        response = HttpResponse(json.dumps(documents, indent=1), content_type="application/json")
        response["Content-Disposition"] = 'attachment; filename="tests.json"'
        return response


@admin.register(TestImage)
class TestImageAdmin(ReadOnlyAdmin):
    list_display = ["test", "position", "image", "mode"]
    list_filter = ["mode", "test"]
    search_fields = ["test__name", "image__original_name"]
    list_select_related = ["test", "image"]


@admin.register(Stream)
class StreamAdmin(ReadOnlyAdmin):
    list_display = ["id", "test_image", "number", "state", "lease_holder", "lease_expires_at", "ended_at"]
    list_filter = ["state", "test_image__test"]
    search_fields = ["test_image__test__name", "test_image__image__original_name"]
    list_select_related = ["test_image__test", "test_image__image", "lease_holder"]


@admin.register(Step)
class StepAdmin(ReadOnlyAdmin):
    list_display = [
        "stream",
        "index",
        "text",
        "p",
        "population",
        "answer",
        "label",
        "answered_by",
        "automatic",
    ]
    list_filter = ["answer", "automatic", "stream__test_image__test"]
    search_fields = ["text", "label", "stream__test_image__image__original_name"]
    list_select_related = ["stream__test_image__image", "stream__test_image__test", "answered_by"]


@admin.register(Check)
class CheckAdmin(ReadOnlyAdmin):
    list_display = ["id", "stream", "kind", "checker", "lease_holder", "created_at", "finished_at"]
    list_filter = ["kind", "stream__test_image__test"]
    search_fields = ["stream__test_image__image__original_name", "checker__username"]
    list_select_related = ["stream__test_image__image", "stream__test_image__test", "checker", "lease_holder"]


@admin.register(CheckAnswer)
class CheckAnswerAdmin(ReadOnlyAdmin):
    list_display = ["check_pass", "step", "answer", "seconds", "answered_at"]
    list_filter = ["answer"]
    search_fields = ["step__text"]
    list_select_related = ["check_pass", "step"]


@admin.register(Disagreement)
class DisagreementAdmin(ReadOnlyAdmin):
    list_display = ["id", "step", "state", "decided_answer", "decided_by", "decided_at"]
    list_filter = ["state"]
    search_fields = ["step__text"]
    list_select_related = ["step", "decided_by"]


@admin.register(AutomaticTruthing)
class AutomaticTruthingAdmin(FollowsRunningJobs, ReadOnlyAdmin):
    list_display = [
        "test",
        "status",
        "progress",
        "streams_done",
        "streams_total",
        "following",
        "attempts",
        "message",
        "finished_at",
    ]
    list_filter = ["status"]
    search_fields = ["test__name", "message"]
    list_select_related = ["test"]


@admin.register(TestAudit)
class TestAuditAdmin(FollowsRunningJobs, ReadOnlyAdmin):
    list_display = ["test", "status", "progress", "following", "attempts", "message", "finished_at"]
    list_filter = ["status"]
    search_fields = ["test__name", "message"]
    list_select_related = ["test"]


@admin.register(Deal)
class DealAdmin(FollowsRunningJobs, ReadOnlyAdmin):
    """A session's deal: the job that gives it one stream per test image (decision 0049)."""

    list_display = [
        "id",
        "test",
        "owner",
        "status",
        "progress",
        "streams_done",
        "streams_total",
        "finished_at",
    ]
    list_filter = ["status"]
    search_fields = ["test__name", "owner__username", "message"]
    list_select_related = ["test", "owner"]


@admin.register(DealtStream)
class DealtStreamAdmin(ReadOnlyAdmin):
    list_display = ["deal", "position", "test_image", "stream"]
    list_filter = ["deal__test"]
    search_fields = ["deal__test__name", "test_image__image__original_name"]
    list_select_related = ["deal__test", "test_image__image", "stream"]
