"""Wake-ups: a request waits a bounded time for a write that another process (or thread) makes.

An operator's answer commits, and the next question is written by a task a moment later (a proposal
takes about 1 to 11 ms). Instead of the page asking again every 250 ms, the answer's own response waits
for that write (issue 38, item 11; decision 0077): the request arms a topic before its write, the task
wakes the topic once its own write has committed, and the request reads the result.

- With workers of their own (Redis configured, tasks not eager), a topic is a Redis list: `arm` empties
  it, `wake` pushes one element (kept `KEEP_SECONDS`), `wait` pops with BLPOP. A wake that comes before
  the wait is kept in the list, so arming before the write leaves no gap.
- With tasks in process (`make run`, commands, most tests), a topic is a `threading.Event` of this
  process, set by the task's thread (or at once, when the task ran inside the request).

Waking and waiting never raise: with Redis away a wait returns False at once and the caller does what it
did before (the page asks again); a wait is always bounded by the caller's seconds.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

import redis
from django.conf import settings

from vtt_site.celery import app as celery_app

logger = logging.getLogger(__name__)

KEEP_SECONDS = 30  # a wake nobody waited for is dropped after this
MAX_WAIT_SECONDS = 10.0  # no request holds a web worker longer than this for a wake-up
PREFIX = "vtt:wake:"

_lock = threading.Lock()
_events: dict[str, list[threading.Event]] = {}


@cache
def _client(url: str, seconds: float) -> redis.Redis:
    # The socket timeout must outlast the longest BLPOP, or redis-py reports a timeout as an error.
    return redis.Redis.from_url(url, socket_connect_timeout=0.5, socket_timeout=seconds + 1.0)


def _redis() -> redis.Redis | None:
    """The client when the waking task runs in another process; None when it runs in this one."""
    if not settings.REDIS_URL or celery_app.conf.task_always_eager:
        return None
    return _client(settings.REDIS_URL, MAX_WAIT_SECONDS)


def _key(topic: str) -> str:
    return f"{PREFIX}{celery_app.conf.task_default_queue}:{topic}"


class Waiter:
    """One armed topic: `wait(seconds)` returns True as soon as it is woken, False after `seconds`."""

    def __init__(self, topic: str) -> None:
        self.topic = topic
        self.event = threading.Event()

    def wait(self, seconds: float) -> bool:
        seconds = max(0.0, min(seconds, MAX_WAIT_SECONDS))
        client = _redis()
        if client is None:
            return self.event.wait(seconds)
        try:
            # BLPOP counts whole seconds on old servers; a float timeout is exact on Redis 6 and newer.
            return client.blpop([_key(self.topic)], timeout=seconds) is not None
        except redis.RedisError as exc:
            logger.debug("Could not wait for %s (%s); the caller reads what is there.", self.topic, exc)
            return False


@contextmanager
def awaiting(topic: str) -> Iterator[Waiter]:
    """Arm `topic` before the write that makes a task wake it; wait on the waiter after the commit."""
    waiter = Waiter(topic)
    client = _redis()
    if client is not None:
        try:
            client.delete(_key(topic))  # a wake left over from an earlier write says nothing of this one
        except redis.RedisError as exc:
            logger.debug("Could not arm %s (%s).", topic, exc)
    with _lock:
        _events.setdefault(topic, []).append(waiter.event)
    try:
        yield waiter
    finally:
        with _lock:
            events = _events.get(topic, [])
            if waiter.event in events:
                events.remove(waiter.event)
            if not events:
                _events.pop(topic, None)


def wake(topic: str) -> None:
    """Wake whoever waits on `topic` (call after the write they wait for has committed)."""
    with _lock:
        for event in _events.get(topic, []):
            event.set()
    client = _redis()
    if client is None:
        return
    try:
        pipe = client.pipeline(transaction=True)
        pipe.rpush(_key(topic), 1)
        pipe.expire(_key(topic), KEEP_SECONDS)
        pipe.execute()
    except redis.RedisError as exc:
        logger.debug("Could not wake %s (%s); its waiter reads what is there after its wait.", topic, exc)
