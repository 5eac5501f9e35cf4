"""Inserting many rows at once: PostgreSQL's COPY there, `bulk_create` on any other database.

An import of 10,000 synthetic street scenes is about 80,000 objects and 630,000 relationships. With
`bulk_create` (model instances, then parameter lists) the whole import took about a minute on the 2-core
machine of docs/benchmarks.md, right at the limit issue 3 sets; with COPY it takes about 20 s.
Object ids are taken from the table's sequence first, so that relationships can name their objects
without reading anything back.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from django.db import connection, models

BATCH_SIZE = 5000


def insert_returning_ids(model: type[models.Model], columns: Sequence[str], rows: list[tuple]) -> list[int]:
    """Insert rows (values in the order of `columns`, which are column names) and return their ids."""
    if not rows:
        return []
    if connection.vendor != "postgresql":
        created = model._default_manager.bulk_create(_instances(model, columns, rows), batch_size=BATCH_SIZE)
        return [instance.pk for instance in created]
    ids = _reserve_ids(model, len(rows))
    _copy(model, ["id", *columns], [(pk, *row) for pk, row in zip(ids, rows, strict=True)])
    return ids


def insert_rows(model: type[models.Model], columns: Sequence[str], rows: list[tuple]) -> None:
    if not rows:
        return
    if connection.vendor != "postgresql":
        model._default_manager.bulk_create(_instances(model, columns, rows), batch_size=BATCH_SIZE)
        return
    _copy(model, list(columns), rows)


def _instances(model: type[models.Model], columns: Sequence[str], rows: list[tuple]) -> list[models.Model]:
    return [model(**dict(zip(columns, row, strict=True))) for row in rows]


def _reserve_ids(model: type[models.Model], count: int) -> list[int]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
            [model._meta.db_table, model._meta.pk.column, count],
        )
        return [row[0] for row in cursor.fetchall()]


def _copy(model: type[models.Model], columns: list[str], rows: list[tuple]) -> None:
    quote = connection.ops.quote_name
    statement = f"COPY {quote(model._meta.db_table)} ({', '.join(map(quote, columns))}) FROM STDIN"
    with connection.cursor() as cursor, cursor.cursor.copy(statement) as copy:
        for row in rows:
            copy.write_row(tuple(_text(value) for value in row))


def _text(value: Any) -> Any:
    """COPY sends text and lets the server parse it by column type: JSON columns get JSON text."""
    return json.dumps(value) if isinstance(value, list | dict) else value
