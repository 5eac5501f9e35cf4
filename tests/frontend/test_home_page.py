"""The home page lists the collections a user works on, with progress, and only the actions the user's
role allows."""

from __future__ import annotations

import re

import pytest

from accounts.roles import Role
from annotations.models import Split, Stage
from tests.factories import CollectionFactory, ImageFactory

pytestmark = pytest.mark.django_db

ACTIONS = {
    "annotate": b'data-testid="annotate-next"',
    "review": b'data-testid="review-next"',
    "upload": b"Upload images",
    "import": b"Import scene graphs",
    "export": b"/export/jsonl/",
}


def home(client, user) -> bytes:
    client.force_login(user)
    response = client.get("/")
    assert response.status_code == 200
    return response.content


def shown_actions(content: bytes) -> set[str]:
    return {action for action, marker in ACTIONS.items() if marker in content}


@pytest.mark.parametrize(
    ("role", "expected"),
    [
        (Role.ANNOTATOR, {"annotate", "upload", "export"}),
        (Role.REVIEWER, {"review", "upload", "import", "export"}),
        (Role.OPERATOR, {"export"}),
    ],
)
def test_each_role_sees_its_collection_and_only_its_actions(client, users, collection, role, expected):
    content = home(client, users[role])
    assert b"Street scenes" in content
    assert shown_actions(content) == expected


def test_collections_of_others_are_not_listed_but_an_admin_sees_all(client, users, collection):
    other = CollectionFactory(name="Somebody else's")
    annotator = home(client, users[Role.ANNOTATOR])
    assert b"Street scenes" in annotator and other.name.encode() not in annotator
    admin = home(client, users[Role.ADMIN])
    assert b"Street scenes" in admin and b"Somebody else&#x27;s" in admin
    assert shown_actions(admin) == set(ACTIONS)
    # A vision-system owner works on no collection: none is shown, whatever exists.
    assert shown_actions(home(client, users[Role.VISION_SYSTEM_OWNER])) == set()


def test_progress_is_counted_per_split(client, users, collection):
    ImageFactory.create_batch(3, collection=collection)
    ImageFactory(collection=collection, stage=Stage.REVIEW, annotated_at="2026-01-01T00:00Z")
    ImageFactory.create_batch(2, collection=collection, split=Split.TEST, stage=Stage.ACCEPTED)
    content = home(client, users[Role.ANNOTATOR]).decode()

    def row(split: str) -> dict[str, int]:
        cells = re.search(rf'<tr data-split="{split}">(.*?)</tr>', content, re.S).group(1)
        return {stage: int(count) for stage, count in re.findall(r'data-stage="(\w+)">(\d+)<', cells)}

    assert row("all") == {"new": 3, "in_annotation": 0, "in_review": 1, "accepted": 2}
    assert row("train") == {"new": 3, "in_annotation": 0, "in_review": 1, "accepted": 0}
    assert row("test") == {"new": 0, "in_annotation": 0, "in_review": 0, "accepted": 2}


def test_the_home_page_costs_the_same_queries_for_one_or_five_collections(client, make_user):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    admin_user = make_user(Role.ADMIN)
    client.force_login(admin_user)
    first = CollectionFactory()
    ImageFactory(collection=first)
    client.get("/")
    with CaptureQueriesContext(connection) as one:
        assert client.get("/").status_code == 200
    others = [CollectionFactory(vocabulary=first.vocabulary) for _ in range(4)]
    for collection in others:
        ImageFactory(collection=collection)
    with CaptureQueriesContext(connection) as five:
        page = client.get("/").content.decode()
    assert all(collection.name in page for collection in [first, *others])
    assert len(five.captured_queries) == len(one.captured_queries)


def test_a_member_without_the_role_sees_the_collection_and_what_role_is_missing(client, make_user):
    """Issue 46, item 11: a user an admin added to a collection as annotator, but to no role group,
    saw "Your roles: none yet" and no collection, though the collection's address opened."""
    from annotations.models import MemberRole
    from tests.factories import MembershipFactory

    user = make_user(None, username="newcomer")
    collection = CollectionFactory(name="Harbour")
    MembershipFactory(collection=collection, user=user, role=MemberRole.ANNOTATOR)

    content = home(client, user).decode()

    assert f'href="/collections/{collection.pk}/"' in content
    said = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", content))
    missing = re.search(r'data-testid="role-missing"[^>]*>(.*?)</', content, re.S)
    assert missing, said
    assert "Harbour" in said and "annotator role" in said and "ask an admin" in said
