"""Forms of the collection page. They only parse; the annotation app's services decide."""

from __future__ import annotations

from django import forms

from annotations.models import BackendAuth, Split, Stage
from annotations.selectors.collections import NEW
from datasets.formats import format_choices, scene_formats
from datasets.models import AcceptedImages


class ImageFilterForm(forms.Form):
    name = forms.CharField(
        required=False,
        max_length=255,
        label="File name",
        widget=forms.TextInput(attrs={"type": "search", "placeholder": "part of the file name"}),
    )
    stage = forms.ChoiceField(choices=[("", "any stage"), (NEW, "new"), *Stage.choices], required=False)
    split = forms.ChoiceField(choices=[("", "any split"), *Split.choices], required=False)


class UploadForm(forms.Form):
    """The files themselves are read with `request.FILES.getlist("files")`: one, many, or zip archives."""

    split = forms.ChoiceField(choices=Split.choices, initial=Split.TRAIN)


class ImportForm(forms.Form):
    """The formats come from the registry (datasets.formats); the page lists what each expects."""

    file = forms.FileField()
    format = forms.ChoiceField(choices=format_choices)
    mapping = forms.FileField(
        required=False,
        label="Mapping file",
        help_text="YAML or JSON: how the source's names become the vocabulary's (not for "
        + ", ".join(spec.name for spec in scene_formats() if not spec.mapped)
        + ").",
    )
    complete = forms.TypedChoiceField(
        choices=[
            ("", "as the format says"),
            ("yes", "complete: to review"),
            ("no", "not complete: drafts to annotate"),
        ],
        coerce=lambda value: value == "yes",
        empty_value=None,
        required=False,
        label="Source",
        help_text="Complete: every object of the vocabulary's types boxed, every attribute given. "
        "By default "
        + ", ".join(spec.name for spec in scene_formats() if spec.complete)
        + " are, the others are not.",
    )
    split = forms.ChoiceField(
        choices=Split.choices, initial=Split.TRAIN, help_text="Split of the images the import creates."
    )
    mark_reviewed = forms.BooleanField(
        required=False,
        label="Mark as reviewed",
        help_text="The annotations are accepted at once (a complete source only).",
    )
    images = forms.FileField(
        required=False,
        label="Images (zip)",
        help_text="The images of the scene graphs, matched by file name or by the source's image id.",
    )
    strict = forms.BooleanField(
        required=False,
        label="All or nothing",
        help_text="One bad entry refuses the whole file (always so for "
        + ", ".join(spec.name for spec in scene_formats() if not spec.mapped)
        + ").",
    )
    add_relationship_objects = forms.BooleanField(
        required=False,
        label="Add objects found only in relationships",
        help_text="Marked as added; otherwise such relationships are dropped and counted.",
    )
    accepted = forms.ChoiceField(
        choices=[("", "ask me, showing what changes"), *AcceptedImages.choices],
        required=False,
        label="Accepted images whose annotation it changes",
        help_text="By default an import that would replace existing annotations stops and shows what "
        "it would change, before writing anything.",
    )
    preview = forms.BooleanField(
        required=False,
        label="Show what it would do first",
        help_text="Stop before writing, whatever changes.",
    )


class BucketSourceForm(forms.Form):
    """A collection filled from a bucket (docs/storage.md): the platform's own credentials read it."""

    bucket = forms.CharField(max_length=63, label="Bucket")
    key_prefix = forms.CharField(max_length=500, required=False, label="Prefix")  # a form's `prefix` is taken
    copy = forms.BooleanField(
        required=False, initial=True, label="Copy each image into the platform's storage"
    )
    split = forms.ChoiceField(choices=Split.choices, initial=Split.TRAIN, label="Split")


class ModelBackendForm(forms.Form):
    """A collection's model server (decision 0078). The credential is never shown back: left blank, the
    stored one is kept; "remove" removes it."""

    url = forms.CharField(
        max_length=500, label="Address", help_text="The ML backend's base URL (http or https)."
    )
    auth = forms.ChoiceField(choices=BackendAuth.choices, initial=BackendAuth.NONE, label="Authentication")
    username = forms.CharField(max_length=200, required=False, label="User name (basic)")
    header_name = forms.CharField(max_length=100, required=False, label="Header name")
    secret = forms.CharField(
        max_length=2000,
        required=False,
        strip=False,
        label="Password or header value",
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "new-password"}),
        help_text="Blank: the stored one is kept.",
    )
    remove_secret = forms.BooleanField(required=False, label="Remove the stored credential")
    enabled = forms.BooleanField(required=False, initial=True, label="Ask it for suggestions")

    def service_values(self) -> dict:
        """The values as `model_backend_set` takes them: secret None keeps the stored one, "" removes it."""
        values = dict(self.cleaned_data)
        remove = values.pop("remove_secret")
        values["secret"] = "" if remove else (values["secret"] or None)
        return values
