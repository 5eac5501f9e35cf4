"""Two guards that answer in the error shape instead of letting the server fail in its own way.

`RequestSizeLimitMiddleware`: refuse a request body over `UPLOAD_MAX_REQUEST_BYTES` from its Content-Length, before it is read.

Django's own limit (DATA_UPLOAD_MAX_MEMORY_SIZE) leaves file uploads out, so a 60 MB image used to be
received whole, spooled to disk, and only then refused; a 55 MB import was accepted. This check covers
every request, files included, and costs nothing: the body is never read.

`RequestDeadlineMiddleware`: a request still running after `REQUEST_TIMEOUT_SECONDS` is interrupted
with `RequestTimeoutError` (a 503 in the error shape), a few seconds before gunicorn would kill the
worker and send its own HTML page. Off (0) under `runserver` and in tests unless set.
"""

from __future__ import annotations

import signal
import threading

from django.conf import settings
from django.http import HttpResponse, JsonResponse

from vtt_site.errors import RequestTimeoutError, SiteErrorCode


class RequestSizeLimitMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        try:
            length = int(request.META.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        limit = settings.UPLOAD_MAX_REQUEST_BYTES
        if length > limit:
            message = f"The request has {length:,} bytes; the limit is {limit:,} bytes per request."
            response: HttpResponse
            if request.path.startswith("/api/"):
                body = {"code": SiteErrorCode.REQUEST_TOO_LARGE, "message": message, "fields": {}}
                response = JsonResponse(body, status=413)
            else:
                response = HttpResponse(message, status=413, content_type="text/plain; charset=utf-8")
            response["Connection"] = "close"  # the unread body must not be taken for the next request
            return response
        return self.get_response(request)


class RequestDeadlineMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        seconds = settings.REQUEST_TIMEOUT_SECONDS
        # signal.setitimer works only in the main thread: a sync gunicorn worker, or the test client.
        if not seconds or threading.current_thread() is not threading.main_thread():
            return self.get_response(request)
        previous = signal.signal(signal.SIGALRM, _expire)
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            return self.get_response(request)
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


def _expire(signum, frame):
    raise RequestTimeoutError()


class ContentSecurityPolicyMiddleware:
    """`Content-Security-Policy` on every response that has none: scripts and styles from this site only
    (no inline script anywhere; inline style attributes only, for the progress bars). The API docs page
    (Swagger UI) injects style elements, so it gets `DOCS_CONTENT_SECURITY_POLICY`; its start-up script
    is a file of its own (`SpectacularSwaggerSplitView`), so scripts stay from this site only."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        policy = settings.CONTENT_SECURITY_POLICY
        if request.path.startswith(settings.DOCS_PATH_PREFIX):
            policy = settings.DOCS_CONTENT_SECURITY_POLICY
        if policy and "Content-Security-Policy" not in response:
            response["Content-Security-Policy"] = policy
        return response
