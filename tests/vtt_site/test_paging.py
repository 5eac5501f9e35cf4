"""vtt_site.paging: a big table's list is counted from PostgreSQL's estimate, a filtered one exactly up
to a bound, a small one exactly; the admin's image list says the estimate."""

from __future__ import annotations

import pytest
from django.core.paginator import Paginator
from django.db import connection

from accounts.roles import Role
from annotations.models import Image
from tests.factories import CollectionFactory
from tests.page_worlds import bulk_images
from vtt_site import paging
from vtt_site.paging import IdsFirstPaginator, quick_count

pytestmark = pytest.mark.django_db


@pytest.fixture
def images():
    collection = CollectionFactory()
    bulk_images(collection, 30)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE annotations_image")
    return Image.objects.filter(collection=collection)


def test_a_small_table_is_counted(images, django_assert_num_queries):
    with django_assert_num_queries(2):  # the estimate, then the count it is too small for
        assert quick_count(Image.objects.all()) == 30


def test_a_big_table_is_estimated_without_counting(images, monkeypatch, django_assert_num_queries):
    monkeypatch.setattr(paging, "ESTIMATE_FROM", 10)
    with connection.cursor() as cursor:  # what the estimate says, made to differ from the rows
        cursor.execute("UPDATE pg_class SET reltuples = 123456 WHERE oid = 'annotations_image'::regclass")
    with django_assert_num_queries(1):
        assert quick_count(Image.objects.all()) == 123456


def test_a_filtered_list_is_counted_up_to_the_bound_then_planned(images, monkeypatch):
    assert quick_count(images.filter(stage="review")) == 10
    monkeypatch.setattr(paging, "COUNT_UP_TO", 5)
    estimated = quick_count(images.filter(stage="review"))
    assert estimated >= 6  # more than the bound: the planner's figure, never fewer than it counted


def test_the_admin_image_list_says_the_estimate(images, client, users, monkeypatch):
    monkeypatch.setattr(paging, "ESTIMATE_FROM", 10)
    with connection.cursor() as cursor:
        cursor.execute("UPDATE pg_class SET reltuples = 123456 WHERE oid = 'annotations_image'::regclass")
    client.force_login(users[Role.ADMIN])
    html = client.get("/admin/annotations/image/").content.decode()
    assert "123456 images" in html or "123,456 images" in html


def test_pages_read_ids_first_hold_the_rows_a_plain_page_holds(images):
    ordered = images.order_by("-id")
    plain, ids_first = Paginator(ordered, 7), IdsFirstPaginator(ordered, 7)
    assert ids_first.num_pages == plain.num_pages == 5
    for number in plain.page_range:
        assert list(ids_first.page(number)) == list(plain.page(number))


def test_a_count_the_caller_knows_is_not_asked_again(images, django_assert_num_queries):
    paginator = IdsFirstPaginator(images.order_by("id"), 7, count=30)
    with django_assert_num_queries(2):  # the page's ids, then its rows: no COUNT
        page = paginator.get_page(5)
    assert len(page) == 2
