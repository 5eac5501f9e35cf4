"""Each page a person opens costs as many queries on a collection (and a test) of 1,000 images as on one
of 10 (issue 51, point 3): a query per row would be 990 more on the big one. Their time on a collection
of Visual Genome's size is benchmarks.pages_speed's."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.roles import Role
from annotations.admin import ImageAdmin, ObjectAnnotationAdmin
from annotations.models import Image, MemberRole
from annotations.services.queues import image_leave
from evaluation.services.systems import system_create
from frontend.views import truthing as truthing_views
from tests.factories import CollectionFactory, MembershipFactory
from tests.page_worlds import STAGES, bulk_images, bulk_test, scored_session

pytestmark = pytest.mark.django_db

SIZES = (10, 1000)
SYSTEMS = 2  # scored sessions on each test's leaderboard
ANSWERED = 4  # questions each system answered before its session was closed


@dataclass(frozen=True)
class World:
    collection: int
    test: int


@dataclass(frozen=True)
class Page:
    role: Role
    method: str
    path: Callable[[World], str]


PAGES = {
    "collection page": Page(Role.ANNOTATOR, "get", lambda w: f"/collections/{w.collection}/"),
    "annotate next": Page(Role.ANNOTATOR, "post", lambda w: f"/collections/{w.collection}/annotate/next/"),
    "review next": Page(Role.REVIEWER, "post", lambda w: f"/collections/{w.collection}/review/next/"),
    "review queue": Page(Role.REVIEWER, "get", lambda w: f"/collections/{w.collection}/?stage=review"),
    "admin: images": Page(Role.ADMIN, "get", lambda w: "/admin/annotations/image/"),
    "admin: objects": Page(Role.ADMIN, "get", lambda w: "/admin/annotations/objectannotation/"),
    "test card": Page(Role.ADMIN, "get", lambda w: f"/tests/{w.test}/"),
    "leaderboard": Page(Role.VISION_SYSTEM_OWNER, "get", lambda w: f"/leaderboards/{w.test}/"),
}


def world(users, size: int) -> World:
    """A collection of `size` images (stages in turn, three boxes each) and a published test of `size`
    images with SYSTEMS scored sessions."""
    collection = CollectionFactory(name=f"{size} images")
    for role in (Role.ANNOTATOR, Role.REVIEWER):
        MembershipFactory(collection=collection, user=users[role], role=MemberRole(role.value))
    images = bulk_images(
        collection,
        size,
        annotator=users[Role.OPERATOR],
        reviewer=users[Role.ADMIN],
        holder=users[Role.OPERATOR],
    )
    test = bulk_test(images, name=f"test of {size}")
    for number in range(SYSTEMS):
        system = system_create(owner=users[Role.VISION_SYSTEM_OWNER], name=f"system {size}-{number}")
        scored_session(system, test, questions=ANSWERED)
    return World(collection=collection.pk, test=test.pk)


def queries(client, users, page: Page, place: World) -> list[str]:
    """The page's queries; a page that takes an image gives it back after (so each request takes one)."""
    client.force_login(users[page.role])
    with CaptureQueriesContext(connection) as captured:
        response = getattr(client, page.method)(page.path(place))
    if page.method == "post":  # an image was taken: the page goes to it, not back to the collection
        assert response.status_code == 302 and "/images/" in response["Location"], (page, response)
    else:
        assert response.status_code == 200, (page, response.status_code)
    for image in Image.objects.filter(lease_holder=users[page.role]):
        image_leave(image=image, user=users[page.role])
    return [query["sql"] for query in captured.captured_queries]


def counts(client, users, place: World) -> dict[str, list[str]]:
    return {name: queries(client, users, page, place) for name, page in PAGES.items()}


def test_each_page_costs_as_many_queries_for_1000_images_as_for_10(client, users, monkeypatch):
    # Lists of more than a page in both worlds (a list of one page is read in one query, not two).
    for model_admin in (ImageAdmin, ObjectAnnotationAdmin):
        monkeypatch.setattr(model_admin, "list_per_page", 5)
    # The per-process caches filled first, on a world of its own, as on a serving process; what is
    # cached per collection or test is then read once in each world alike.
    counts(client, users, world(users, len(STAGES)))
    # One world, then the other beside it: the admin's lists show every collection's rows.
    small = counts(client, users, world(users, SIZES[0]))
    big = counts(client, users, world(users, SIZES[1]))
    grown = {name: (len(small[name]), len(big[name])) for name in PAGES if len(small[name]) != len(big[name])}
    assert not grown, f"queries for {SIZES[0]} and {SIZES[1]} images: {grown}"


def test_the_test_card_lists_as_many_pools_and_streams_as_it_shows(client, users, monkeypatch):
    """A 1,000-image test's card listed its 1,000 pools: it shows those of its first CARD_STREAMS."""
    monkeypatch.setattr(truthing_views, "CARD_STREAMS", 3)
    place = world(users, 5)
    client.force_login(users[Role.ADMIN])
    html = client.get(f"/tests/{place.test}/").content.decode()
    assert html.count("data-pool=") == 3
    assert "The pools of the first 3 of 5 images" in html
