"""Forms of the collection page. They only parse; the annotation app's services decide."""

from __future__ import annotations

from django import forms

from annotations.formats import format_choices
from annotations.models import Split, Stage
from annotations.selectors.collections import NEW


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
    """The formats come from the registry (annotations.formats); the page lists what each expects."""

    file = forms.FileField()
    format = forms.ChoiceField(choices=format_choices)
    split = forms.ChoiceField(
        choices=Split.choices, initial=Split.TRAIN, help_text="Split of the images the import creates."
    )
    mark_reviewed = forms.BooleanField(
        required=False, label="Mark as reviewed", help_text="The annotations are accepted at once."
    )
