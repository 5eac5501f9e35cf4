"""Whether the run holding a job is alive: the one place that decides when a job may be taken over.

Two ways to tell, by what the layout allows:

- With heartbeats (PostgreSQL: `make serve`, docker-compose, CI), the holder refreshes `heartbeat_at`
  every `JOB_HEARTBEAT_SECONDS` from a thread of its own (`heartbeat_while_held`); a job not refreshed for
  `JOB_STALE_SECONDS` lost its worker, on whatever machine it ran.
- Without them (SQLite, the embedded default of `make run`: one writer at a time, so a beat would wait
  behind the job's own write transaction), `heartbeat_at` is only the time of the claim, and says
  nothing about a job that simply runs long. There every job runs in a thread of the web process, so
  the holder is alive exactly while its process is (`holder_alive`). Judging such a job by the age of
  its claim took over, three times and then failed, every job longer than `JOB_STALE_SECONDS`, while
  the abandoned threads went on burning the CPU (issue 46, item 1).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from django.conf import settings
from django.db import DatabaseError, connection, models
from django.utils import timezone

if TYPE_CHECKING:
    from vtt_site.job_model import Job

logger = logging.getLogger(__name__)


def heartbeats_kept() -> bool:
    """Whether running jobs refresh their heartbeat here (see the module's docstring)."""
    return settings.JOB_HEARTBEAT_SECONDS > 0 and connection.vendor != "sqlite"


def holder_name() -> str:
    """What a claim records as its holder: `host:pid`."""
    return f"{socket.gethostname()}:{os.getpid()}"[:100]


def holder_alive(holder: str, host: str | None = None) -> bool:
    """Whether the process `host:pid` may still run the job (another host's: assume so)."""
    host = host or socket.gethostname()
    holder_host, _, pid = holder.rpartition(":")
    if holder_host != host or not pid.isdigit():
        return holder_host != host
    if int(pid) == os.getpid():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def job_stale(job: Job, now: datetime) -> bool:
    """Whether a running job lost its holder and may be taken over."""
    if not heartbeats_kept():
        return not holder_alive(job.claimed_by)
    return job.heartbeat_at is None or now - job.heartbeat_at > timedelta(seconds=settings.JOB_STALE_SECONDS)


def stale_running_pks(model: type[Job], now: datetime) -> list[int]:
    """The running jobs of `model` that lost their holder and wait for a takeover, at most one sweep's
    message a staleness period each (while the takeover waits for a free worker)."""
    stale = now - timedelta(seconds=settings.JOB_STALE_SECONDS)
    not_just_sent = models.Q(enqueued_at__isnull=True) | models.Q(enqueued_at__lt=stale)
    running = model._default_manager.filter(not_just_sent, status__in=model.running_statuses)
    if heartbeats_kept():
        return list(running.filter(heartbeat_at__lt=stale).order_by("pk").values_list("pk", flat=True))
    held = running.order_by("pk").values_list("pk", "claimed_by")
    return [pk for pk, holder in held if not holder_alive(holder)]


def lost_holder_message(attempts: int) -> str:
    """What a job taken over `attempts` times and given up says to a person: what was seen, by layout."""
    if heartbeats_kept():
        minutes = settings.CELERY_TASK_TIME_LIMIT / 60
        seen = (
            f"The worker running this job stopped reporting {attempts} times without finishing it (no "
            f"heartbeat for {settings.JOB_STALE_SECONDS:.0f} s: it was killed, ran out of memory, or ran "
            f"past the time limit of {minutes:.0f} minutes)"
        )
    else:
        seen = f"The server process running this job stopped {attempts} times before the job finished"
    return f"{seen}; it is not tried again. Nothing of it was kept."


@contextmanager
def heartbeat_while_held(job: Job, rows: models.QuerySet) -> Iterator[None]:
    """Refresh `heartbeat_at` of `rows` (the job as its holder holds it) every `JOB_HEARTBEAT_SECONDS`
    from a thread with its own database connection, so a long step (one big write transaction, a fit)
    keeps the job alive. The thread dies with the process, which is the point: a killed worker's job
    goes stale. Nothing to do where heartbeats are not kept (`heartbeats_kept`)."""
    if not heartbeats_kept():
        yield
        return
    interval = settings.JOB_HEARTBEAT_SECONDS
    stop = threading.Event()

    def beat() -> None:
        try:
            while not stop.wait(interval):
                try:
                    if not rows.update(heartbeat_at=timezone.now()):
                        return  # settled or taken over
                except DatabaseError:
                    logger.warning("Heartbeat of %s %s failed; trying again", type(job).__name__, job.pk)
        finally:
            connection.close()  # this thread's own connection

    thread = threading.Thread(target=beat, name=f"heartbeat-{job._meta.label}-{job.pk}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
