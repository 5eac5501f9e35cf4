"""Counting the rows of a list without reading them all: the admin's changelists of tables that grow with
the collections (3.8 million objects for one Visual Genome download) show "about N" rather than scan
the table on every page (issue 51; decision 0098).

An unfiltered list of a big table takes PostgreSQL's own estimate of the table's rows (`reltuples`, kept
by autovacuum and ANALYZE); a filtered list is counted exactly up to COUNT_UP_TO rows, and past that
takes the planner's estimate of the filtered rows. A small table is always counted exactly.
"""

from __future__ import annotations

import json
from functools import cached_property
from typing import Any

from django.core.paginator import Paginator
from django.db import connections
from django.db.models import QuerySet

# Below this many rows a table is counted exactly (the estimate is worth it on big ones only).
ESTIMATE_FROM = 20_000
# A filtered list is counted exactly up to this many rows; past it, the planner's estimate.
COUNT_UP_TO = 10_000


def quick_count(queryset: QuerySet[Any]) -> int:
    """The rows of `queryset`: exact when few, else PostgreSQL's estimate (see the module's docstring)."""
    connection = connections[queryset.db]
    if connection.vendor != "postgresql":
        return queryset.count()
    if not queryset.query.where:
        estimate = _table_estimate(connection, queryset.model._meta.db_table)
        return estimate if estimate >= ESTIMATE_FROM else queryset.count()
    bounded = queryset.order_by()[: COUNT_UP_TO + 1].count()
    if bounded <= COUNT_UP_TO:
        return bounded
    return max(bounded, _planned_rows(connection, queryset))


def _table_estimate(connection, table: str) -> int:
    with connection.cursor() as cursor:
        # reltuples is -1 for a table never vacuumed nor analyzed: then it is counted.
        cursor.execute("SELECT reltuples::bigint FROM pg_class WHERE oid = %s::regclass", [table])
        row = cursor.fetchone()
    return int(row[0]) if row and row[0] is not None else -1


def _planned_rows(connection, queryset: QuerySet[Any]) -> int:
    sql, params = queryset.order_by().values("pk").query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (FORMAT JSON) {sql}", params)
        plan = cursor.fetchone()[0]
    plan = json.loads(plan) if isinstance(plan, str) else plan
    return int(plan[0]["Plan"]["Plan Rows"])


class EstimatedCountPaginator(Paginator):
    """A Paginator whose count is `quick_count`'s: for the admin's changelists of big tables, with
    `show_full_result_count = False` (which would count the whole table again)."""

    @cached_property
    def count(self) -> int:
        rows = self.object_list
        return quick_count(rows) if isinstance(rows, QuerySet) else len(rows)
