"""Is the Celery broker reachable? Asked by `/readyz` and before an operation that queues a task.

With no `REDIS_URL` tasks run in-process and the answer is always yes. Otherwise one short connection
attempt, remembered for a few seconds so that a burst of requests during an outage does not become a
burst of connection attempts.

And did the broker lose its messages? Redis runs without persistence (docker-compose), so a restart
empties every queue; `broker_lost_messages` tells the job sweeper, which queues the jobs again at once.
"""

from __future__ import annotations

import logging
import time

import redis
from django.conf import settings
from django.utils import timezone

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


logger = logging.getLogger(__name__)


def broker_lost_messages() -> bool:
    """True when the broker's Redis lost the marker key left there by the previous call: it restarted
    without persistence (or was emptied) in between, and every message it held is gone.

    The marker is set again in the same command, so each loss is reported to one caller once: the job
    sweeper, run by the one beat. Also true the first time ever (no marker yet), which costs one
    harmless extra message per queued job. False without a broker or when it cannot be reached: nothing
    can be queued again then anyway, and the marker is checked at the next sweep.
    """
    if not settings.REDIS_URL:
        return False
    key = f"vtt:broker-marker:{settings.CELERY_TASK_DEFAULT_QUEUE}"
    client = redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_connect_timeout=2, socket_timeout=2)
    try:
        lost = bool(client.set(key, timezone.now().isoformat(), nx=True))
    except redis.RedisError as exc:
        logger.warning("Could not ask the broker whether it lost its messages (%s).", exc)
        return False
    finally:
        client.close()
    if lost:
        logger.warning("The broker holds no marker: it lost its messages (a restart?); queued jobs go again.")
    return lost
