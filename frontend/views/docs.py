"""The docs as pages of the site (frontend.docs): what a page tells a person to read, they can open.

They are open to everyone, as the API's docs are: the top bar's Help leads a visitor who is not logged in
yet to the guides too (issue 46), and nothing in docs/ is kept from anyone who reads the repository."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from frontend.docs import doc_folders, doc_html, docs_index, folder_page


@require_GET
def index(request: HttpRequest) -> HttpResponse:
    return render(request, "frontend/docs_index.html", {"title": "Help", "sections": docs_index()})


@require_GET
def doc(request: HttpRequest, page: str) -> HttpResponse:
    if page in doc_folders():  # where a link to a folder (`decisions/`) leads: its README, else its index
        readme = folder_page(page)
        if readme is None:
            context = {"title": f"Help: {page}", "sections": docs_index(page), "folder": page}
            return render(request, "frontend/docs_index.html", context)
        page = readme
    found = doc_html(page)
    if found is None:
        raise Http404("There is no such page in the docs.")
    title, html = found
    return render(request, "frontend/doc.html", {"title": title, "html": html, "page": page})
