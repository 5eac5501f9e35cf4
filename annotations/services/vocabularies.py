"""Writes of vocabularies: import a document, edit one nobody has used yet, copy one as a new version.

A vocabulary that annotations already use is never edited in place (its types and values are what the
stored annotations mean); a change to it is a new version of the same name.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.db import IntegrityError, transaction
from django.db.models import ProtectedError

from annotations.errors import AnnotationErrorCode
from annotations.models import AttributeGroup, AttributeValue, Image, ObjectType, RelationshipType, Vocabulary
from annotations.selectors.vocabularies import core_vocabulary, vocabulary_document, vocabulary_in_use
from kernel.vocabulary import Vocabulary as CoreVocabulary
from kernel.vocabulary import parse_vocabulary
from vtt_site.errors import ApplicationError, ConflictError

DEFAULT_VOCABULARY = Path(__file__).resolve().parent.parent / "vocabularies" / "urban-street.json"


@transaction.atomic
def vocabulary_import(*, document: Any) -> Vocabulary:
    """Validate a docs/method.md section 9 document and store it; a name that exists gets the next version."""
    core = parse_vocabulary(document)
    # Locking the latest version makes concurrent imports of one name take turns for the next number.
    latest = Vocabulary.objects.select_for_update().filter(name=core.name).order_by("-version").first()
    try:
        with transaction.atomic():
            vocabulary = Vocabulary.objects.create(
                name=core.name,
                version=latest.version + 1 if latest else 1,
                description=core.description,
                regions=_regions_json(core),
            )
    except IntegrityError:
        raise ConflictError(
            AnnotationErrorCode.VOCABULARY_VERSION_TAKEN,
            f"Another import of vocabulary {core.name!r} finished at the same moment; send it again.",
        ) from None
    _write_rows(vocabulary, core)
    return vocabulary


@transaction.atomic
def vocabulary_update(*, vocabulary: Vocabulary, document: Any) -> Vocabulary:
    """Replace the content of a vocabulary that no annotation uses yet (409 otherwise)."""
    locked = Vocabulary.objects.select_for_update().get(pk=vocabulary.pk)
    _refuse_if_in_use(locked)
    core = parse_vocabulary(document)
    if core.name != locked.name:
        raise ApplicationError(
            AnnotationErrorCode.VOCABULARY_RENAMED,
            f"This is vocabulary {locked.name!r}; a document named {core.name!r} is a new vocabulary: "
            "create it instead of updating this one.",
            fields={"name": [f"Must be {locked.name!r}."]},
        )
    try:
        with transaction.atomic():
            locked.relationships.all().delete()
            locked.types.all().delete()
    except ProtectedError:
        # An annotation was saved between the check above and the delete.
        _refuse_if_in_use(locked, force=True)
    locked.description = core.description
    locked.regions = _regions_json(core)
    locked.revision += 1
    locked.save(update_fields=["description", "regions", "revision"])
    _write_rows(locked, core)
    return locked


def vocabulary_copy(*, vocabulary: Vocabulary) -> Vocabulary:
    """The same content as the next version of the name: how a vocabulary in use gets edited."""
    return vocabulary_import(document=vocabulary_document(vocabulary))


@transaction.atomic
def vocabulary_install_default(*, path: Path = DEFAULT_VOCABULARY) -> tuple[Vocabulary, bool]:
    """Install the shipped urban-street vocabulary unless its latest version says the same already. A
    shipped document that changed (a value added) becomes the next version of the name: collections and
    annotations keep the version they use, new collections get the new one (decision 0002)."""
    shipped = parse_vocabulary(json.loads(path.read_text(encoding="utf-8")))
    existing = Vocabulary.objects.filter(name=shipped.name).order_by("-version").first()
    if existing is not None and core_vocabulary(existing) == shipped:
        return existing, False
    return vocabulary_import(document=shipped.to_document()), True


def vocabulary_mark_edited(*, vocabulary: Vocabulary) -> None:
    """Record an edit made outside these services (the admin's inlines), so caches rebuild."""
    Vocabulary.objects.filter(pk=vocabulary.pk).update(revision=vocabulary.revision + 1)
    vocabulary.revision += 1


def _refuse_if_in_use(vocabulary: Vocabulary, force: bool = False) -> None:
    if not force and not vocabulary_in_use(vocabulary=vocabulary):
        return
    names = sorted(
        Image.objects.filter(collection__vocabulary=vocabulary, annotated_at__isnull=False)
        .values_list("collection__name", flat=True)
        .distinct()
    )
    raise ConflictError(
        AnnotationErrorCode.VOCABULARY_IN_USE,
        f"Vocabulary {vocabulary} is used by annotations in {', '.join(map(repr, names)) or 'a collection'}, "
        "so it cannot change. Import the changed document as a new version (same name) instead.",
    )


def _regions_json(core: CoreVocabulary) -> Any:
    if core.regions_spec == "default":
        return "default"
    return [{"id": region.id, "box": list(region.box)} for region in core.regions]


def _write_rows(vocabulary: Vocabulary, core: CoreVocabulary) -> None:
    types = ObjectType.objects.bulk_create(
        ObjectType(vocabulary=vocabulary, name=t.name, position=i) for i, t in enumerate(core.types)
    )
    type_of = {t.name: t for t in types}
    groups = []
    for object_type in core.types:
        for position, group in enumerate(object_type.groups):
            groups.append(
                AttributeGroup(
                    object_type=type_of[object_type.name],
                    name=group.name,
                    exclusive=group.exclusive,
                    phrase=group.phrase,
                    phrases=dict(group.phrases),
                    position=position,
                )
            )
    groups = AttributeGroup.objects.bulk_create(groups)
    core_groups = [group for object_type in core.types for group in object_type.groups]
    AttributeValue.objects.bulk_create(
        AttributeValue(group=row, name=value, position=position)
        for row, group in zip(groups, core_groups, strict=True)
        for position, value in enumerate(group.values)
    )
    _write_relationships(vocabulary, core, type_of)


def _write_relationships(
    vocabulary: Vocabulary, core: CoreVocabulary, type_of: dict[str, ObjectType]
) -> None:
    rows = RelationshipType.objects.bulk_create(
        RelationshipType(
            vocabulary=vocabulary,
            name=r.name,
            symmetric=r.symmetric,
            group=r.group,
            phrase=r.phrase,
            position=position,
        )
        for position, r in enumerate(core.relationships)
    )
    order = {t.name: i for i, t in enumerate(core.types)}
    subjects, objects = RelationshipType.subject_types.through, RelationshipType.object_types.through
    subjects.objects.bulk_create(
        subjects(relationshiptype=row, objecttype=type_of[name])
        for row, r in zip(rows, core.relationships, strict=True)
        for name in sorted(r.subject_types, key=order.__getitem__)
    )
    objects.objects.bulk_create(
        objects(relationshiptype=row, objecttype=type_of[name])
        for row, r in zip(rows, core.relationships, strict=True)
        for name in sorted(r.object_types, key=order.__getitem__)
    )
