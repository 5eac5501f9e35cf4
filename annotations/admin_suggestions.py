"""The Django admin of suggestions from a model (decision 0078): a collection's model server, saved
through the service (which seals the credential; the form never shows it), and checked from the list;
the suggestions and the pre-annotations, read-only."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages

from annotations.admin_common import ReadOnlyAdmin
from annotations.models import ModelBackend, PreannotationJob, Prediction
from annotations.services.suggestion_check import model_backend_check
from annotations.services.suggestions import model_backend_set, model_backend_validate
from annotations.suggestions.secrets import secret_usable
from vtt_site.admin_jobs import FollowsRunningJobs
from vtt_site.errors import ApplicationError


class ModelBackendForm(forms.ModelForm):
    """The credential is write-only: a password field that never shows what is stored."""

    credential = forms.CharField(
        required=False,
        strip=False,
        widget=forms.PasswordInput(render_value=False),
        help_text="The password (basic) or the header's value. Left empty: the stored one is kept. "
        "Never shown.",
    )
    remove_credential = forms.BooleanField(required=False, help_text="Remove the stored credential.")
    # Checked by the service (http or https with a host), not by Django's URL validator, which refuses a
    # host without a dot: a model server is often `http://ml-backend:9090/` on the same network.
    # Not the model field `url`, so that the model's validation does not run that validator either.
    address = forms.CharField(
        label="URL", max_length=500, help_text="The ML backend's base URL (http or https)."
    )

    class Meta:
        model = ModelBackend
        fields = ["collection", "auth", "username", "header_name", "enabled"]  # and `address`, above

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.fields["address"].initial = self.instance.url

    def new_secret(self) -> str | None:
        if self.cleaned_data.get("remove_credential"):
            return ""
        return self.cleaned_data.get("credential") or None

    def clean(self):
        data = super().clean() or {}
        if self.errors:
            return data
        try:
            model_backend_validate(
                url=data.get("address", ""),
                auth=data.get("auth", ""),
                username=data.get("username", ""),
                header_name=data.get("header_name", ""),
                secret=self.new_secret(),
                stored_secret=self.instance.secret if self.instance.pk else "",
            )
        except ApplicationError as exc:
            for name, messages_ in exc.fields.items():
                self.add_error({"secret": "credential", "url": "address"}.get(name, name), messages_)
        return data


@admin.register(ModelBackend)
class ModelBackendAdmin(admin.ModelAdmin):
    """Saved through the service (`model_backend_set`), which seals the credential."""

    form = ModelBackendForm
    list_display = ["collection", "url", "auth", "enabled", "credential_state", "model_version", "checked_at"]
    list_filter = ["enabled", "auth"]
    search_fields = ["collection__name", "url"]
    list_select_related = ["collection"]
    fields = [
        "collection",
        "address",
        "auth",
        "username",
        "header_name",
        "credential",
        "remove_credential",
        "enabled",
        "credential_state",
        "model_version",
        "checked_at",
        "last_error",
        "updated_by",
        "updated_at",
    ]
    readonly_fields = [
        "credential_state",
        "model_version",
        "checked_at",
        "last_error",
        "updated_by",
        "updated_at",
    ]

    actions = ["check_servers"]

    @admin.action(description="Check the selected model servers (/health, then /setup)")
    def check_servers(self, request, queryset) -> None:
        for backend in queryset.select_related("collection__vocabulary"):
            checked = model_backend_check(backend=backend)
            if checked.last_error:
                self.message_user(request, f"{backend}: {checked.last_error}", messages.WARNING)
            else:
                version = checked.model_version or "no version given"
                self.message_user(request, f"{backend}: answers ({version}).", messages.SUCCESS)

    def get_readonly_fields(self, request, obj=None):
        fields = list(super().get_readonly_fields(request, obj))
        return ["collection", *fields] if obj is not None else fields

    @admin.display(description="credential")
    def credential_state(self, backend: ModelBackend) -> str:
        if not backend.secret:
            return "none"
        return "set" if secret_usable(backend.secret) else "unreadable: enter it again"

    def save_model(self, request, obj, form, change):
        saved = model_backend_set(
            collection=obj.collection,
            user=request.user,
            url=form.cleaned_data["address"],
            auth=obj.auth,
            username=obj.username,
            header_name=obj.header_name,
            secret=form.new_secret(),
            enabled=obj.enabled,
        )
        for field in ModelBackend._meta.concrete_fields:
            setattr(obj, field.attname, getattr(saved, field.attname))
        obj._state.adding = False


@admin.register(Prediction)
class PredictionAdmin(ReadOnlyAdmin):
    """Written by the model's answers and the annotators' decisions only."""

    list_display = ["image", "object_type", "score", "status", "model_version", "created_at"]
    list_filter = ["status", "object_type"]
    search_fields = ["image__original_name", "model_version"]
    list_select_related = ["image", "object_type"]


@admin.register(PreannotationJob)
class PreannotationJobAdmin(FollowsRunningJobs, ReadOnlyAdmin):
    list_display = [
        "id",
        "collection",
        "status",
        "images_done",
        "images_total",
        "images_failed",
        "boxes",
        "following",
        "created_by",
        "created_at",
    ]
    list_filter = ["status"]
    search_fields = ["collection__name"]
    list_select_related = ["collection", "created_by"]
