"""Interactive work first: a long job gives way while an operator waits for their next question (issue 22).

On two cores, a long job (automatic truthing, a deal, an audit) running beside the proposals doubled the
time an operator waits for the next question, and the lowest CPU priority for the long job did not
change that (docs/benchmarks.md, "16 operators"): both run the engine, whose arrays compete for caches,
memory bandwidth and the database's writes, which niceness does not share out. So the long job yields:
- a proposal is marked pending, in a Redis sorted set, from the moment it is queued (when the answer
  commits) until its task has written the next question;
- a long job calls `give_way()` between two engine steps and before each write, and waits while any
  proposal is pending, for at most `LONG_JOB_GIVE_WAY_SECONDS` at a time: a steady flow of answers
  slows the job down, it never stops it.

A mark is the stream's id with the time it was set; a mark older than `STALE_SECONDS` is a lost task's
(its worker died, the broker restarted) and is dropped, so a lost mark costs at most that long. The set
is named after the long jobs' queue, so that deployments (and tests) sharing a Redis do not hold up each
other's jobs. When tasks run in process (`make run`, most tests) there is no worker to give way to, and
every call here does nothing. Redis unreachable: nothing is waited for (the job goes on), and after a
failure Redis is left alone for QUIET_SECONDS, so that an outage costs neither a long job's step nor an
operator's answer a connection attempt each.
"""

from __future__ import annotations

import logging
import time
from functools import cache

import redis
from django.conf import settings

from vtt_site.celery import app as celery_app
from vtt_site.wakeups import wake

logger = logging.getLogger(__name__)

STALE_SECONDS = 10.0  # far above a proposal's time (p95 under 0.1 s), far below an operator's patience
POLL_SECONDS = 0.002
QUIET_SECONDS = 5.0
_failed_at: float | None = None  # monotonic time of this process's last Redis error here


@cache
def _client(url: str) -> redis.Redis:
    # Short timeouts: this runs before every engine step of a long job.
    return redis.Redis.from_url(url, socket_connect_timeout=0.2, socket_timeout=0.2)


def _redis() -> redis.Redis | None:
    """The client, when proposals and long jobs run in workers of their own; else None."""
    if not settings.REDIS_URL or celery_app.conf.task_always_eager:
        return None
    if _failed_at is not None and time.monotonic() - _failed_at < QUIET_SECONDS:
        return None
    return _client(settings.REDIS_URL)


def _failed(what: str, exc: Exception) -> None:
    global _failed_at
    _failed_at = time.monotonic()
    logger.debug("Could not %s (%s); Redis is left alone for %g s.", what, exc, QUIET_SECONDS)


def _key() -> str:
    return f"vtt:proposals-pending:{celery_app.conf.task_default_queue}"


def proposal_pending(stream_id: int) -> None:
    """Mark the proposal of `stream_id` as one an operator waits for (called as it is queued)."""
    client = _redis()
    if client is None:
        return
    try:
        client.zadd(_key(), {str(stream_id): time.time()})
    except redis.RedisError as exc:
        _failed("mark a pending proposal", exc)


def proposal_topic(stream_id: int) -> str:
    """The wake-up topic of a stream's next proposal (vtt_site.wakeups): an answer's response waits on it."""
    return f"proposal:{stream_id}"


def proposal_done(stream_id: int) -> None:
    """The proposal of `stream_id` is written (or had nothing to do): it no longer holds long jobs, and
    the operator's answer that waits for it reads it now."""
    wake(proposal_topic(stream_id))
    client = _redis()
    if client is None:
        return
    try:
        client.zrem(_key(), str(stream_id))
    except redis.RedisError as exc:
        _failed("clear a pending proposal", exc)


def proposals_pending() -> int:
    """How many proposals operators wait for now (marks older than STALE_SECONDS dropped first)."""
    client = _redis()
    if client is None:
        return 0
    try:
        pipe = client.pipeline(transaction=False)
        pipe.zremrangebyscore(_key(), "-inf", time.time() - STALE_SECONDS)
        pipe.zcard(_key())
        return int(pipe.execute()[1])
    except redis.RedisError as exc:
        _failed("count pending proposals", exc)
        return 0


def give_way() -> float:
    """Wait while operators wait for a proposal, at most LONG_JOB_GIVE_WAY_SECONDS; the seconds waited.
    Long jobs call it between engine steps."""
    limit = settings.LONG_JOB_GIVE_WAY_SECONDS
    if limit <= 0 or _redis() is None:
        return 0.0
    started = time.monotonic()
    while proposals_pending() and (waited := time.monotonic() - started) < limit:
        time.sleep(min(POLL_SECONDS, limit - waited))
    return time.monotonic() - started
