"""The cache that keeps working when Redis does not: counters fall back to this process's memory.

Rate-limit counters (DRF throttles, failed authentications) live in the default cache, which is Redis
when `REDIS_URL` is set. Redis unavailable must degrade the service, not stop it: every call here
catches the cache's failure, logs it once, and uses a per-process memory cache instead, so limits still
hold per process (a local limit) while Redis is away. Redis is tried again after `RETRY_SECONDS`.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from django.core.cache import caches
from django.core.cache.backends.locmem import LocMemCache

logger = logging.getLogger(__name__)

RETRY_SECONDS = 30.0


class ResilientCache:
    def __init__(self, alias: str = "default") -> None:
        self.alias = alias
        self._local = LocMemCache("vtt-fallback", {"OPTIONS": {"MAX_ENTRIES": 100_000}})
        self._down_until = 0.0
        self._warned = False
        self._lock = threading.Lock()

    @property
    def degraded(self) -> bool:
        return time.monotonic() < self._down_until

    def _call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        if not self.degraded:
            try:
                result = getattr(caches[self.alias], name)(*args, **kwargs)
            except Exception as exc:  # redis-py raises several types (ConnectionError, TimeoutError, ...)
                self._fail(exc)
            else:
                if self._warned:
                    with self._lock:
                        self._warned = False
                    logger.warning("The cache is reachable again; rate limits are shared again.")
                return result
        return getattr(self._local, name)(*args, **kwargs)

    def _fail(self, exc: Exception) -> None:
        with self._lock:
            self._down_until = time.monotonic() + RETRY_SECONDS
            first = not self._warned
            self._warned = True
        if first:
            logger.error(
                "The cache is unavailable (%s); rate limits fall back to this process until it is back.",
                exc.__class__.__name__,
            )

    def reset(self) -> None:
        """Forget the fallback counters and try the cache again at once (for tests)."""
        self._local.clear()
        self._down_until = 0.0
        self._warned = False

    def get(self, key: str, default: Any = None) -> Any:
        return self._call("get", key, default)

    def set(self, key: str, value: Any, timeout: float | None = None) -> None:
        self._call("set", key, value, timeout)

    def add(self, key: str, value: Any, timeout: float | None = None) -> bool:
        return self._call("add", key, value, timeout)

    def incr(self, key: str, delta: int = 1) -> int:
        return self._call("incr", key, delta)

    def delete(self, key: str) -> None:
        self._call("delete", key)


resilient_cache = ResilientCache()
