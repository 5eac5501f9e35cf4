"""The docs as pages of the site (frontend.docs): what a page tells a person to read, they can open."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from frontend.docs import doc_html


@login_required
@require_GET
def doc(request: HttpRequest, page: str) -> HttpResponse:
    found = doc_html(page)
    if found is None:
        raise Http404("There is no such page in the docs.")
    title, html = found
    return render(request, "frontend/doc.html", {"title": title, "html": html, "page": page})
