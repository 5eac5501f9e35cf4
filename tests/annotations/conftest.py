"""Fixtures of the annotation tests: a collection of the default vocabulary whose members are the
users of the `users` fixture (one per role), plus a second annotator and a second reviewer."""

from __future__ import annotations

import pytest

from accounts.roles import Role

# Django-dependent imports are made inside the fixtures, so that importing this file needs no Django.


@pytest.fixture
def collection(users):
    from annotations.models import MemberRole
    from tests.factories import CollectionFactory, MembershipFactory

    collection = CollectionFactory()
    for role, member_role in [
        (Role.ANNOTATOR, MemberRole.ANNOTATOR),
        (Role.REVIEWER, MemberRole.REVIEWER),
        (Role.OPERATOR, MemberRole.OPERATOR),
    ]:
        MembershipFactory(collection=collection, user=users[role], role=member_role)
    return collection


@pytest.fixture
def annotator(users):
    return users[Role.ANNOTATOR]


@pytest.fixture
def reviewer(users):
    return users[Role.REVIEWER]


@pytest.fixture
def other_annotator(collection):
    from annotations.models import MemberRole
    from tests.factories import MembershipFactory, UserFactory

    user = UserFactory(role=Role.ANNOTATOR, username="annotator-2")
    MembershipFactory(collection=collection, user=user, role=MemberRole.ANNOTATOR)
    return user


@pytest.fixture
def other_reviewer(collection):
    from annotations.models import MemberRole
    from tests.factories import MembershipFactory, UserFactory

    user = UserFactory(role=Role.REVIEWER, username="reviewer-2")
    MembershipFactory(collection=collection, user=user, role=MemberRole.REVIEWER)
    return user


@pytest.fixture
def outsider(db):
    """An annotator who is not a member of the collection."""
    from tests.factories import UserFactory

    return UserFactory(role=Role.ANNOTATOR, username="outsider")


SCENE = {
    "objects": [
        {
            "id": "a",
            "type": "person",
            "bbox": [10, 20, 30, 60],
            "attributes": ["walking", "female", "adult", "on sidewalk"],
            "attributes_known": True,
        },
        {"id": "b", "type": "person", "bbox": [100, 20, 30, 60], "attributes": [], "attributes_known": False},
        {
            "id": "c",
            "type": "vehicle",
            "bbox": [200, 100, 150, 80],
            "attributes": ["car", "parked", "light-colored", "two"],
            "attributes_known": True,
        },
    ],
    "relationships": [
        {"subject": "a", "predicate": "talking", "object": "b"},
        {"subject": "a", "predicate": "closer than", "object": "c"},
    ],
}


@pytest.fixture
def leased_image(collection, annotator):
    """An image of the collection in the annotation queue, leased to the annotator."""
    from annotations.services.queues import annotation_next
    from tests.factories import ImageFactory

    image = ImageFactory(collection=collection)
    assert annotation_next(collection=collection, user=annotator) == image
    image.refresh_from_db()
    return image
