"""factory_boy factories shared by the tests."""

from __future__ import annotations

import json
from pathlib import Path

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from accounts.roles import Role

PASSWORD = "correct horse battery staple"


class UserFactory(factory.django.DjangoModelFactory):
    """`UserFactory(role=Role.ANNOTATOR)`: a user in that role's group (admins are also staff)."""

    class Meta:
        model = get_user_model()
        django_get_or_create = ("username",)
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password(PASSWORD)

    @classmethod
    def _create(cls, model_class, *args, role: Role | None = None, **kwargs):
        if role == Role.ADMIN:
            kwargs["is_staff"] = True
        user = super()._create(model_class, *args, **kwargs)
        if role is not None:
            user.groups.add(Group.objects.get_or_create(name=role.value)[0])
        return user


# --- annotations ----------------------------------------------------------------------------------------

DEFAULT_VOCABULARY = (
    Path(__file__).resolve().parent.parent / "annotations" / "vocabularies" / "urban-street.json"
)


def vocabulary_document(**changes) -> dict:
    """The shipped urban-street document, with top-level keys replaced."""
    return json.loads(DEFAULT_VOCABULARY.read_text()) | changes


class VocabularyFactory(factory.django.DjangoModelFactory):
    """`VocabularyFactory()`: the urban-street vocabulary under a fresh name, stored by the import service."""

    class Meta:
        model = "annotations.Vocabulary"

    name = factory.Sequence(lambda n: f"vocabulary-{n}")

    @classmethod
    def _create(cls, model_class, *args, name: str, document: dict | None = None, **kwargs):
        # Imported when used: this module is imported by conftest.py, before any model may be.
        from annotations.services.vocabularies import vocabulary_import

        return vocabulary_import(document=(document or vocabulary_document()) | {"name": name})


class CollectionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = "annotations.Collection"

    name = factory.Sequence(lambda n: f"collection-{n}")
    vocabulary = factory.SubFactory(VocabularyFactory)


class MembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = "annotations.CollectionMembership"

    collection = factory.SubFactory(CollectionFactory)
    user = factory.SubFactory(UserFactory)
    role = "annotator"


class ImageFactory(factory.django.DjangoModelFactory):
    """An image row without pixels (like an imported scene graph's); upload real files through the service."""

    class Meta:
        model = "annotations.Image"

    collection = factory.SubFactory(CollectionFactory)
    original_name = factory.Sequence(lambda n: f"image-{n:05d}.png")
    width = 640
    height = 480


class PredictionFactory(factory.django.DjangoModelFactory):
    """`PredictionFactory(image=..., type="person", bbox=[x, y, w, h])`: a model's suggestion, stored as
    the server side would store what a model server answered (decision 0078)."""

    class Meta:
        model = "annotations.Prediction"

    image = factory.SubFactory(ImageFactory)
    model_version = "v3"
    x, y, w, h = 10.0, 20.0, 30.0, 60.0
    attributes = factory.LazyFunction(list)
    score = 0.9

    @classmethod
    def _create(cls, model_class, *args, type: str = "person", bbox=None, **kwargs):
        from annotations.models import ObjectType

        image = kwargs["image"]
        kwargs["object_type"] = ObjectType.objects.get(vocabulary=image.collection.vocabulary_id, name=type)
        if bbox is not None:
            kwargs.update(zip("xywh", map(float, bbox), strict=True))
        return super()._create(model_class, *args, **kwargs)


def model_backend(collection, **fields):
    """The collection connected to a model server (only the row: nothing here talks to it)."""
    from annotations.models import ModelBackend

    return ModelBackend.objects.create(
        collection=collection, url="http://127.0.0.1:9/", model_version="v3", **fields
    )
