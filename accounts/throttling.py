"""Rate limits: per API token for programs, per user for browser sessions, per address for anonymous,
and a limit on failed authentications per address and per account, so a token cannot be guessed.

Every counter lives in `vtt_site.cache.resilient_cache`: with Redis down the limits hold per process
instead of turning every request into a 500.

The request limits count in sliding windows (`WindowRateThrottle`, decision 0033): DRF's own throttles
keep the time of every request of the last period in one cache entry, read and written whole on every
request, which cost more the higher the limit; two counters per client cost one round trip to Redis
whatever the limit.
"""

from __future__ import annotations

import contextlib
import ipaddress
import time
from typing import Any

from django.conf import settings
from rest_framework import exceptions
from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle

from accounts.models import ApiToken
from vtt_site.cache import resilient_cache


def window_estimate(*, duration: float, elapsed: float, current: int, previous: int) -> float:
    """Requests in the period that ends now, estimated from the counts of the current fixed window
    (`elapsed` seconds old) and of the one before it, taken as spread evenly over it."""
    return previous * (1 - elapsed / duration) + current


def seconds_until_allowed(
    *, limit: int, duration: float, elapsed: float, current: int, previous: int
) -> float:
    """How long until one more request fits under `limit`, if no other request comes."""
    left = duration - elapsed
    if limit < 1:
        return left + duration
    if current + 1 <= limit and previous > 0:
        # Still in this window, once enough of the previous window's requests have slid out of the period.
        wait = duration * (1 - (limit - current - 1) / previous) - elapsed
        if wait < left:
            return max(round(wait, 6), 0.0)  # rounded: DRF's Retry-After is the ceiling
    # In the next window, where this window's requests slide out in turn.
    then = duration * (1 - (limit - 1) / current) if current > limit - 1 else 0.0
    return round(left + max(then, 0.0), 6)


class WindowRateThrottle(SimpleRateThrottle):
    """DRF's rate (`scope`, THROTTLE_RATES, get_cache_key) counted in two fixed windows of the period:
    the current one and the one before it, whose count is weighed by how much of it still lies within
    the period that ends now. A refused request is not counted, as with DRF's throttles."""

    cache = resilient_cache  # type: ignore[assignment]  # not a BaseCache, but it has the calls DRF makes
    _wait: float | None = None
    # Set from the rate by SimpleRateThrottle.__init__ (its stubs leave them out).
    num_requests: int
    duration: int

    def allow_request(self, request, view) -> bool:
        if self.rate is None:
            return True
        self.key = self.get_cache_key(request, view)
        if self.key is None:
            return True
        window, elapsed = divmod(self.timer(), self.duration)
        key = f"{self.key}:{int(window)}"
        hits, previous = resilient_cache.window_hit(key, f"{self.key}:{int(window) - 1}", 2 * self.duration)
        figures: dict[str, Any] = {"duration": self.duration, "elapsed": elapsed, "previous": previous}
        if window_estimate(current=hits, **figures) <= self.num_requests:
            return True
        with contextlib.suppress(ValueError):  # gone with a cache that went away meanwhile: nothing to undo
            resilient_cache.decr(key)
        self._wait = seconds_until_allowed(limit=self.num_requests, current=hits - 1, **figures)
        return False

    def wait(self) -> float | None:
        return self._wait


class TokenRateThrottle(WindowRateThrottle):
    scope = "token"

    def get_cache_key(self, request, view):
        if isinstance(request.auth, ApiToken):
            return self.cache_format % {"scope": self.scope, "ident": request.auth.pk}
        return None


class SessionUserRateThrottle(WindowRateThrottle):
    scope = "session"

    def get_cache_key(self, request, view):
        if request.user and request.user.is_authenticated and not isinstance(request.auth, ApiToken):
            return self.cache_format % {"scope": self.scope, "ident": request.user.pk}
        return None


class AddressRateThrottle(WindowRateThrottle, AnonRateThrottle):
    """DRF's anonymous throttle (per address, scope "anon"), counted in windows, per `client_address`
    (DRF's own `get_ident` believes any client's X-Forwarded-For, so each request could name a new one)."""

    def get_ident(self, request) -> str:
        return client_address(request)


def client_address(request) -> str:
    """The address of the client: the peer's, unless the peer is one of TRUSTED_PROXIES, in which case
    X-Forwarded-For is read from the right (each proxy appends the address it was reached from) past
    every trusted proxy, to the first address no trusted proxy stands for. An X-Forwarded-For from any
    other peer is ignored, since a client can write whatever it likes there. Also django-axes' source of
    addresses (`axes_client_address`), so password logins are counted the same way."""
    peer = request.META.get("REMOTE_ADDR") or "unknown"
    if not _is_trusted_proxy(peer):
        return peer
    forwarded = [hop.strip() for hop in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")]
    address = peer
    for hop in reversed([hop for hop in forwarded if hop]):
        if not _is_address(hop):
            break  # garbage from the client's side of the chain: the last trusted hop is what we know
        address = hop
        if not _is_trusted_proxy(hop):
            break
    return address


def axes_client_address(request) -> str | None:
    """`client_address` for django-axes, which stores it in an address column: None when unknown."""
    address = client_address(request)
    return address if _is_address(address) else None


def _is_address(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


def _is_trusted_proxy(text: str) -> bool:
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return False
    return any(address in network for network in settings.TRUSTED_PROXIES)


def _keys(request, account: object | None) -> list[str]:
    window = int(time.time() // settings.AUTH_FAILURE_WINDOW_SECONDS)
    keys = [f"authfail:address:{client_address(request)}:{window}"]
    if account is not None:
        keys.append(f"authfail:account:{account}:{window}")
    return keys


def auth_failure(request, message: str, account: object | None = None) -> exceptions.APIException:
    """The error to raise for a failed authentication, counted per address (and per account, for a
    revoked or expired token): a 401 saying `message`, or, once the count in this window passes
    AUTH_FAILURE_LIMIT, a 429 with Retry-After.

    Only failures are ever counted or refused (decision 0046-auth-throttling): a valid token is served
    whatever its address failed before, so nobody sharing an address (or a proxy) can lock its owner
    out. Guessing is no use anyway against a token's 256 random bits; the limit caps the work and the
    noise of a guesser, and its 429 tells a misconfigured client to stop."""
    counts = [_count(key) for key in _keys(request, account)]
    if max(counts) > settings.AUTH_FAILURE_LIMIT:
        window = settings.AUTH_FAILURE_WINDOW_SECONDS
        return exceptions.Throttled(
            wait=window - time.time() % window,
            detail="Too many failed authentications from this address; try again later.",
        )
    return exceptions.AuthenticationFailed(message)


def _count(key: str) -> int:
    if resilient_cache.add(key, 1, settings.AUTH_FAILURE_WINDOW_SECONDS):
        return 1
    try:
        return int(resilient_cache.incr(key))
    except ValueError:  # expired between add and incr
        resilient_cache.add(key, 1, settings.AUTH_FAILURE_WINDOW_SECONDS)
        return 1
