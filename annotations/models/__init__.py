"""The annotation app's data: vocabularies, collections and images, annotations, import jobs."""

from annotations.models.annotation import ObjectAnnotation, RelationshipAnnotation
from annotations.models.collections import Collection, CollectionMembership, Image, MemberRole, Split, Stage
from annotations.models.imports import AcceptedImages, ImportJob, SceneFormat
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
    "AcceptedImages",
    "AttributeGroup",
    "AttributeValue",
    "BackendAuth",
    "Collection",
    "CollectionMembership",
    "Image",
    "ImportJob",
    "MemberRole",
    "ModelBackend",
    "ObjectAnnotation",
    "ObjectType",
    "PreannotationJob",
    "Prediction",
    "PredictionStatus",
    "RelationshipAnnotation",
    "RelationshipType",
    "SceneFormat",
    "Split",
    "Stage",
    "Vocabulary",
]
