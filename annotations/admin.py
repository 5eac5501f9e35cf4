"""The Django admin of the annotation app.

A vocabulary and its parts are editable while no annotation uses them; after every edit the whole
vocabulary is checked again with `kernel.vocabulary.parse_vocabulary`, and an edit that leaves it
invalid is rolled back with the reason. Once annotations use a vocabulary its pages are read-only, and
"Copy as a new version" is how it changes. Annotations themselves are read-only here: they are written
only through the API, which validates them.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.options import InlineModelAdmin
from django.db import transaction
from django.http import HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html

from annotations.admin_common import LargeTableAdmin
from annotations.admin_common import ReadOnlyAdmin as _ReadOnlyAdmin
from annotations.models import (
    AttributeGroup,
    AttributeValue,
    Collection,
    CollectionMembership,
    Image,
    ObjectAnnotation,
    ObjectType,
    RelationshipAnnotation,
    RelationshipType,
    Vocabulary,
)
from annotations.selectors.vocabularies import vocabulary_document, vocabulary_in_use, vocabulary_list
from annotations.services.vocabularies import vocabulary_copy, vocabulary_mark_edited
from kernel.errors import EngineError
from kernel.vocabulary import parse_vocabulary

IN_USE_MESSAGE = (
    "Vocabulary {vocabulary} is used by annotations, so it is read-only: changing it would change what "
    'they mean. Use the action "Copy as a new version" on the vocabulary list and edit the copy.'
)


def _problem_with(vocabulary: Vocabulary) -> str | None:
    if vocabulary_in_use(vocabulary=vocabulary):
        return IN_USE_MESSAGE.format(vocabulary=vocabulary)
    try:
        parse_vocabulary(vocabulary_document(vocabulary))
    except EngineError as exc:
        return f"Not saved: the vocabulary would be invalid ({exc})."
    return None


class _Refused(Exception):
    """An admin edit that would break a vocabulary; the message says why."""


class _GuardedVocabularyPart(admin.ModelAdmin):
    """Read-only while the vocabulary is in use; every saved edit is validated as a whole."""

    def vocabulary_of(self, obj: Any) -> Vocabulary:
        raise NotImplementedError

    def _editable(self, obj: Any) -> bool:
        return obj is None or not vocabulary_in_use(vocabulary=self.vocabulary_of(obj))

    def has_change_permission(self, request, obj=None) -> bool:
        return super().has_change_permission(request, obj) and self._editable(obj)

    def has_delete_permission(self, request, obj=None) -> bool:
        return super().has_delete_permission(request, obj) and self._editable(obj)

    def get_actions(self, request):
        # Deleting many parts at once would skip the checks of delete_model; parts go one at a time.
        actions = super().get_actions(request)
        if not isinstance(self, VocabularyAdmin):
            actions.pop("delete_selected", None)
        return actions

    def change_view(self, request, object_id, form_url="", extra_context=None):
        obj = self.get_object(request, object_id)
        if obj is not None and not self._editable(obj) and request.method == "GET":
            messages.warning(request, IN_USE_MESSAGE.format(vocabulary=self.vocabulary_of(obj)))
        return super().change_view(request, object_id, form_url, extra_context)

    def save_related(self, request, form, formsets, change) -> None:
        super().save_related(request, form, formsets, change)
        self._check(self.vocabulary_of(form.instance))

    def delete_model(self, request, obj) -> None:
        vocabulary = None if isinstance(obj, Vocabulary) else self.vocabulary_of(obj)
        super().delete_model(request, obj)
        if vocabulary is not None:
            self._check(vocabulary)

    def _check(self, vocabulary: Vocabulary) -> None:
        problem = _problem_with(vocabulary)
        if problem:
            raise _Refused(problem)
        vocabulary_mark_edited(vocabulary=vocabulary)

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        return self._undo_if_refused(request, super().changeform_view, object_id, form_url, extra_context)

    def delete_view(self, request, object_id, extra_context=None):
        return self._undo_if_refused(request, super().delete_view, object_id, extra_context)

    def _undo_if_refused(self, request, view, *args):
        try:
            # Leaving the transaction with the exception undoes the whole submission, inlines included.
            with transaction.atomic():
                return view(request, *args)
        except _Refused as refused:
            messages.error(request, str(refused))
            return HttpResponseRedirect(request.get_full_path())


class _GuardedInline(InlineModelAdmin):
    """Inline rows follow their parent page: editable only while the vocabulary is unused."""

    def vocabulary_of(self, parent: Any) -> Vocabulary:
        raise NotImplementedError

    def _editable(self, parent: Any) -> bool:
        return parent is None or not vocabulary_in_use(vocabulary=self.vocabulary_of(parent))

    def has_add_permission(self, request, obj=None) -> bool:
        return super().has_add_permission(request, obj) and self._editable(obj)

    def has_change_permission(self, request, obj=None) -> bool:
        return super().has_change_permission(request, obj) and self._editable(obj)

    def has_delete_permission(self, request, obj=None) -> bool:
        return super().has_delete_permission(request, obj) and self._editable(obj)


class ObjectTypeInline(_GuardedInline, admin.TabularInline):
    model = ObjectType
    fields = ["name", "position"]
    extra = 0
    show_change_link = True

    def vocabulary_of(self, parent: Vocabulary) -> Vocabulary:
        return parent


class RelationshipTypeInline(_GuardedInline, admin.TabularInline):
    model = RelationshipType
    fields = ["name", "symmetric", "group", "phrase", "subject_types", "object_types", "position"]
    extra = 0

    def vocabulary_of(self, parent: Vocabulary) -> Vocabulary:
        return parent

    def formfield_for_manytomany(self, db_field, request, **kwargs):
        # Only the types of the vocabulary being edited make sense here.
        vocabulary_id = request.resolver_match.kwargs.get("object_id")
        kwargs["queryset"] = ObjectType.objects.filter(vocabulary_id=vocabulary_id)
        return super().formfield_for_manytomany(db_field, request, **kwargs)


@admin.register(Vocabulary)
class VocabularyAdmin(_GuardedVocabularyPart):
    list_display = ["name", "version", "description", "in_use", "created_at"]
    list_filter = ["name"]
    search_fields = ["name", "description"]
    fields = ["name", "version", "description", "regions", "created_at"]
    readonly_fields = ["version", "created_at"]
    inlines = [ObjectTypeInline, RelationshipTypeInline]
    actions = ["copy_as_new_version"]

    def vocabulary_of(self, obj: Vocabulary) -> Vocabulary:
        return obj

    def get_queryset(self, request):
        return vocabulary_list()

    def save_model(self, request, obj, form, change) -> None:
        if not change:  # a name that exists gets its next version, as an import does
            latest = Vocabulary.objects.filter(name=obj.name).order_by("-version").first()
            obj.version = latest.version + 1 if latest else 1
        super().save_model(request, obj, form, change)

    @admin.display(boolean=True, description="in use")
    def in_use(self, obj: Vocabulary) -> bool:
        return obj.in_use  # type: ignore[attr-defined]  # annotated by vocabulary_list()

    @admin.action(description="Copy as a new version")
    def copy_as_new_version(self, request, queryset):
        for vocabulary in queryset:
            copy = vocabulary_copy(vocabulary=vocabulary)
            self.message_user(request, f"Copied {vocabulary} as {copy}; edit the copy.", messages.SUCCESS)


class AttributeGroupInline(_GuardedInline, admin.TabularInline):
    model = AttributeGroup
    fields = ["name", "exclusive", "phrase", "phrases", "position"]
    extra = 0
    show_change_link = True

    def vocabulary_of(self, parent: ObjectType) -> Vocabulary:
        return parent.vocabulary


@admin.register(ObjectType)
class ObjectTypeAdmin(_GuardedVocabularyPart):
    list_display = ["name", "vocabulary", "position"]
    list_filter = ["vocabulary"]
    search_fields = ["name", "vocabulary__name"]
    inlines = [AttributeGroupInline]

    def vocabulary_of(self, obj: ObjectType) -> Vocabulary:
        return obj.vocabulary


class AttributeValueInline(_GuardedInline, admin.TabularInline):
    model = AttributeValue
    fields = ["name", "position"]
    extra = 0

    def vocabulary_of(self, parent: AttributeGroup) -> Vocabulary:
        return parent.object_type.vocabulary


@admin.register(AttributeGroup)
class AttributeGroupAdmin(_GuardedVocabularyPart):
    list_display = ["name", "object_type", "exclusive", "position"]
    list_filter = ["exclusive", "object_type__vocabulary"]
    search_fields = ["name", "object_type__name"]
    list_select_related = ["object_type"]
    inlines = [AttributeValueInline]

    def vocabulary_of(self, obj: AttributeGroup) -> Vocabulary:
        return obj.object_type.vocabulary


@admin.register(AttributeValue)
class AttributeValueAdmin(_GuardedVocabularyPart):
    list_display = ["name", "group", "position"]
    list_filter = ["group__object_type__vocabulary"]
    search_fields = ["name", "group__name"]
    list_select_related = ["group__object_type"]

    def vocabulary_of(self, obj: AttributeValue) -> Vocabulary:
        return obj.group.object_type.vocabulary


@admin.register(RelationshipType)
class RelationshipTypeAdmin(_GuardedVocabularyPart):
    list_display = ["name", "vocabulary", "symmetric", "group", "position"]
    list_filter = ["symmetric", "vocabulary"]
    search_fields = ["name", "group", "vocabulary__name"]

    def vocabulary_of(self, obj: RelationshipType) -> Vocabulary:
        return obj.vocabulary


class MembershipInline(admin.TabularInline):
    model = CollectionMembership
    fields = ["user", "role"]
    autocomplete_fields = ["user"]
    extra = 0


@admin.register(Collection)
class CollectionAdmin(admin.ModelAdmin):
    list_display = ["name", "vocabulary", "created_by", "created_at"]
    list_filter = ["vocabulary"]
    search_fields = ["name", "description"]
    readonly_fields = ["created_at", "created_by"]
    inlines = [MembershipInline]

    def save_model(self, request, obj, form, change) -> None:
        if not change:
            obj.created_by = request.user
        super().save_model(request, obj, form, change)


@admin.register(CollectionMembership)
class CollectionMembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "collection", "role", "created_at"]
    list_filter = ["role", "collection"]
    search_fields = ["user__username", "collection__name"]
    autocomplete_fields = ["user"]


# The image page's fields, in order; the workflow fields change through the queues, not here.
_IMAGE_FIELDS = (
    "collection",
    "original_name",
    "pixels",
    "content_hash",
    "width",
    "height",
    "format",
    "split",
    "stage",
    "annotator",
    "annotated_at",
    "lease_holder",
    "lease_expires_at",
    "returned",
    "review_comment",
    "reviewed_by",
    "reviewed_at",
    "uploaded_by",
    "created_at",
)


@admin.register(Image)
class ImageAdmin(LargeTableAdmin):
    list_display = [
        "original_name",
        "collection",
        "split",
        "stage",
        "annotator",
        "lease_holder",
        "created_at",
    ]
    list_filter = ["stage", "split", "returned", "collection"]
    search_fields = ["original_name", "content_hash"]
    list_select_related = ["collection", "annotator", "lease_holder"]
    # The workflow fields change through the queues; the admin may correct the split and free a lease.
    fields = _IMAGE_FIELDS
    readonly_fields = [f for f in _IMAGE_FIELDS if f not in ("split", "lease_holder", "lease_expires_at")]

    def has_add_permission(self, request) -> bool:
        return False  # images are uploaded (checked with Pillow) or imported, never typed in

    @admin.display(description="pixels")
    def pixels(self, image: Image) -> str:
        # Media files are never served publicly: link to the API view, which checks who asks.
        if not image.file:
            return "none (imported scene graph)"
        return format_html('<a href="{}">{}</a>', reverse("api:image-file", args=[image.pk]), image.file.name)


@admin.register(ObjectAnnotation)
class ObjectAnnotationAdmin(LargeTableAdmin, _ReadOnlyAdmin):
    list_display = ["image", "position", "object_type", "x", "y", "w", "h", "attributes_known"]
    list_filter = ["attributes_known", "object_type"]
    search_fields = ["image__original_name"]
    list_select_related = ["image", "object_type"]


@admin.register(RelationshipAnnotation)
class RelationshipAnnotationAdmin(LargeTableAdmin, _ReadOnlyAdmin):
    list_display = ["image", "subject", "relationship", "object"]
    list_filter = ["relationship"]
    search_fields = ["image__original_name", "relationship__name"]
    list_select_related = ["image", "relationship", "subject", "object"]


# The admin of suggestions from a model has a module of its own (this one passed 400 lines).
from annotations import admin_suggestions  # noqa: E402, F401
