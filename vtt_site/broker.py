"""Is the Celery broker reachable? Asked by `/readyz` and before an operation that queues a task.

With no `REDIS_URL` tasks run in-process and the answer is always yes. Otherwise one short connection
attempt, remembered for a few seconds so that a burst of requests during an outage does not become a
burst of connection attempts.
"""

from __future__ import annotations

import time

from django.conf import settings

from vtt_site.celery import app as celery_app

REMEMBER_SECONDS = 5.0
BROKER_DOWN = (
    "Background work cannot be queued right now (the task broker is unavailable); nothing was changed. "
    "Reading still works; try this again in a little while."
)
_last: tuple[float, str | None] = (0.0, None)  # (monotonic time of the check, error class or None)


def broker_error(*, fresh: bool = False) -> str | None:
    """None when the broker is reachable, else the kind of failure (an exception class name)."""
    global _last
    if not settings.REDIS_URL or (celery_app.conf.task_always_eager and not fresh):
        return None  # tasks run in-process: queueing needs no broker
    checked_at, error = _last
    if fresh or time.monotonic() - checked_at > REMEMBER_SECONDS:
        try:
            with celery_app.connection_for_write() as conn:
                conn.ensure_connection(max_retries=1, timeout=2)
            error = None
        except Exception as exc:  # an unreachable broker raises one of several kombu/redis errors
            error = exc.__class__.__name__
        _last = (time.monotonic(), error)
    return error


def forget() -> None:
    """Check again at the next question (tests)."""
    global _last
    _last = (0.0, None)
