"""The home page: the collections a user works on, their progress and what the user may do there."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from accounts.roles import may, roles_of
from annotations.models import Collection
from annotations.selectors.collections import (
    collection_list,
    collection_progress,
    collections_progress,
    memberships_lacking_role,
)
from evaluation.selectors.access import systems_visible
from frontend.views.common import allowed_actions
from truthing.published import published_tests

# The environment variable the client snippet reads the system's token from (as `vtt take` does): the
# lines run as they are copied, and the secret stays out of the file (issue 46).
TOKEN_VARIABLE = "VTT_TOKEN"

STAGES = (
    ("new", "new"),
    ("in_annotation", "in annotation"),
    ("in_review", "in review"),
    ("accepted", "accepted"),
)


def progress_rows(progress: dict[str, Any]) -> list[dict[str, Any]]:
    """The selector's counts as table rows (all, then each split), each with the widths of a stacked bar."""
    rows: list[dict[str, Any]] = [{"label": "all", "counts": progress}]
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
    # Every collection the user is a member of, even without the role to work there (issue 46: a member
    # an admin gave no role group saw none, though its page opened): what they lack is said above them.
    collections = list(collection_list(user=request.user))
    progress = collections_progress(collections=collections)
    context = {
        "roles": sorted(roles_of(request.user)),
        "lacking": memberships_lacking_role(user=request.user),
        "works_on_collections": may(request.user, "collection.list"),
        "collections": [collection_summary(c, progress[c.pk]) for c in collections],
        "actions": allowed_actions(request.user),
        "stages": [label for _, label in STAGES],
    }
    if may(request.user, "evaluation.system.create"):
        context["owner"] = owner_start(request)
    return render(request, "frontend/home.html", context)


def owner_start(request: HttpRequest) -> dict[str, Any]:
    """A vision-system owner's start: their systems, the tests they may take (practice tests first: a
    new owner tries their integration there, as often as it takes), and the Python client's few lines
    with this site's address and a test filled in (a practice test if there is one), which run as they
    are once the token is in the environment."""
    tests = list(published_tests().order_by("-practice", "-published_at", "-id")[:20])
    practice = next((test for test in tests if test.practice), None)
    return {
        "systems": list(systems_visible(user=request.user).order_by("name")),
        "tests": tests,
        "practice": practice,
        "base_url": request.build_absolute_uri("/"),
        "test_id": tests[0].pk if tests else 1,
        "token_variable": TOKEN_VARIABLE,
    }
