"""Pages of truthing: the operator's work (a stream or a check), the reviewers' adjudication queue, the
tests with their cards, and the operators' statistics (admins).

The work page is a shell like the annotator's: the view checks role and lease and embeds the work in
the API's own shape (truthing.api.serializers.WorkSerializer), and the script then answers, undoes and
polls through the REST API. Adjudication and the test transitions are plain forms posted here (CSRF
token, post/redirect/get), each calling the one service the API calls, so the refusals read the same.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from accounts.roles import is_admin, may
from frontend.plots import card as plots
from frontend.plots.reliability import reliability_plot
from frontend.views.common import require
from frontend.views.ranking import ranking_context
from kernel.kinds import KINDS, labels_an_object
from scoring.stats import proportion
from truthing import reports, selectors
from truthing.api.serializers import WorkSerializer
from truthing.forms import SETTING_FIELDS, TestFromCollectionsForm
from truthing.models import Check, Disagreement, Stream, StreamState, TestState
from truthing.services import audit, lifecycle
from truthing.services.adjudication import disagreement_decide as decide
from truthing.services.queue import operator_next
from vtt_site.errors import ApplicationError, NotFoundError
from vtt_site.leases import holds_lease

# --- the operator's work ---------------------------------------------------------------------------

# A question takes no answer until it has been on screen this long (issue 38, item 3): a second press of
# a key meant for the previous question (presses 60 ms apart were seen) must not answer this one unseen.
# Far below the time it takes to read a question, so that no deliberate answer waits on it.
QUESTION_SETTLE_MS = 300


@login_required
@require_GET
def work_home(request: HttpRequest) -> HttpResponse:
    """What an operator starts from: the button that takes the next stream or check."""
    require(request.user, "truthing.queue.next")
    user_id = request.user.pk
    held = Stream.objects.filter(lease_holder_id=user_id).exclude(state=StreamState.ENDED).first()
    held_check = None if held else Check.objects.filter(lease_holder_id=user_id, finished_at=None).first()
    tests = selectors.list_tests().filter(state=TestState.TRUTHING)
    rows = [{"test": test, "left": selectors.streams_left(test)} for test in tests]
    return render(
        request, "frontend/truthing_home.html", {"held": held, "held_check": held_check, "tests": rows}
    )


@login_required
@require_POST
def work_next(request: HttpRequest) -> HttpResponse:
    require(request.user, "truthing.queue.next")
    work = operator_next(user=request.user)
    if work is None:
        messages.info(request, "Nothing is waiting for an operator: every stream is taken or has ended.")
        return redirect("frontend:truthing")
    if isinstance(work, Check):
        return redirect("frontend:truthing-check", check_id=work.pk)
    return redirect("frontend:truthing-stream", stream_id=work.pk)


def _work_page(request: HttpRequest, work: Stream | Check) -> HttpResponse:
    if not (holds_lease(work, request.user) or is_admin(request.user)):
        messages.warning(request, "That work is not yours (any more): take the next with “Take next”.")
        return redirect("frontend:truthing")
    view = WorkSerializer(selectors.work_view(work)).data
    kind = view["kind"]
    base = "api:truthing-stream" if kind == "stream" else "api:truthing-check"
    data = {
        "work": view,
        "urls": {
            "read": reverse(base, args=[work.pk]),
            "answer": reverse(f"{base}-answer", args=[work.pk]),
            "undo": reverse(f"{base}-undo", args=[work.pk]),
            "leave": reverse(f"{base}-leave", args=[work.pk]),
            "home": reverse("frontend:truthing"),
        },
        # The kinds whose yes singles out an object the operator may point at (uniqueness).
        "labelling_kinds": [name for name in KINDS if labels_an_object(name)],
        "settle_ms": QUESTION_SETTLE_MS,
    }
    context = {"work": view, "data": data, "settle_ms": QUESTION_SETTLE_MS}
    return render(request, "frontend/truthing_work.html", context)


@login_required
@require_GET
def stream_work(request: HttpRequest, stream_id: int) -> HttpResponse:
    require(request.user, "truthing.stream.read")
    return _work_page(request, _or_404(selectors.stream_get, stream_id=stream_id))


@login_required
@require_GET
def check_work(request: HttpRequest, check_id: int) -> HttpResponse:
    require(request.user, "truthing.check.read")
    return _work_page(request, _or_404(selectors.check_get, check_id=check_id))


def _or_404(selector, **kwargs):
    try:
        return selector(**kwargs)
    except NotFoundError as exc:
        raise Http404(exc.message) from None


# --- adjudication (reviewers) ----------------------------------------------------------------------

ADJUDICATION_PAGE = 50  # the oldest first; deciding them brings the next


@login_required
@require_GET
def disagreements(request: HttpRequest) -> HttpResponse:
    """Every open disagreement with its image, the question's region and both answers."""
    require(request.user, "truthing.disagreement.list")
    rows = []
    for disagreement in selectors.disagreement_list().select_related("step__answered_by")[:ADJUDICATION_PAGE]:
        step = disagreement.step
        image = step.stream.test_image.image
        region = (step.question.get("region") or {}).get("box")
        rows.append(
            {
                "disagreement": disagreement,
                "step": step,
                "image": image,
                "region": region,
                "labels": _labels_before(step),
                # Markers keep a readable size whatever the picture's: a fraction of its larger side.
                "marker_r": max(image.width, image.height) / 50,
                "marker_dot": max(image.width, image.height) / 200,
                "file_url": reverse("api:image-file", args=[image.pk]) if image.file else None,
            }
        )
    total = selectors.disagreement_list().count()
    return render(request, "frontend/disagreements.html", {"rows": rows, "total": total})


def _labels_before(step) -> list[dict[str, Any]]:
    """The labels the question may name, with their defining regions and the points where the operator
    clicked their objects (to draw them next to it), each with its colour class."""
    earlier = step.stream.steps.filter(index__lt=step.index).exclude(label="").order_by("index")
    return [
        {
            "label": s.label,
            "text": s.text,
            "box": (s.question.get("region") or {}).get("box"),
            "point": s.point,
            "colour": f"c{n % 6}",
        }
        for n, s in enumerate(earlier)
    ]


@login_required
@require_POST
def disagreement_decide(request: HttpRequest, disagreement_id: int) -> HttpResponse:
    require(request.user, "truthing.disagreement.decide")
    answer = request.POST.get("answer", "")
    stored = Disagreement.objects.filter(pk=disagreement_id).values_list("step__answer", flat=True).first()
    try:
        decided = decide(disagreement_id=disagreement_id, user=request.user, answer=answer)
    except ApplicationError as exc:
        messages.error(request, f"Not decided: {exc.message}")
    else:
        kept = stored == answer
        messages.success(
            request,
            f"Decided “{answer}” for question {decided.step.index + 1} of "
            f"{decided.step.stream.test_image.image.original_name}: "
            + (
                "the stored answer stands."
                if kept
                else "the stream is cut after it and proposed again from there."
            ),
        )
    return redirect("frontend:disagreements")


# --- tests and their cards -------------------------------------------------------------------------


@login_required
@require_GET
def list_tests(request: HttpRequest) -> HttpResponse:
    require(request.user, "truthing.test.list")
    rows = []
    for test in selectors.list_tests():
        counts = selectors.open_work_counts(test)
        rows.append({"test": test, "streams": counts["total"], "ended": counts["ended"]})
    context = {"rows": rows, "may_create": may(request.user, "truthing.test.create")}
    return render(request, "frontend/tests.html", context)


@login_required
@require_GET
def show_test(request: HttpRequest, test_id: int) -> HttpResponse:
    require(request.user, "truthing.test.read")
    test = _or_404(selectors.get_test, test_id=test_id)
    card = reports.card_of_test(test=test)
    asked = card["answered"] + card["rejected"]
    automatic = reports.automatic_progress(test)
    test_audit = getattr(test, "audit", None)
    context = {
        "test": test,
        "card": card,
        "rejected": proportion(card["rejected"], asked),
        "plots": plots.card_plots(card),
        "automatic": automatic,
        "audit": test_audit,
        "reliability": (
            reliability_plot(test_audit.report) if test_audit and test_audit.status == "done" else None
        ),
        "blockers": lifecycle.publish_blockers(test) if test.state == TestState.TRUTHING else [],
        "admin": may(request.user, "truthing.test.publish"),
        "streams": selectors.stream_rows_of_test(test, limit=CARD_STREAMS),
        # As many pools as streams: a 1,000-image test's whole table was most of its card's time.
        "pools": card["dealing"]["pools"][:CARD_STREAMS],
        "streams_shown": CARD_STREAMS,
        # The page reloads itself while a job of the test runs, so its progress and result appear.
        "job_running": (automatic is not None and automatic["status"] in ("queued", "truthing"))
        or (test_audit is not None and test_audit.status in ("queued", "auditing")),
    }
    context.update(ranking_context(test_id=test.pk, audit=context["audit"]))
    return render(request, "frontend/test_card.html", context)


CARD_STREAMS = 200  # the card lists the first ones; Export as JSON has them all


@login_required
@require_http_methods(["GET", "POST"])
def new_test(request: HttpRequest) -> HttpResponse:
    """An admin builds a test: name, statistics, test images from collections, streams per image and
    the engine settings (defaults shown); "Start truthing" creates it and starts it, through the same
    lifecycle services as the API and the Django admin."""
    require(request.user, "truthing.test.create")
    form = TestFromCollectionsForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            test = form.create(user=request.user)
        except ApplicationError as exc:
            form.add_refusal(exc)
        else:
            if "start" not in request.POST:
                messages.success(request, "Draft saved: start truthing it when you are ready.")
                return redirect("frontend:test", test_id=test.pk)
            return change_test(request, test.pk, "start")
    settings_fields = [form[name] for name in SETTING_FIELDS]
    return render(request, "frontend/test_new.html", {"form": form, "settings_fields": settings_fields})


# action -> (the service, its operation, what the page says when it is done)
TRANSITIONS: dict[str, tuple[Callable[..., Any], str, str]] = {
    "start": (lifecycle.start_test, "truthing.test.start", "Truthing started"),
    "audit": (
        audit.audit_start,
        "truthing.test.audit",
        "Audit queued: this page shows its report when it is done",
    ),
    "publish": (lifecycle.publish_test, "truthing.test.publish", "Published: vision systems may take it"),
    "archive": (lifecycle.archive_test, "truthing.test.archive", "Archived"),
}


@login_required
@require_POST
def change_test(request: HttpRequest, test_id: int, action: str) -> HttpResponse:
    if action not in TRANSITIONS:
        raise Http404(f"A test cannot be {action}ed.")
    service, operation, done = TRANSITIONS[action]
    require(request.user, operation)
    test = _or_404(selectors.get_test, test_id=test_id)
    options = _transition_options(action, request)
    try:
        service(test=test, **options)
    except ApplicationError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, f"{done}{' (a practice test)' if options.get('practice') else ''}.")
    return redirect("frontend:test", test_id=test.pk)


def _transition_options(action: str, request: HttpRequest) -> dict[str, Any]:
    """What the card's form adds to a transition: publishing says whether the test is a practice test
    (the box beside Publish, ticked beforehand when the test was made as one)."""
    if action == "publish":
        return {"practice": request.POST.get("practice") == "on"}
    return {}


# --- operators' statistics (admins) ----------------------------------------------------------------


@login_required
@require_GET
def operator_statistics(request: HttpRequest) -> HttpResponse:
    require(request.user, "truthing.operators.statistics")
    return render(request, "frontend/operators.html", {"rows": reports.operator_statistics()})
