"""A collection with one member per working role, for the server-rendered pages' tests."""

from __future__ import annotations

import pytest

from accounts.roles import Role
from annotations.models import MemberRole
from tests.factories import CollectionFactory, MembershipFactory


@pytest.fixture
def collection(users):
    collection = CollectionFactory(name="Street scenes")
    for role, member_role in [
        (Role.ANNOTATOR, MemberRole.ANNOTATOR),
        (Role.REVIEWER, MemberRole.REVIEWER),
        (Role.OPERATOR, MemberRole.OPERATOR),
    ]:
        MembershipFactory(collection=collection, user=users[role], role=member_role)
    return collection
