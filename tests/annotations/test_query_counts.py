"""Every list endpoint of the annotation API costs the same number of queries for 2 items as for 20."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.roles import Role
from tests.factories import (
    CollectionFactory,
    ImageFactory,
    MembershipFactory,
    UserFactory,
    VocabularyFactory,
)

pytestmark = pytest.mark.django_db

SIZES = [2, 20]


@pytest.mark.parametrize("items", SIZES)
def test_vocabulary_list(items, api, users, django_assert_num_queries):
    for _ in range(items):
        VocabularyFactory()
    client = api.as_user(users[Role.ANNOTATOR])
    # roles of the user, count, page (with "in use" as a subquery)
    with django_assert_num_queries(3):
        response = client.get("/api/v1/vocabularies/")
    assert len(response.json()["results"]) == items


@pytest.mark.parametrize("items", SIZES)
def test_collection_list(items, api, users, django_assert_num_queries):
    vocabulary = VocabularyFactory()
    for _ in range(items):
        MembershipFactory(user=users[Role.ANNOTATOR], collection=CollectionFactory(vocabulary=vocabulary))
    client = api.as_user(users[Role.ANNOTATOR])
    # roles, count, page (with the vocabulary joined)
    with django_assert_num_queries(3):
        response = client.get("/api/v1/collections/")
    assert len(response.json()["results"]) == items


@pytest.mark.parametrize("items", SIZES)
def test_member_list(items, api, users, collection, django_assert_num_queries):
    for _ in range(items):
        MembershipFactory(collection=collection, user=UserFactory())
    client = api.as_user(users[Role.OPERATOR])
    # roles, the collection (with the membership check), count, page (with the users joined)
    with django_assert_num_queries(4):
        response = client.get(f"/api/v1/collections/{collection.pk}/members/")
    assert len(response.json()["results"]) == items + 3  # and the collection fixture's three members


@pytest.mark.parametrize("items", SIZES)
def test_image_list(items, api, users, collection, django_assert_num_queries):
    later = timezone.now() + timedelta(minutes=5)
    for _ in range(items):
        ImageFactory(
            collection=collection,
            annotator=UserFactory(),
            lease_holder=UserFactory(),
            lease_expires_at=later,
            reviewed_by=UserFactory(),
        )
    client = api.as_user(users[Role.REVIEWER])
    # roles, the collection, the reader's membership role (may they read its images? annotations.routing:
    # an annotator of a crowd collection may not), count, page (annotator, lease holder, reviewer joined)
    with django_assert_num_queries(5):
        response = client.get(f"/api/v1/collections/{collection.pk}/images/?split=train&stage=annotate")
    assert len(response.json()["results"]) == items
    assert all(image["annotator"]["username"] for image in response.json()["results"])
