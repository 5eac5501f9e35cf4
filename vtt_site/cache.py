"""Per-process caches of the site.

- `BoundedCache`: a small cache with a bound, for things costly to build and immutable once built (a
  vocabulary's engine-core form, a loaded statistics file). Least recently used entries go first.
- `ResilientCache` (`resilient_cache`): the cache that keeps working when Redis does not. Rate-limit
  counters (DRF throttles, failed authentications) live in the default cache, which is Redis when
  `REDIS_URL` is set. Redis unavailable must degrade the service, not stop it: every call catches the
  cache's failure, logs it once, and uses a per-process memory cache instead, so limits still hold per
  process (a local limit) while Redis is away. Redis is tried again after `RETRY_SECONDS`.
- `RedisCache`: Django's Redis cache, with one client object per connection pool instead of a new one
  for every call, and a rate-limit counter (`window_hit`) that costs one round trip (decision 0033).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

from django.core.cache import caches
from django.core.cache.backends.base import BaseCache
from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient as DjangoRedisCacheClient

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
        self.put(key, value)
        return value

    def get(self, key: Hashable) -> V | None:
        """The entry for `key` if it is there (and now the most recently used), else None."""
        with self._lock:
            if key not in self._entries:
                return None
            self._entries.move_to_end(key)
            return self._entries[key]

    def put(self, key: Hashable, value: V) -> None:
        """Keep `value` for `key`, in place of any entry there."""
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)

    def pop(self, key: Hashable) -> None:
        with self._lock:
            self._entries.pop(key, None)

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
        return self._run(lambda cache: getattr(cache, name)(*args, **kwargs))

    def _run(self, operation: Callable[[BaseCache], Any]) -> Any:
        if not self.degraded:
            try:
                result = operation(caches[self.alias])
            except Exception as exc:  # redis-py raises several types (ConnectionError, TimeoutError, ...)
                self._fail(exc)
            else:
                if self._warned:
                    with self._lock:
                        self._warned = False
                    logger.warning("The cache is reachable again; rate limits are shared again.")
                return result
        return operation(self._local)

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

    def decr(self, key: str, delta: int = 1) -> int:
        return self._call("decr", key, delta)

    def window_hit(self, key: str, previous: str, timeout: int) -> tuple[int, int]:
        """Count one hit in the counter `key` (made with `timeout` when missing) and read the counter
        `previous`: (hits in `key` with this one, hits in `previous`). One round trip on Redis."""
        return self._run(lambda cache: _window_hit(cache, key, previous, timeout))


def _window_hit(cache: BaseCache, key: str, previous: str, timeout: int) -> tuple[int, int]:
    if isinstance(cache, RedisCache):
        return cache.window_hit(key, previous, timeout)
    cache.add(key, 0, timeout)
    try:
        hits = cache.incr(key)
    except ValueError:  # expired between add and incr
        cache.add(key, 1, timeout)
        hits = 1
    return hits, cache.get(previous) or 0


resilient_cache = ResilientCache()


class RedisCacheClient(DjangoRedisCacheClient):
    """Django's client makes a new `redis.Redis` object for every call, which cost about a tenth of
    answering a question (docs/benchmarks.md). A `redis.Redis` object holds no connection of its own
    (its pool does) and is safe to share between threads, so one per pool is enough."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        # Django's client's own private helpers, which its stubs leave out.
        index = self._get_connection_pool_index(write)  # type: ignore[attr-defined]
        client = self._clients.get(index)
        if client is None:
            pool = self._get_connection_pool(write)  # type: ignore[attr-defined]
            client = self._clients[index] = self._client(connection_pool=pool)  # type: ignore[attr-defined]
        return client


class RedisCache(DjangoRedisCache):
    def __init__(self, server: Any, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = RedisCacheClient

    def window_hit(self, key: str, previous: str, timeout: int) -> tuple[int, int]:
        """`ResilientCache.window_hit` as one command: a script run by Redis (EVALSHA)."""
        key = self.make_and_validate_key(key)
        previous = self.make_and_validate_key(previous)
        client = self._cache.get_client(key, write=True)  # type: ignore[attr-defined]  # private, not in the stubs
        hits, before = self._window_script(client)(keys=[key, previous], args=[timeout])
        return int(hits), int(before)

    def _window_script(self, client: Any) -> Any:
        script = getattr(self, "_script", None)
        if script is None or script.registered_client is not client:
            script = self._script = client.register_script(WINDOW_HIT)
        return script


# KEYS: the counter of this window, the counter of the one before; ARGV: the expiry of a new counter.
WINDOW_HIT = """
local hits = redis.call('INCR', KEYS[1])
if hits == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end
return {hits, tonumber(redis.call('GET', KEYS[2])) or 0}
"""
