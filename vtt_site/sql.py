"""Hand-written reads and writes for the few queries on the path of every answer (decisions 0033, 0087).

Django compiles a queryset's SQL anew each time it runs. For the queries every answer to a question
makes (the token with its user and roles, the session it locks with its deadline) compiling cost more
CPU than PostgreSQL spent running them (docs/benchmarks.md). A `HandQuery` is SQL written once per
process and database connection, with table and column names taken from the models' metadata, whose
rows come back converted the way the ORM converts them, so that callers build ordinary model
instances (`instance`). Use it only where a profile says so: everywhere else the ORM is the rule.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from django.db import connections
from django.db.models import Field, Model
from django.db.models.sql import Query

M = TypeVar("M", bound=Model)
# Given a connection: the SQL (with %s parameters) and the model field each column holds, in order.
Builder = Callable[[Any], tuple[str, Sequence[Field]]]


class HandQuery:
    def __init__(self, build: Builder) -> None:
        self._build = build
        # Per connection (each thread has its own): the converters are bound to one.
        self._built: weakref.WeakKeyDictionary[Any, tuple[str, dict]] = weakref.WeakKeyDictionary()

    def rows(self, params: Sequence[Any], *, using: str = "default") -> list[list[Any]]:
        connection = connections[using]
        compiler = Query(None).get_compiler(connection=connection)
        built = self._built.get(connection)
        if built is None:
            sql, fields = self._build(connection)
            built = self._built[connection] = (sql, compiler.get_converters([f.cached_col for f in fields]))
        sql, converters = built
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        return list(compiler.apply_converters(rows, converters))


class HandWrite:
    """An INSERT or UPDATE written once per process and connection: its parameters are the values of
    the model fields the builder names, prepared for the database as the ORM prepares a save
    (`get_db_prep_save`: a JSON value, a datetime as this database takes it)."""

    def __init__(self, build: Builder) -> None:
        self._build = build
        self._built: weakref.WeakKeyDictionary[Any, tuple[str, Sequence[Field]]] = weakref.WeakKeyDictionary()

    def run(self, values: Sequence[Any], *, using: str = "default") -> int:
        """The statement with these values (one per field, in order); the rows it wrote."""
        connection = connections[using]
        built = self._built.get(connection)
        if built is None:
            built = self._built[connection] = self._build(connection)
        sql, fields = built
        params = [
            field.get_db_prep_save(value, connection) for field, value in zip(fields, values, strict=True)
        ]
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return cursor.rowcount


def columns(alias: str, model: type[Model], quote: Callable[[str], str]) -> tuple[str, list[Field]]:
    """`alias.col1, alias.col2, …` for every concrete field of the model, and those fields."""
    fields = list(model._meta.concrete_fields)
    return ", ".join(f"{alias}.{quote(column_of(f))}" for f in fields), fields


def field_of(model: type[Model], name: str) -> Field:
    """The model's field `name`, one with a column (`get_field` may also give a reverse relation)."""
    field = model._meta.get_field(name)
    if not isinstance(field, Field):
        raise TypeError(f"{model.__name__}.{name} is a reverse relation, not a field")
    return field


def column_of(field: Field) -> str:
    """The field's column: every concrete field has one (the type allows None for the others)."""
    if field.column is None:
        raise TypeError(f"{field.name} has no column")
    return field.column


def instance(model: type[M], values: Sequence[Any], *, using: str = "default") -> M:
    """The model instance the ORM would have made from these values of its concrete fields."""
    return model.from_db(using, [f.attname for f in model._meta.concrete_fields], list(values))


def for_update_of(connection: Any, alias: str) -> str:
    """The row lock clause of a SELECT that locks only `alias`'s rows, as this database says it (none on
    SQLite, which serialises writers anyway, as Django's select_for_update does there)."""
    if connection.features.has_select_for_update_of:
        return f" FOR UPDATE OF {connection.ops.quote_name(alias)}"
    return " FOR UPDATE" if connection.features.has_select_for_update else ""
