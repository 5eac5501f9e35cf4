"""Turns the bare 405 of a web page (Django's `require_POST` and friends, a class-based view's
`http_method_not_allowed`) into a page in the site's layout that says why and offers the way back.
`/api/` paths keep their JSON answers."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

from frontend.views.errors import method_not_allowed


class MethodNotAllowedPage:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code != 405 or request.path.startswith("/api/"):
            return response
        allowed = [method.strip() for method in response.get("Allow", "").split(",") if method.strip()]
        return method_not_allowed(request, allowed)
