"""Reads of vocabularies: lists, the JSON document, and the engine-core form used for validation."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Exists, OuterRef, Prefetch, QuerySet

from annotations.errors import AnnotationErrorCode
from annotations.models import AttributeGroup, Image, ObjectType, RelationshipType, Vocabulary
from kernel.vocabulary import AttributeGroup as CoreAttributeGroup
from kernel.vocabulary import ObjectType as CoreObjectType
from kernel.vocabulary import RelationshipType as CoreRelationshipType
from kernel.vocabulary import Vocabulary as CoreVocabulary
from kernel.vocabulary import build_vocabulary
from vtt_site.cache import BoundedCache
from vtt_site.errors import NotFoundError


def _annotated_images(vocabulary_ref: Any) -> QuerySet[Image]:
    return Image.objects.filter(collection__vocabulary=vocabulary_ref, annotated_at__isnull=False)


def vocabulary_list() -> QuerySet[Vocabulary]:
    return Vocabulary.objects.annotate(in_use=Exists(_annotated_images(OuterRef("pk")))).order_by(
        "name", "-version"
    )


def vocabulary_get(*, vocabulary_id: int) -> Vocabulary:
    vocabulary = vocabulary_list().filter(pk=vocabulary_id).first()
    if vocabulary is None:
        raise NotFoundError(
            AnnotationErrorCode.VOCABULARY_NOT_FOUND, f"There is no vocabulary {vocabulary_id}."
        )
    return vocabulary


def vocabulary_in_use(*, vocabulary: Vocabulary) -> bool:
    """In use: an image of one of its collections has an annotation, which names its types and values."""
    return _annotated_images(vocabulary).exists()


def vocabulary_document(vocabulary: Vocabulary) -> dict[str, Any]:
    """The vocabulary as the JSON document of docs/method.md section 9 (the core's `to_document` is the one
    writer of that format)."""
    return core_vocabulary(vocabulary).to_document()


def _core_vocabulary_from_rows(vocabulary: Vocabulary) -> CoreVocabulary:
    """The engine-core vocabulary built straight from the rows (six queries, whatever its size) and
    checked as a whole by the core (`build_vocabulary`): after an admin edit the rows may break a rule,
    and the core says which."""
    groups = AttributeGroup.objects.prefetch_related("values")
    types = ObjectType.objects.filter(vocabulary=vocabulary).prefetch_related(Prefetch("groups", groups))
    relationships = RelationshipType.objects.filter(vocabulary=vocabulary).prefetch_related(
        "subject_types", "object_types"
    )
    return build_vocabulary(
        name=vocabulary.name,
        description=vocabulary.description,
        types=tuple(CoreObjectType(t.name, tuple(_core_group(g) for g in t.groups.all())) for t in types),
        relationships=tuple(_core_relationship(r) for r in relationships),
        regions=vocabulary.regions,
    )


def _core_group(group: AttributeGroup) -> CoreAttributeGroup:
    values = tuple(value.name for value in group.values.all())
    return CoreAttributeGroup(group.name, group.exclusive, values, group.phrase, dict(group.phrases or {}))


def _core_relationship(relationship: RelationshipType) -> CoreRelationshipType:
    return CoreRelationshipType(
        name=relationship.name,
        subject_types=frozenset(t.name for t in relationship.subject_types.all()),
        object_types=frozenset(t.name for t in relationship.object_types.all()),
        symmetric=relationship.symmetric,
        group=relationship.group or relationship.name,
        phrase=relationship.phrase or relationship.name,
    )


@dataclass(frozen=True)
class VocabularyIndex:
    """The engine-core vocabulary with the row ids its names stand for."""

    core: CoreVocabulary
    type_ids: dict[str, int]
    type_names: dict[int, str]
    relationship_ids: dict[str, int]
    relationship_names: dict[int, str]


# A worker or web process rarely sees more than a few vocabularies (and revisions) at once.
_indices: BoundedCache[VocabularyIndex] = BoundedCache(16)


def vocabulary_index(vocabulary: Vocabulary) -> VocabularyIndex:
    """Built once per process and vocabulary revision: every annotation save validates against it. The
    revision (bumped by every edit) keeps an edited vocabulary from being served stale, and the creation
    time keeps a deleted vocabulary's reused id (SQLite reuses the highest id) from matching."""
    key = (vocabulary.pk, vocabulary.revision, vocabulary.created_at)
    return _indices.get_or_build(key, lambda: _build_index(vocabulary))


def core_vocabulary(vocabulary: Vocabulary) -> CoreVocabulary:
    return vocabulary_index(vocabulary).core


def _build_index(vocabulary: Vocabulary) -> VocabularyIndex:
    core = _core_vocabulary_from_rows(vocabulary)
    type_ids = dict(ObjectType.objects.filter(vocabulary=vocabulary).values_list("name", "id"))
    relationship_ids = dict(RelationshipType.objects.filter(vocabulary=vocabulary).values_list("name", "id"))
    return VocabularyIndex(
        core=core,
        type_ids=type_ids,
        type_names={pk: name for name, pk in type_ids.items()},
        relationship_ids=relationship_ids,
        relationship_names={pk: name for name, pk in relationship_ids.items()},
    )
