"""The rules every truthing write obeys, and the row locks it takes first.

Every service that changes a stream, a check or a test locks its row here (by id: the caller may hold a
stale copy) and checks these rules under the lock, so that two writes of one stream never interleave and
a published test never changes. The bottom of truthing's services: it imports none of them.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import models

from kernel.kinds import labels_an_object
from truthing.conf import conf
from truthing.errors import TruthingErrorCode
from truthing.models import Check, Step, StepAnswer, Stream, StreamState, Test, TestState, TruthingMode
from vtt_site.errors import ApplicationError, CommonErrorCode, ConflictError, NotFoundError

ANSWERS = tuple(StepAnswer.values)


def lock_stream(stream_id: int) -> Stream:
    stream = (
        Stream.objects.select_for_update(of=("self",))
        .select_related("test_image__test__statistics", "test_image__image")
        .filter(pk=stream_id)
        .first()
    )
    if stream is None:
        raise NotFoundError(TruthingErrorCode.STREAM_NOT_FOUND, f"There is no stream {stream_id}.")
    return stream


def lock_check(check_id: int) -> Check:
    check = (
        Check.objects.select_for_update(of=("self",))
        .select_related("stream__test_image__test", "stream__test_image__image")
        .filter(pk=check_id)
        .first()
    )
    if check is None:
        raise NotFoundError(TruthingErrorCode.CHECK_NOT_FOUND, f"There is no check {check_id}.")
    return check


def lock_test(test_id: int) -> Test:
    test = Test.objects.select_for_update().filter(pk=test_id).first()
    if test is None:
        raise NotFoundError(TruthingErrorCode.TEST_NOT_FOUND, f"There is no test {test_id}.")
    return test


def growing(stream: Stream) -> bool:
    """A pool stream an admin added to a published test (`pool_grow`) and no session was dealt yet:
    operators truth it (and check it) while the test is published; once dealt it never changes."""
    return (
        stream.grown_at is not None
        and stream.test_image.test.state == TestState.PUBLISHED
        and not stream.dealings.exists()
    )


def require_stream_open(stream: Stream) -> None:
    """A stream's steps may change while its test is being truthed, or while it grows a published
    test's pool and has not been dealt."""
    if not growing(stream):
        require_open(stream.test_image.test)


def require_open(test: Test) -> None:
    """Streams and answers of a published (or archived) test never change."""
    if test.frozen:
        raise ConflictError(
            TruthingErrorCode.TEST_FROZEN,
            f"{test.name} is {test.state}: its streams and answers can no longer change.",
        )


def require_state(test: Test, state: TestState, doing: str) -> None:
    if test.state != state:
        raise ConflictError(
            TruthingErrorCode.WRONG_TEST_STATE,
            f"{test.name} is {test.state}; only a test in {state} can be {doing}.",
        )


def check_answer_value(answer: str) -> None:
    if answer not in ANSWERS:
        raise ApplicationError(
            CommonErrorCode.INVALID,
            f"answer must be one of {', '.join(ANSWERS)}.",
            fields={"answer": [f"One of {', '.join(ANSWERS)}."]},
        )


def check_point(point: Sequence[float] | None, *, step: Step, answer: str, width: int, height: int) -> None:
    """A point marks the object a "yes" to a uniqueness question singled out: only such an answer may
    carry one, and it lies on the image (image pixels, [x, y])."""
    if point is None:
        return
    if not labels_an_object(step.question.get("kind")) or answer != StepAnswer.YES:
        raise ApplicationError(
            CommonErrorCode.INVALID,
            "Only a yes to “Is there a unique …?” singles out an object to point at.",
            fields={"point": ["Send a point only with a yes to a uniqueness question."]},
        )
    x, y = point
    if not (0 <= x <= width and 0 <= y <= height):
        raise ApplicationError(
            CommonErrorCode.INVALID,
            f"The point ({x:g}, {y:g}) is outside the image ({width} by {height} px).",
            fields={"point": [f"Between (0, 0) and ({width}, {height})."]},
        )


def describe(stream: Stream) -> str:
    """A stream as a person names it: its image (and number, when the image has several)."""
    name = stream.test_image.image.original_name
    return name if stream.test_image.test.streams_per_image == 1 else f"{name} (stream {stream.number + 1})"


def lease_minutes() -> int:
    return conf.TRUTHING_LEASE_MINUTES


def operator_streams() -> models.QuerySet[Stream]:
    """Streams operators truth: of tests being truthed, on images without a reviewed annotation; and the
    streams an admin added to a published test's pool (`pool_grow`)."""
    return Stream.objects.filter(
        models.Q(test_image__test__state=TestState.TRUTHING)
        | models.Q(test_image__test__state=TestState.PUBLISHED, grown_at__isnull=False),
        test_image__mode=TruthingMode.OPERATOR,
    ).exclude(state=StreamState.ENDED)
