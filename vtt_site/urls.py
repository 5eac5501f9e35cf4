"""URL map: the API under /api/v1/, health checks, the admin and the web UI."""

import sys

from django.contrib import admin
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.urls import URLPattern, URLResolver, include, path
from django.utils.module_loading import import_string
from django.views.decorators.http import require_GET
from django.views.defaults import bad_request, server_error
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from vtt_site.api.errors import error_body
from vtt_site.database import DATABASE_UNAVAILABLE, RETRY_AFTER_SECONDS, database_unavailable
from vtt_site.errors import CommonErrorCode, SiteErrorCode
from vtt_site.health import healthz, readyz
from vtt_site.storage import STORAGE_UNAVAILABLE, storage_unavailable

api_v1: list[URLPattern | URLResolver] = [
    # First, under its own prefix: a vision system answers thousands of questions in a row, and every
    # pattern tried before the one that matches costs each request a regular expression.
    path("evaluation/", include("evaluation.urls")),
    path("", include("accounts.urls")),
    path("", include("annotations.urls")),
    path("", include("datasets.urls")),
    path("", include("crowd.urls")),
    path("", include("engine.urls")),
    path("", include("truthing.urls")),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api:schema"), name="docs"),
]


def no_favicon(request: HttpRequest) -> HttpResponse:
    """The site's own pages say they have no icon (`<link rel="icon" href="data:,">`); the admin's and the
    API's pages cannot, so a browser asks for /favicon.ico there: no content, rather than a 404 logged
    for every page an admin opens."""
    return HttpResponse(status=204, headers={"Cache-Control": "max-age=86400"})


urlpatterns = [
    path("favicon.ico", require_GET(no_favicon)),
    path("healthz", healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),
    path("api/v1/", include((api_v1, "api"))),
    path("admin/", admin.site.urls),
    path("", include("frontend.urls")),
]


def _page(name: str):
    """The web UI's error page (frontend.views.errors), named like the UI's URLs: by a string, so the
    bottom layer does not import the top one."""
    return import_string(f"frontend.views.errors.{name}")


def _is_api(request) -> bool:
    return request.path.startswith("/api/")


def handler404(request, exception=None):
    if _is_api(request):
        return JsonResponse(
            error_body(CommonErrorCode.NOT_FOUND, f"No API endpoint at {request.path}."), status=404
        )
    return _page("not_found")(request, exception)


def handler403(request, exception=None):
    if _is_api(request):
        message = "You are not allowed to do this."
        return JsonResponse(error_body(CommonErrorCode.PERMISSION_DENIED, message), status=403)
    return _page("forbidden")(request, exception)


def handler400(request, exception=None):
    if _is_api(request):
        return JsonResponse(
            error_body(CommonErrorCode.BAD_REQUEST, "The request was refused as malformed."), status=400
        )
    return bad_request(request, exception)


def handler500(request):
    if database_unavailable(sys.exc_info()[1]):
        return _unavailable(request, DATABASE_UNAVAILABLE, "its database")
    if storage_unavailable(sys.exc_info()[1]):
        return _unavailable(request, STORAGE_UNAVAILABLE, "its file store")
    if _is_api(request):
        return JsonResponse(
            error_body(CommonErrorCode.SERVER_ERROR, "The server failed to handle this request."), status=500
        )
    return server_error(request)


def _unavailable(request, message: str, what: str):
    """503 with Retry-After: the error shape for the API, a page of its own for the web, rendered
    without the request (no user, no navigation), since those need the database that may be down."""
    response: HttpResponse
    if _is_api(request):
        response = JsonResponse(error_body(SiteErrorCode.SERVICE_UNAVAILABLE, message), status=503)
    else:
        page = render_to_string(
            "frontend/unavailable.html", {"retry_after": RETRY_AFTER_SECONDS, "what": what}
        )
        response = HttpResponse(page, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response
