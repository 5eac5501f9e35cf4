"""A database that cannot be reached for a moment (a restart, a failover, a connection cut) is a 503
that says to retry, not a 500: in the API's error shape with Retry-After (`vtt_site.api.errors`), as a
plain page for the web (`vtt_site.urls.handler500`, which renders no template that would need the
database), and, for a background job, the job queued again (`vtt_site.jobs.job_run`).

Django raises `OperationalError` when it cannot connect or the server ends the connection, and
`InterfaceError` when a connection that died is used again. Both also cover a deadlock or a lock timeout,
which a retry resolves as well.
"""

from __future__ import annotations

import logging

from django.db import InterfaceError, OperationalError, connections

logger = logging.getLogger(__name__)

DATABASE_ERRORS = (OperationalError, InterfaceError)
RETRY_AFTER_SECONDS = 5
DATABASE_UNAVAILABLE = "The database could not be reached just now. Try again in a moment."


def database_unavailable(exc: BaseException | None) -> bool:
    return isinstance(exc, DATABASE_ERRORS)


def connections_drop() -> None:
    """Close every connection that is not inside a transaction, so the next query connects anew instead
    of using one the server has ended (outside a request nothing else closes it)."""
    for conn in connections.all(initialized_only=True):
        if not conn.in_atomic_block:
            conn.close()
