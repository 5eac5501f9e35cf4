"""Pages of long lists whose cost does not grow with the list (issue 51; decision 0098): the collection
page's images and the admin's changelists of tables that grow with the collections (108,077 images and
half a million objects for one Visual Genome download).

Counting: the admin shows "about N" rather than scan the table on every page.

An unfiltered list of a big table takes PostgreSQL's own estimate of the table's rows (`reltuples`, kept
by autovacuum and ANALYZE); a filtered list is counted exactly up to COUNT_UP_TO rows, and past that
takes the planner's estimate of the filtered rows. A small table is always counted exactly.
"""

from __future__ import annotations

import json
from functools import cached_property
from typing import Any

from django.core.paginator import Page, Paginator
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


class IdsFirstPaginator(Paginator):
    """A page of a queryset read in two steps: its rows' ids at the page's offset (which an index on the
    list's filter and order answers alone, without the table), then those rows. A plain page reads and
    throws away every row before its offset: the last page of a 108,077-image collection took 0.8 s, its
    ids alone 0.02 s once the index (collection, id) was there. `count`, when the caller knows it
    already (the collection page's progress counts its images), saves the count."""

    def __init__(self, object_list, per_page, *args, count: int | None = None, **kwargs) -> None:
        super().__init__(object_list, per_page, *args, **kwargs)
        if count is not None:
            self.__dict__["count"] = count

    def page(self, number):
        """Django's `Paginator.page`, the rows read ids first."""
        number = self.validate_number(number)
        bottom = (number - 1) * self.per_page
        top = bottom + self.per_page
        if top + self.orphans >= self.count:
            top = self.count
        rows = self.object_list
        if isinstance(rows, QuerySet):
            ids = list(rows.values_list("pk", flat=True)[bottom:top])
            return Page(list(rows.filter(pk__in=ids)) if ids else [], number, self)
        return Page(rows[bottom:top], number, self)


class EstimatedCountPaginator(IdsFirstPaginator):
    """Its count is `quick_count`'s: for the admin's changelists of big tables, with
    `show_full_result_count = False` (which would count the whole table again)."""

    @cached_property
    def count(self) -> int:
        rows = self.object_list
        return quick_count(rows) if isinstance(rows, QuerySet) else len(rows)
