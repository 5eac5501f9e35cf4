"""Reads of the truthing app: what an operator sees of their work, tests and their steps.

`work_view` is what the operator page and API show of a stream or a check: the image, the pending
question (structured and in English), every label instantiated so far with the question that defined
it, and the progress. A check shows the same questions as the stream it checks, never its answers.
"""

from __future__ import annotations

from typing import Any

from django.db.models import Count, Q, QuerySet

from annotations.models import Image
from annotations.selectors.images import image_picture, without_pixels
from truthing.errors import TruthingErrorCode
from truthing.models import Check, CheckKind, Step, Stream, StreamState, Test, TestState
from vtt_site.errors import NotFoundError


def list_tests() -> QuerySet[Test]:
    return (
        Test.objects.select_related("statistics", "created_by")
        .annotate(images=Count("test_images", distinct=True))
        .order_by("-created_at", "-id")
    )


def get_test(*, test_id: int) -> Test:
    test = list_tests().filter(pk=test_id).first()
    if test is None:
        raise NotFoundError(TruthingErrorCode.TEST_NOT_FOUND, f"There is no test {test_id}.")
    return test


def published_tests() -> QuerySet[Test]:
    """The tests vision systems may take."""
    return list_tests().filter(state=TestState.PUBLISHED)


def images_of_test(test: Test) -> QuerySet[Image]:
    return Image.objects.filter(pk__in=test.test_images.values("image"))


def pixels_missing(images: QuerySet[Image]) -> str:
    """How many of a test's images have no pixels, for a person ("12 of the 40 test images have no
    pixels"), or "" when every one has: what a test's creation and start refuse and its publication
    lists as a blocker."""
    missing = without_pixels(images).count()
    if not missing:
        return ""
    total = images.count()
    if total == 1:
        return "the test image has no pixels"
    if missing == total:
        return f"none of the {total} test images has pixels"
    return f"{missing} of the {total} test images {'has' if missing == 1 else 'have'} no pixels"


def stream_get(*, stream_id: int) -> Stream:
    stream = (
        Stream.objects.select_related("test_image__test", "test_image__image", "lease_holder")
        .filter(pk=stream_id)
        .first()
    )
    if stream is None:
        raise NotFoundError(TruthingErrorCode.STREAM_NOT_FOUND, f"There is no stream {stream_id}.")
    return stream


def check_get(*, check_id: int) -> Check:
    check = (
        Check.objects.select_related("stream__test_image__test", "stream__test_image__image", "lease_holder")
        .filter(pk=check_id)
        .first()
    )
    if check is None:
        raise NotFoundError(TruthingErrorCode.CHECK_NOT_FOUND, f"There is no check {check_id}.")
    return check


def _label_entries(steps: list[Step]) -> list[dict[str, Any]]:
    """Every label the steps instantiated, with the question that defined it (its region included) and
    the point where the operator clicked its object, when they did."""
    return [
        {
            "label": step.label,
            "step": step.index,
            "question": step.question,
            "text": step.text,
            "point": step.point,
        }
        for step in steps
        if step.label
    ]


def _history(steps: list[Step], answers: dict[int, str]) -> list[dict[str, Any]]:
    """The questions answered so far with `answers` (step index -> answer), oldest first, each with its
    structured form (the region it was about, the labels it names) and the label its yes made (a
    checker's no made none: the stream's label is in the labels, not here)."""
    return [
        {
            "step": step.index,
            "question": step.question,
            "text": step.text,
            "answer": answers[step.index],
            "label": step.label if answers[step.index] == "yes" else "",
        }
        for step in steps
        if step.index in answers
    ]


def _question(step: Step | None) -> dict[str, Any] | None:
    if step is None:
        return None
    return {"step": step.index, "question": step.question, "text": step.text}


def work_view(work: Stream | Check) -> dict[str, Any]:
    """The operator's view of a stream or a check (the same shape for both)."""
    stream = work.stream if isinstance(work, Check) else work
    test, image = stream.test_image.test, stream.test_image.image
    steps = list(stream.steps.order_by("index"))
    if isinstance(work, Check):
        # A checker's history is their own answers: the stored ones are what they check, unseen.
        given = dict(work.answers.values_list("step__index", "answer"))
        pending = next((s for s in steps if s.index not in given), None)
        state = "ended" if pending is None else "pending"
    else:
        given = {s.index: s.answer for s in steps if s.answer}
        pending = next((s for s in steps if not s.answer), None)
        state = stream.state
    answered = len(given)
    before = [s for s in steps if pending is None or s.index < pending.index]
    return {
        "kind": "check" if isinstance(work, Check) else "stream",
        "id": work.pk,
        "test": {"id": test.pk, "name": test.name, "state": test.state},
        "image": image_picture(image),
        "state": state,
        "pending": _question(pending),
        "labels": _label_entries(before),
        "history": _history(before, given),
        "progress": {"answered": answered, "streams_left": streams_left(test)},
        "lease_expires_at": work.lease_expires_at,
    }


def streams_left(test: Test) -> int:
    return Stream.objects.filter(test_image__test=test).exclude(state=StreamState.ENDED).count()


def steps_of_test(test: Test) -> QuerySet[Step]:
    return (
        Step.objects.of_pool_streams()
        .filter(stream__test_image__test=test)
        .select_related("stream__test_image__image", "answered_by")
    )


def disagreement_list():
    from truthing.models import Disagreement, DisagreementState

    return (
        Disagreement.objects.filter(state=DisagreementState.OPEN)
        .select_related("step__stream__test_image__test", "step__stream__test_image__image", "check_answer")
        .order_by("id")
    )


def gold_checks(test: Test | None = None) -> QuerySet[Check]:
    checks = Check.objects.filter(kind=CheckKind.GOLD)
    return checks.filter(stream__test_image__test=test) if test is not None else checks


def open_work_counts(test: Test) -> dict[str, int]:
    streams = Stream.objects.filter(test_image__test=test)
    return streams.aggregate(
        total=Count("id"),
        ended=Count("id", filter=Q(state=StreamState.ENDED)),
    )


def export_of_test(*, test: Test) -> dict[str, Any]:
    """The test with every stream and answer, as one JSON document (three queries)."""
    steps_by_stream: dict[int, list[dict[str, Any]]] = {}
    for step in (
        Step.objects.of_pool_streams()
        .filter(stream__test_image__test=test)
        .select_related("answered_by")
        .order_by("stream_id", "index")
    ):
        steps_by_stream.setdefault(step.stream_id, []).append(
            {
                "index": step.index,
                "question": step.question,
                "text": step.text,
                "p": step.p,
                "population": step.population,
                "answer": step.answer or None,
                "label": step.label or None,
                "point": step.point,
                "answered_by": "oracle" if step.automatic else getattr(step.answered_by, "username", None),
                "answered_at": step.answered_at.isoformat() if step.answered_at else None,
                "seconds": step.seconds,
            }
        )
    streams_by_image: dict[int, list[Stream]] = {}
    for stream in Stream.objects.filter(test_image__test=test).order_by("number"):
        streams_by_image.setdefault(stream.test_image_id, []).append(stream)
    return {
        "name": test.name,
        "description": test.description,
        "state": test.state,
        "seed": test.seed,
        "engine_settings": test.engine_settings,
        "statistics": {"id": test.statistics_id, "vocabulary": test.statistics.vocabulary.name},
        "published_at": test.published_at.isoformat() if test.published_at else None,
        "images": [
            {
                "position": ti.position,
                "image": ti.image.original_name,
                "width": ti.image.width,
                "height": ti.image.height,
                "truthed": ti.mode,
                "streams": [
                    {"number": s.number, "state": s.state, "steps": steps_by_stream.get(s.pk, [])}
                    for s in streams_by_image.get(ti.pk, [])
                ],
            }
            for ti in test.test_images.select_related("image").order_by("position")
        ],
    }


def stream_rows_of_test(test: Test, *, limit: int) -> list[Stream]:
    """The test's first `limit` streams in test order for its card, each with its image, how it is
    truthed, who holds it and `answered` (its questions answered yes or no)."""
    order = ("test_image__position", "number")
    # The first `limit` streams first, then their counts: counting every stream's steps to show 200
    # took 101 ms on a 1,000-image test, and grew with it.
    first = list(
        Stream.objects.filter(test_image__test=test).order_by(*order).values_list("pk", flat=True)[:limit]
    )
    answered = Count("steps", filter=Q(steps__answer__in=["yes", "no"]))
    return list(
        Stream.objects.filter(pk__in=first)
        .select_related("test_image__image", "lease_holder")
        .annotate(answered=answered)
        .order_by(*order)
    )
