"""`/healthz` says the process is up; `/readyz` says it can do work and names what is down (database;
broker and cache when Redis is used). Broker down: reads work, queueing operations answer 503."""

from __future__ import annotations

from django.conf import settings
from django.core.cache import caches
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.http import require_GET

from vtt_site.broker import broker_error


@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    return JsonResponse({"status": "ok"})


@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    checks = {"database": _check_database()}
    if settings.REDIS_URL:
        checks["broker"] = _check_broker()
        checks["cache"] = _check_cache()
    ready = all(check["ok"] for check in checks.values())
    return JsonResponse(
        {"status": "ready" if ready else "unavailable", "checks": checks}, status=200 if ready else 503
    )


def _check_database() -> dict[str, object]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any driver error means "not ready", and the reason is reported
        return {"ok": False, "error": exc.__class__.__name__}
    return {"ok": True, "vendor": connection.vendor}


def _check_broker() -> dict[str, object]:
    error = broker_error(fresh=True)
    return {"ok": False, "error": error} if error else {"ok": True}


def _check_cache() -> dict[str, object]:
    """The cache holds rate-limit counters; without it they fall back to each process (degraded)."""
    try:
        caches["default"].get("readyz-probe")
    except Exception as exc:  # redis-py raises several types
        return {"ok": False, "error": exc.__class__.__name__, "effect": "rate limits are per process"}
    return {"ok": True}
