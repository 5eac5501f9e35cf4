"""A crowd collection's setting up and watching: the crowd section of the collection page (settings,
agreement in sum, paused annotators), its form, lifting a pause, and the quality page."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from annotations.models import Collection
from crowd.quality import annotator_quality
from crowd.selectors import crowd_settings_of, merge_summary, pauses_active
from crowd.services.gold import pause_lift
from crowd.services.settings import FIELDS, WHOLE, crowd_settings_update
from frontend.plots.crowd import quality_chart
from frontend.views.common import allowed, collection_or_404, require
from vtt_site.errors import ApplicationError


def crowd_context(user: Any, collection: Collection) -> dict[str, Any]:
    """What the collection page shows of the crowd: to everyone whether it is one, to its reviewers the
    settings (a form), the agreement in sum and the paused annotators."""
    settings = crowd_settings_of(collection)
    crowd = settings.overlap > 1
    reviewing = allowed(user, "crowd.settings.update", collection)
    return {
        "crowd": crowd,
        "crowd_settings": settings,
        "crowd_may_set": reviewing,
        "crowd_summary": merge_summary(collection=collection) if crowd and reviewing else None,
        "crowd_pauses": list(pauses_active(collection=collection)) if crowd and reviewing else [],
    }


def _form_values(post) -> dict[str, Any]:
    """The form's fields as the service takes them: numbers where they read as numbers (anything else is
    passed on for the service to refuse with its message), the checkbox as a boolean."""
    values: dict[str, Any] = {"auto_accept": post.get("auto_accept") == "on"}
    for name in FIELDS:
        if name == "auto_accept" or name not in post:
            continue
        raw = post[name].strip()
        try:
            values[name] = int(raw) if name in WHOLE and raw.lstrip("-").isdigit() else float(raw)
        except ValueError:
            values[name] = raw
    return values


@login_required
@require_POST
def crowd_settings_save(request: HttpRequest, collection_id: int) -> HttpResponse:
    collection = collection_or_404(request.user, collection_id)
    require(request.user, "crowd.settings.update", collection)
    try:
        crowd_settings_update(collection=collection, values=_form_values(request.POST))
        messages.success(request, "Crowd settings saved.")
    except ApplicationError as exc:
        messages.error(request, exc.message)
    return redirect(f"/collections/{collection.pk}/#crowd")


@login_required
@require_POST
def crowd_pause_lift(request: HttpRequest, collection_id: int, user_id: int) -> HttpResponse:
    collection = collection_or_404(request.user, collection_id)
    require(request.user, "crowd.pauses.lift", collection)
    try:
        pause = pause_lift(collection=collection, annotator_id=user_id, user=request.user)
        messages.success(request, f"{pause.annotator.username} may take images again.")
    except ApplicationError as exc:
        messages.error(request, exc.message)
    return redirect(f"/collections/{collection.pk}/#crowd")


@login_required
@require_GET
def crowd_quality(request: HttpRequest, collection_id: int) -> HttpResponse:
    collection = collection_or_404(request.user, collection_id)
    require(request.user, "crowd.quality.read", collection)
    rows = annotator_quality(collection=collection)
    context = {
        "collection": collection,
        "rows": rows,
        "chart": quality_chart(rows) if rows else None,
        "summary": merge_summary(collection=collection),
        "settings": crowd_settings_of(collection),
    }
    return render(request, "frontend/crowd_quality.html", context)
