"""The tests' flush (tests/fast_flush.py, decision 0102) empties every table as Django's TRUNCATE does,
and every foreign key it relies on is deferrable."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connection

from tests.factories import CollectionFactory, ImageFactory, MembershipFactory, UserFactory
from tests.fast_flush import deleting_sql_flush

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_flush_deletes_and_leaves_every_table_empty():
    assert connection.ops.sql_flush.__func__ is deleting_sql_flush
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    statements = connection.ops.sql_flush(no_style(), tables)
    assert [t for t in tables if not any(connection.ops.quote_name(t) in s for s in statements)] == []
    collection = CollectionFactory()
    MembershipFactory(collection=collection, user=UserFactory())
    ImageFactory(collection=collection)
    call_command("flush", verbosity=0, interactive=False, inhibit_post_migrate=True)
    left = {model._meta.label: model.objects.count() for model in apps.get_models()}
    assert {label: n for label, n in left.items() if n} == {}


def test_every_foreign_key_is_deferrable():
    if connection.vendor != "postgresql":
        pytest.skip("the DELETE flush is PostgreSQL's")
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT conrelid::regclass::text, conname FROM pg_constraint WHERE contype = 'f' AND NOT condeferrable"
        )
        assert cursor.fetchall() == []
