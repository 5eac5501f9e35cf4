"""Vision systems (register, scoped tokens, sessions and results) and the leaderboards."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from accounts.roles import may
from evaluation.errors import EvaluationErrorCode
from evaluation.leaderboard_row import Column, positions_pooled_under, shown_columns
from evaluation.selectors import access as selectors
from evaluation.selectors import leaderboard as boards
from evaluation.services import systems as system_services
from frontend.plots import leaderboard as plots
from frontend.plots.degradation import accuracy_by_reference
from frontend.plots.system import system_plots
from kernel.kinds import KINDS
from truthing.published import frozen_tests, image_file_of_test, plan_of_test, ranked_tests
from vtt_site.errors import ApplicationError
from vtt_site.storage import CACHED, file_response


def _require(request: HttpRequest, operation: str) -> None:
    if not may(request.user, operation):
        raise PermissionDenied


@login_required
@require_http_methods(["GET", "POST"])
def systems(request: HttpRequest) -> HttpResponse:
    _require(request, "evaluation.system.list")
    if request.method == "POST":
        _require(request, "evaluation.system.create")
        try:
            system = system_services.system_create(
                owner=request.user,
                name=request.POST.get("name", ""),
                description=request.POST.get("description", ""),
                url=request.POST.get("url", ""),
                public=request.POST.get("public") == "on",
                shown=request.POST.get("shown", "image"),
            )
            messages.success(request, f"Vision system {system.name!r} registered.")
            return redirect("frontend:system", system_id=system.pk)
        except ApplicationError as exc:
            messages.error(request, exc.message)
    context = {"systems": selectors.systems_visible(user=request.user), "tests": frozen_tests()}
    return render(request, "frontend/systems.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def system_detail(request: HttpRequest, system_id: int) -> HttpResponse:
    """Anyone who may read leaderboards sees a public system's (or a baseline's) scores; its owner and
    admins see its tokens and every session with each question, answer and truth too."""
    _require(request, "evaluation.system.scores")
    try:
        system = selectors.access_listed_system(user=request.user, system_id=system_id)
    except ApplicationError:
        raise Http404 from None
    full = selectors.sees_all_sessions(system, user=request.user)
    created_secret = None
    if request.method == "POST":
        if not full:  # a token is made by the owner; others reading a public system post nothing here
            raise Http404
        _require(request, "evaluation.system.token.create")
        try:
            system = selectors.access_system(user=request.user, system_id=system_id, act=True)
            token, created_secret = system_services.system_token_create(
                system=system, name=request.POST.get("name", "")
            )
            messages.success(request, f"Token {token.name!r} created for {system.name}. Copy it now.")
        except ApplicationError as exc:
            messages.error(request, exc.message)
    scores = boards.system_scores(system=system, user=request.user)
    for entry in scores["sessions"]:
        entry["plots"] = system_plots(entry)
    context = {
        "system": system,
        "full": full,
        "scores": scores,
        "sessions": boards.system_sessions(system=system) if full else [],
        "tokens": selectors.system_tokens(system=system) if full else [],
        "created_secret": created_secret,
    }
    return render(request, "frontend/system.html", context)


@login_required
def system_session_image(request: HttpRequest, system_id: int, session_id: int, test_image_id: int):
    """The picture of a stream of a session that is over, for who sees the system's sessions (its
    owner, admins) beside the questions and answers: never before the session has ended."""
    _require(request, "evaluation.system.scores")
    try:
        system = selectors.access_listed_system(user=request.user, system_id=system_id)
    except ApplicationError:
        raise Http404 from None
    session = selectors.system_session_over(system=system, session_id=session_id)
    if session is None or not selectors.sees_all_sessions(system, user=request.user):
        raise Http404
    plan = plan_of_test(test_id=session.test_id)
    if plan is None or test_image_id not in {stream.test_image_id for stream in plan.streams}:
        raise Http404
    file = image_file_of_test(test_id=session.test_id, test_image_id=test_image_id)
    if file is None:
        raise Http404
    return file_response(file, cache=CACHED)


@login_required
def leaderboards(request: HttpRequest) -> HttpResponse:
    _require(request, "evaluation.leaderboard.read")
    return render(request, "frontend/leaderboards.html", {"tests": ranked_tests()})


@login_required
def leaderboard(request: HttpRequest, test_id: int) -> HttpResponse:
    _require(request, "evaluation.leaderboard.read")
    if selectors.taking(user=request.user, test_id=test_id):
        return render(request, "frontend/leaderboard.html", {"taking": True}, status=409)
    try:
        board = boards.leaderboard(test_id=test_id, user=request.user)
    except ApplicationError as refusal:
        if refusal.code != EvaluationErrorCode.NO_LEADERBOARD:
            raise
        return _no_leaderboard(request, refusal.message)
    if board is None:
        raise Http404
    shown = board["rows"][:8]
    names = [row["system"]["name"] for row in shown]
    columns = shown_columns()
    context = {
        "board": board,
        "columns": columns,
        "table": [[_cell(column, row) for column in columns] for row in board["rows"]],
        "width": sum(len(column.headings) for column in columns),
        "pooled_under": positions_pooled_under(board["test"]["state"]),
        "by_position_svg": plots.accuracy_by_position(
            [(n, row["by_position"]) for n, row in zip(names, shown, strict=True)],
            minimum=positions_pooled_under(board["test"]["state"]),
            streams=board["test"]["streams"],
        ),
        "by_kind_svg": plots.accuracy_by_kind(
            [(n, row["by_kind"]) for n, row in zip(names, shown, strict=True)], KINDS
        ),
        "by_reference_svg": accuracy_by_reference(
            [(n, row["by_reference"]) for n, row in zip(names, shown, strict=True)]
        ),
        "reliability_svg": _reliability(shown),
    }
    return render(request, "frontend/leaderboard.html", context)


def _no_leaderboard(request: HttpRequest, why: str) -> HttpResponse:
    """A practice test's leaderboard address (issue 46): why there is none, and the reader's systems,
    whose pages list their practice sessions, rather than a bare "There is no page"."""
    owner = may(request.user, "evaluation.system.list")
    systems = list(selectors.systems_visible(user=request.user)) if owner else []
    context = {"practice": {"why": why, "owner": owner, "systems": systems}}
    return render(request, "frontend/leaderboard.html", context)


def _reliability(shown: list[dict[str, Any]]) -> Any:
    """The reliability diagram of the rows shown in the other plots that gave probabilities, or None. A
    row that gave none keeps its place in the series, so each system has the colour it has there."""
    if not any(row["forecasts"] for row in shown):
        return None
    return plots.reliability_by_system(
        [
            (row["system"]["name"], row["forecasts"]["reliability"] if row["forecasts"] else None)
            for row in shown
        ]
    )


def _cell(column: Column, row: dict[str, Any]) -> dict[str, Any]:
    return {"template": f"frontend/leaderboard_cells/{column.cell}.html", "value": row[column.key]}
