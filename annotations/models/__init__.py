"""The annotation app's data: vocabularies, collections and images, annotations, model suggestions
(the import jobs are the datasets app's: datasets.models)."""

from annotations.models.annotation import ObjectAnnotation, RelationshipAnnotation
from annotations.models.collections import Collection, CollectionMembership, Image, MemberRole, Split, Stage
from annotations.models.suggestions import (
    BackendAuth,
    ModelBackend,
    PreannotationJob,
    Prediction,
    PredictionStatus,
)
from annotations.models.vocabularies import (
    AttributeGroup,
    AttributeValue,
    ObjectType,
    RelationshipType,
    Vocabulary,
)

__all__ = [
    "AttributeGroup",
    "AttributeValue",
    "BackendAuth",
    "Collection",
    "CollectionMembership",
    "Image",
    "MemberRole",
    "ModelBackend",
    "ObjectAnnotation",
    "ObjectType",
    "PreannotationJob",
    "Prediction",
    "PredictionStatus",
    "RelationshipAnnotation",
    "RelationshipType",
    "Split",
    "Stage",
    "Vocabulary",
]
