"""The home page: the collections a user works on, their progress and what the user may do there."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from accounts.roles import may, roles_of
from annotations.models import Collection
from annotations.selectors.collections import collection_list, collection_progress, collections_progress
from frontend.views.common import allowed_actions

STAGES = (
    ("new", "new"),
    ("in_annotation", "in annotation"),
    ("in_review", "in review"),
    ("accepted", "accepted"),
)


def progress_rows(progress: dict[str, Any]) -> list[dict[str, Any]]:
    """The selector's counts as table rows (all, then each split), each with the widths of a stacked bar."""
    rows = [{"label": "all", "counts": progress}]
    rows += [{"label": split, "counts": counts} for split, counts in progress["by_split"].items()]
    for row in rows:
        total = row["counts"]["total"] or 1
        row["cells"] = [
            {
                "key": key,
                "label": label,
                "count": row["counts"][key],
                "percent": 100 * row["counts"][key] / total,
            }
            for key, label in STAGES
        ]
    return rows


def collection_summary(collection: Collection, progress: dict[str, Any] | None = None) -> dict[str, Any]:
    progress = progress if progress is not None else collection_progress(collection=collection)
    return {"collection": collection, "progress": progress_rows(progress)}


@login_required
def home(request: HttpRequest) -> HttpResponse:
    # Only roles that work on collections see them (the API's collection.list refuses the others).
    collections = list(collection_list(user=request.user)) if may(request.user, "collection.list") else []
    progress = collections_progress(collections=collections)
    context = {
        "roles": sorted(roles_of(request.user)),
        "collections": [collection_summary(c, progress[c.pk]) for c in collections],
        "actions": allowed_actions(request.user),
        "stages": [label for _, label in STAGES],
    }
    return render(request, "frontend/home.html", context)
