"""The form a new test is built with, shared by the admin's "add" page and the web UI's "New test" page.

The engine settings are declared fields (one per `EngineSettings` field), so that Django's admin, which
checks the fields it lists against the model and the form's declared fields, knows them (issue 20: the
admin's add page was a 500 when they were only added in `__init__`). Their initial values are the
defaults in force (the core's, then the environment's), read when the form is built.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, fields
from typing import Any

from django import forms
from django.db.models import Count, Q
from django.forms.utils import pretty_name
from django.template.defaultfilters import pluralize

from annotations.models import Collection, Image, Split
from annotations.selectors.images import without_pixels
from kernel.errors import EngineError
from truthing.bridge import EngineSettings, engine_settings, fit_label, fits_ready
from truthing.models import Test
from truthing.services import lifecycle
from vtt_site.errors import ApplicationError

SETTING_FIELDS = [f.name for f in fields(EngineSettings)]


def _setting_field(default: Any) -> forms.Field:
    kind = forms.IntegerField if isinstance(default, int) else forms.FloatField
    return kind(required=False)


def model_choices(form: forms.BaseForm, name: str) -> forms.ModelChoiceField:
    """The form's field `name`, a choice among rows: `form.fields` types every field as a plain Field."""
    field = form.fields[name]
    if not isinstance(field, forms.ModelChoiceField):
        raise TypeError(f"{name} is not a choice among rows")
    return field


def label_choices(field: forms.ModelChoiceField, label: Callable[[Any], str]) -> None:
    """Show each row of the field's choices as `label` gives it (Django calls label_from_instance on
    each row; replacing it on one field spares a field class per label)."""
    field.label_from_instance = label  # type: ignore[method-assign, assignment]


class TestFormBase(forms.ModelForm):
    """Name, whether it is a practice test, statistics, streams per image and engine settings; a
    subclass says which images (from its field `images_field`)."""

    images_field = "images"

    statistics = forms.ModelChoiceField(
        queryset=fits_ready(),
        help_text="The fitted statistics the questions are proposed from (engine: ready fits only).",
    )

    class Meta:
        model = Test
        fields = ["name", "description", "practice", "statistics", "seed", "streams_per_image"]

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        defaults = engine_settings()
        for name in SETTING_FIELDS:
            value = getattr(defaults, name)
            self.fields[name].initial = value
            self.fields[name].help_text = f"Default {'off' if value is None else value}; empty: the default."
        statistics = model_choices(self, "statistics")
        label_choices(statistics, fit_label)
        newest = statistics.queryset.first() if statistics.queryset is not None else None
        if newest is not None and not self.is_bound:
            statistics.initial = newest.pk  # the newest ready fit, which is usually the one wanted

    def clean(self) -> dict[str, Any] | None:
        """The engine settings are checked here, by the engine's own rules, so that a value it refuses
        (an epsilon of 0.9, a negative min_evidence) is an error on its field, not a server error."""
        cleaned = super().clean()
        try:
            engine_settings(**self.settings_document())
        except EngineError as exc:
            if exc.where in self.fields:
                # The engine names the setting as the API and the command line spell it; the form shows
                # its label ("Min evidence must be ...", not "min_evidence must be ...").
                label = self.fields[exc.where].label or pretty_name(exc.where)
                self.add_error(exc.where, exc.message.replace(exc.where, str(label)))
            else:
                self.add_error(None, exc.message)
        if cleaned and cleaned.get("statistics") and cleaned.get(self.images_field):
            # The service's own check of the images, before anything is saved: the admin shows a
            # refusal on the form only when it comes from here (one at save time would be a 500).
            try:
                lifecycle.check_test_images(statistics=cleaned["statistics"], image_ids=self.image_ids())
            except ApplicationError as exc:
                self.add_refusal(exc)
        return cleaned

    def add_refusal(self, exc: ApplicationError) -> None:
        """A service's refusal above the form, and on each field it names that the form has."""
        self.add_error(None, exc.message)
        for name, problems in (exc.fields or {}).items():
            if name in self.fields:
                for problem in problems:
                    self.add_error(name, problem)

    def settings_document(self) -> dict[str, Any]:
        """The settings the admin changed: those given, each only if it differs from the default."""
        defaults = engine_settings()
        chosen = {name: self.cleaned_data.get(name) for name in SETTING_FIELDS}
        return {
            name: value
            for name, value in chosen.items()
            if value is not None and value != getattr(defaults, name)
        }

    def image_ids(self) -> list[int]:
        raise NotImplementedError

    def create(self, *, user: Any) -> Test:
        """The draft test, through the lifecycle service (which may refuse with ApplicationError)."""
        cleaned = self.cleaned_data
        return lifecycle.create_test(
            name=cleaned["name"],
            description=cleaned.get("description") or "",
            statistics=cleaned["statistics"],
            image_ids=self.image_ids(),
            settings=self.settings_document(),
            seed=cleaned.get("seed") or 0,
            streams_per_image=cleaned.get("streams_per_image") or 1,
            practice=bool(cleaned.get("practice")),
            created_by=user,
        )


# Declared after the class statement (one per engine setting): subclasses, and the forms the admin
# derives from them, collect them as declared fields.
_SETTINGS = {f.name: _setting_field(f.default) for f in fields(EngineSettings) if f.default is not MISSING}
TestFormBase.declared_fields.update(_SETTINGS)
TestFormBase.base_fields.update(_SETTINGS)


class TestCreateForm(TestFormBase):
    """The admin's: test images picked one by one."""

    images = forms.ModelMultipleChoiceField(
        queryset=Image.objects.filter(split=Split.TEST)
        .select_related("collection")
        .order_by("collection", "id"),
        help_text="Images whose role is test; one used for training in the statistics is refused.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        label_choices(
            model_choices(self, "images"), lambda image: f"{image.collection.name} / {image.original_name}"
        )

    def image_ids(self) -> list[int]:
        return [image.pk for image in self.cleaned_data["images"]]


def _collection_label(collection: Collection, bare_images: int) -> str:
    """ "Street (40 test images, 12 without pixels)": a test refuses images without pixels, so the page
    says how many a collection has before they are picked."""
    images = f"{collection.test_images} test image{pluralize(collection.test_images)}"  # type: ignore[attr-defined]
    bare = f", {bare_images} without pixels" if bare_images else ""
    return f"{collection.name} ({images}{bare})"


class TestFromCollectionsForm(TestFormBase):
    """The web UI's: the test images of whole collections (the first `limit` of each, if given), in
    collection order and then upload order; a page cannot list tens of thousands of images one by one."""

    images_field = "collections"
    collections = forms.ModelMultipleChoiceField(
        queryset=Collection.objects.none(),
        widget=forms.CheckboxSelectMultiple,
        help_text="Every test image of each collection ticked (images whose role is test).",
    )
    limit = forms.IntegerField(
        required=False,
        min_value=1,
        label="At most this many images per collection",
        help_text="Empty: all of them.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        with_tests = Count("images", filter=Q(images__split=Split.TEST))
        field = model_choices(self, "collections")
        field.queryset = (
            Collection.objects.annotate(test_images=with_tests).filter(test_images__gt=0).order_by("name")
        )
        bare = dict(
            without_pixels(Image.objects.filter(split=Split.TEST, collection__in=field.queryset))
            .values("collection")
            .annotate(n=Count("pk"))
            .values_list("collection", "n")
        )
        label_choices(field, lambda c: _collection_label(c, bare.get(c.pk, 0)))

    def image_ids(self) -> list[int]:
        ids: list[int] = []
        for collection in self.cleaned_data["collections"]:
            images = Image.objects.filter(collection=collection, split=Split.TEST).order_by("id")
            limit = self.cleaned_data.get("limit")
            ids += list(
                images.values_list("pk", flat=True)[:limit] if limit else images.values_list("pk", flat=True)
            )
        return ids
