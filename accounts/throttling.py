"""Rate limits: per API token for programs, per user for browser sessions, per address for anonymous,
and a limit on failed authentications per address and per account, so a token cannot be guessed.

Every counter lives in `vtt_site.cache.resilient_cache`: with Redis down the limits hold per process
instead of turning every request into a 500.
"""

from __future__ import annotations

import time

from django.conf import settings
from rest_framework import exceptions
from rest_framework.throttling import AnonRateThrottle, SimpleRateThrottle

from accounts.models import ApiToken
from vtt_site.cache import resilient_cache


class TokenRateThrottle(SimpleRateThrottle):
    scope = "token"
    cache = resilient_cache

    def get_cache_key(self, request, view):
        if isinstance(request.auth, ApiToken):
            return self.cache_format % {"scope": self.scope, "ident": request.auth.pk}
        return None


class SessionUserRateThrottle(SimpleRateThrottle):
    scope = "session"
    cache = resilient_cache

    def get_cache_key(self, request, view):
        if request.user and request.user.is_authenticated and not isinstance(request.auth, ApiToken):
            return self.cache_format % {"scope": self.scope, "ident": request.user.pk}
        return None


class AddressRateThrottle(AnonRateThrottle):
    cache = resilient_cache


def client_address(request) -> str:
    return request.META.get("REMOTE_ADDR") or "unknown"


def _keys(request, account: object | None) -> list[str]:
    window = int(time.time() // settings.AUTH_FAILURE_WINDOW_SECONDS)
    keys = [f"authfail:address:{client_address(request)}:{window}"]
    if account is not None:
        keys.append(f"authfail:account:{account}:{window}")
    return keys


def auth_failures_check(request, account: object | None = None) -> None:
    """429 with Retry-After once an address (or an account) has failed too often in this window; checked
    before the credential is, so that a right guess after the limit is not told apart from a wrong one."""
    limit = settings.AUTH_FAILURE_LIMIT
    if any((resilient_cache.get(key) or 0) >= limit for key in _keys(request, account)):
        window = settings.AUTH_FAILURE_WINDOW_SECONDS
        raise exceptions.Throttled(
            wait=window - time.time() % window,
            detail="Too many failed authentications from this address; try again later.",
        )


def auth_failure_record(request, account: object | None = None) -> None:
    for key in _keys(request, account):
        if not resilient_cache.add(key, 1, settings.AUTH_FAILURE_WINDOW_SECONDS):
            try:
                resilient_cache.incr(key)
            except ValueError:  # expired between add and incr
                resilient_cache.add(key, 1, settings.AUTH_FAILURE_WINDOW_SECONDS)
