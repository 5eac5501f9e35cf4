"""Per-process caches of the site.

- `BoundedCache`: a small cache with a bound, for things costly to build and immutable once built (a
  vocabulary's engine-core form, a loaded statistics file). Least recently used entries go first.
- `ResilientCache` (`resilient_cache`): the cache that keeps working when Redis does not. Rate-limit
  counters (DRF throttles, failed authentications) live in the default cache, which is Redis when
  `REDIS_URL` is set. Redis unavailable must degrade the service, not stop it: every call catches the
  cache's failure, logs it once, and uses a per-process memory cache instead, so limits still hold per
  process (a local limit) while Redis is away. Redis is tried again after `RETRY_SECONDS`.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

from django.core.cache import caches
from django.core.cache.backends.locmem import LocMemCache

logger = logging.getLogger(__name__)

RETRY_SECONDS = 30.0
V = TypeVar("V")


class BoundedCache(Generic[V]):
    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[Hashable, V] = OrderedDict()
        self._lock = threading.Lock()

    def get_or_build(self, key: Hashable, build: Callable[[], V]) -> V:
        """The entry for `key`, built (outside the lock: building may take a while) when missing."""
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                return self._entries[key]
        value = build()
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
        return value

    def get(self, key: Hashable) -> V | None:
        """The entry for `key` if it is there (and now the most recently used), else None."""
        with self._lock:
            if key not in self._entries:
                return None
            self._entries.move_to_end(key)
            return self._entries[key]

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)


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
