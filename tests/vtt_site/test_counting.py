"""vtt_site.counting: a big table's list is counted from PostgreSQL's estimate, a filtered one exactly up
to a bound, a small one exactly; the admin's image list says the estimate."""

from __future__ import annotations

import pytest
from django.db import connection

from accounts.roles import Role
from annotations.models import Image
from tests.factories import CollectionFactory
from tests.page_worlds import bulk_images
from vtt_site import counting
from vtt_site.counting import quick_count

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
    monkeypatch.setattr(counting, "ESTIMATE_FROM", 10)
    with connection.cursor() as cursor:  # what the estimate says, made to differ from the rows
        cursor.execute("UPDATE pg_class SET reltuples = 123456 WHERE oid = 'annotations_image'::regclass")
    with django_assert_num_queries(1):
        assert quick_count(Image.objects.all()) == 123456


def test_a_filtered_list_is_counted_up_to_the_bound_then_planned(images, monkeypatch):
    assert quick_count(images.filter(stage="review")) == 10
    monkeypatch.setattr(counting, "COUNT_UP_TO", 5)
    estimated = quick_count(images.filter(stage="review"))
    assert estimated >= 6  # more than the bound: the planner's figure, never fewer than it counted


def test_the_admin_image_list_says_the_estimate(images, client, users, monkeypatch):
    monkeypatch.setattr(counting, "ESTIMATE_FROM", 10)
    with connection.cursor() as cursor:
        cursor.execute("UPDATE pg_class SET reltuples = 123456 WHERE oid = 'annotations_image'::regclass")
    client.force_login(users[Role.ADMIN])
    html = client.get("/admin/annotations/image/").content.decode()
    assert "123456 images" in html or "123,456 images" in html
