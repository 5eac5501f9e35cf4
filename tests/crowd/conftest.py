"""Fixtures of the crowd tests: a collection of the default vocabulary drawn by three annotators per
image, its reviewer, and helpers that draw a person box."""

from __future__ import annotations

import pytest

from accounts.roles import Role
from tests.annotations.conftest import annotator, collection, reviewer  # noqa: F401 (shared with annotations)


def person(x: float, y: float, w: float = 40, h: float = 90, *attributes: str) -> dict:
    """A person box; without attributes its attributes are unknown, which a submit accepts."""
    return {
        "type": "person",
        "bbox": [x, y, w, h],
        "attributes": list(attributes),
        "attributes_known": bool(attributes),
    }


def drawing(*objects: dict, relationships: list | None = None) -> dict:
    """A document to save, its objects numbered o1..oN in order."""
    numbered = [{"id": f"o{n + 1}"} | obj for n, obj in enumerate(objects)]
    return {"objects": numbered, "relationships": relationships or []}


@pytest.fixture
def crowd(db, users):
    """A collection whose images three annotators draw each, with four annotators and a reviewer."""
    from annotations.models import MemberRole
    from crowd.services.settings import crowd_settings_update
    from tests.factories import CollectionFactory, MembershipFactory, UserFactory

    crowd_collection = CollectionFactory()
    MembershipFactory(collection=crowd_collection, user=users[Role.REVIEWER], role=MemberRole.REVIEWER)
    for n in range(4):
        user = UserFactory(role=Role.ANNOTATOR, username=f"crowd-{n}")
        MembershipFactory(collection=crowd_collection, user=user, role=MemberRole.ANNOTATOR)
    crowd_settings_update(collection=crowd_collection, values={"overlap": 3, "gold_rate": 0.0})
    return crowd_collection


@pytest.fixture
def annotators(crowd):
    from django.contrib.auth import get_user_model

    return list(get_user_model().objects.filter(username__startswith="crowd-").order_by("username"))


def work_through(crowd_collection, users_and_drawings) -> list:
    """Each (user, drawing) in turn takes the next image, saves the drawing and submits it; the copies."""
    from django.test import TestCase

    from crowd.services.copies import copy_save, copy_submit
    from crowd.services.queue import copy_next

    done = []
    for user, document in users_and_drawings:
        copy = copy_next(collection=crowd_collection, user=user)
        copy_save(copy=copy, user=user, document=document)
        # What runs once the submit commits (a gold copy's score) runs here, inside the test's transaction.
        with TestCase.captureOnCommitCallbacks(execute=True):
            done.append(copy_submit(copy=copy, user=user))
    return done
