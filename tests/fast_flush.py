"""A transactional test's database emptied with DELETE, not TRUNCATE, on PostgreSQL (issue 47, item 9;
decision 0102).

After every transactional test (pytest-django's `transactional_db`, the browser tests' live server, the
integration tests) Django's `flush` empties every table, by one TRUNCATE of all of them. A TRUNCATE gives
each table and each of its indexes a new file: on this machine 0.14 s for 61 empty tables on an idle
server and 1.5 s on average in a profiled run of the annotation tests under load (33 flushes, 49 s), where
DELETE of the same tables took 6 to 18 ms. A test's tables hold a few rows, for which DELETE is the cheap
way. Django's foreign keys are DEFERRABLE INITIALLY DEFERRED on PostgreSQL, so the tables are emptied in any
order and the keys checked at the commit, when every table is empty; a flush that resets sequences keeps
Django's TRUNCATE … RESTART IDENTITY.

Loaded by tests/conftest.py with pytest-django; nothing outside the tests is changed.
"""

from __future__ import annotations

from django.db.backends.postgresql.operations import DatabaseOperations

_truncating_flush = DatabaseOperations.sql_flush


def deleting_sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
    """Django's `sql_flush` for PostgreSQL, with DELETE in place of TRUNCATE when no sequence is reset."""
    if reset_sequences or not tables:
        return _truncating_flush(
            self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
        )
    deletes = [f"{style.SQL_KEYWORD('DELETE FROM')} {style.SQL_FIELD(self.quote_name(t))};" for t in tables]
    return ["SET CONSTRAINTS ALL DEFERRED;", *deletes]


def pytest_configure(config) -> None:
    DatabaseOperations.sql_flush = deleting_sql_flush  # type: ignore[method-assign]


def pytest_unconfigure(config) -> None:
    DatabaseOperations.sql_flush = _truncating_flush  # type: ignore[method-assign]
