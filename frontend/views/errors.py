"""The web pages' 403, 404 and 405: in the site's layout, saying why, with the way back.

`/api/` paths never come here: vtt_site.urls answers them in the API's JSON error shape, and DRF views
answer their own 403 and 405.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import Resolver404, reverse
from django.utils.text import capfirst

from accounts.roles import roles_of


def _back(request: HttpRequest) -> str | None:
    """The page the user came from, when it is on this site and not the page that failed."""
    referer = request.META.get("HTTP_REFERER", "")
    parts = urlsplit(referer)
    if not referer or (parts.netloc and parts.netloc != request.get_host()):
        return None
    back = parts.path + (f"?{parts.query}" if parts.query else "")
    return back if parts.path != request.path else None


def _page(request: HttpRequest, status: int, context: dict) -> HttpResponse:
    context = {"status": status, "back": _back(request), "roles": sorted(roles_of(request.user)), **context}
    return render(request, "frontend/error.html", context, status=status)


def not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    # A missing object says which (the selectors' message); an unknown address says so.
    message = exception.args[0] if exception is not None and exception.args else None
    if isinstance(exception, Resolver404) or not isinstance(message, str) or not message:
        message = f"There is no page at {request.path}."
    return _page(request, 404, {"message": message, "in_collection": _in_collection(request)})


# The pages of what lives in a collection: there, "not found" may also mean "not a member". Elsewhere
# (tests, systems, leaderboards) membership has nothing to do with it (issue 20: /tests/999 blamed it).
COLLECTION_PAGES = frozenset(
    {
        "collection",
        "upload",
        "import-start",
        "import",
        "annotate-next",
        "review-next",
        "image",
        "annotate",
        "review",
    }
)


def _in_collection(request: HttpRequest) -> bool:
    match = getattr(request, "resolver_match", None)
    return match is not None and match.url_name in COLLECTION_PAGES


def forbidden(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    message = exception.args[0] if exception is not None and exception.args else None
    if not isinstance(message, str) or not message:
        refused = _admin_add_refused(request)
        if refused is not None:
            return _page(request, 403, refused)
        message = "Your role does not allow this."
    return _page(request, 403, {"message": message})


def _admin_add_refused(request: HttpRequest) -> dict[str, str] | None:
    """Why the admin's add page of a model only the platform writes (streams, steps, jobs, scores...)
    refuses an admin who may see its rows: Django's admin raises a bare 403 there, which would blame
    the admin's role."""
    match = getattr(request, "resolver_match", None)
    if match is None or match.namespace != "admin" or not (match.url_name or "").endswith("_add"):
        return None
    model_admin = getattr(match.func, "model_admin", None)  # Django's admin marks its views so
    if not isinstance(model_admin, admin.ModelAdmin) or not model_admin.has_view_permission(request):
        return None
    meta = model_admin.model._meta
    return {
        "message": f"{capfirst(meta.verbose_name_plural)} are written by the platform, never added by hand: "
        "the admin lists them and shows each one.",
        "written_by_platform": reverse(f"admin:{meta.app_label}_{meta.model_name}_changelist"),
        "listed": capfirst(meta.verbose_name_plural),
    }


def method_not_allowed(request: HttpRequest, allowed: list[str]) -> HttpResponse:
    named = [method for method in allowed if method not in ("OPTIONS", "HEAD")]
    allowed_text = " or ".join(named) if named else "other methods"
    message = f"{request.path} does not answer a {request.method} request (it takes {allowed_text})."
    if request.method == "GET" and "POST" in allowed:
        message += " It is what a button on another page sends: use that button instead of the address."
    response = _page(request, 405, {"message": message})
    response["Allow"] = ", ".join(allowed)
    return response
