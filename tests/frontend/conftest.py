"""A collection with one member per working role, for the server-rendered pages' tests; the truthing
fixtures (a fitted collection, tests on it, operators) for the truthing pages'; scored vision systems for
the evaluation pages'."""

from __future__ import annotations

import pytest

from accounts.roles import Role
from annotations.models import MemberRole
from tests.evaluation.conftest import scored_world  # noqa: F401 (the evaluation pages' tests use it)
from tests.factories import CollectionFactory, MembershipFactory
from tests.truthing.conftest import (  # noqa: F401 (the truthing pages' tests use these fixtures)
    annotated_test_images,
    make_test,
    no_checks_unless_asked,
    operators,
    statistics,
    unannotated_test_images,
)


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
