"""Operators' writes on a stream they hold: answer the pending question, take an answer back, leave.

The next question is proposed in a worker once the answer commits (truthing.services.proposals).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.roles import is_admin
from kernel.kinds import label_made
from truthing.conf import conf
from truthing.errors import TruthingErrorCode
from truthing.models import Check, Step, Stream, StreamState
from truthing.services.proposals import stream_wait_for_proposal
from truthing.services.rules import (
    check_answer_value,
    check_point,
    describe,
    lease_minutes,
    lock_stream,
    require_stream_open,
)
from vtt_site.errors import ConflictError
from vtt_site.interactive import proposal_topic
from vtt_site.leases import lease_release, lease_renew, lease_require
from vtt_site.wakeups import awaiting


def pending_step(stream: Stream, index: int) -> Step:
    """The stream's pending step, which must be step `index`: an answer to any other step is refused."""
    step = stream.steps.filter(answer="").first() if stream.state == StreamState.PENDING else None
    if step is None or step.index != index:
        what = f"question {step.index + 1}" if step is not None else "no question"
        raise ConflictError(
            TruthingErrorCode.STEP_NOT_PENDING,
            f"Question {index + 1} of {describe(stream)} is not waiting for an answer ({what} is).",
            fields={"step": [f"The pending step is {step.index if step else 'none'}."]},
        )
    return step


@transaction.atomic
def step_answer(
    *,
    stream_id: int,
    user: Any,
    index: int,
    answer: str,
    seconds: float | None = None,
    point: Sequence[float] | None = None,
) -> Stream:
    """Store the operator's answer to the pending step; the next question is proposed in a worker.
    `point` ([x, y], image pixels, optional) is where they clicked the object a "yes" to a uniqueness
    question singled out: the label it makes means that object."""
    check_answer_value(answer)
    stream = lock_stream(stream_id)
    require_stream_open(stream)
    lease_require(stream, user, what=describe(stream), queue="the operator queue")
    step = pending_step(stream, index)
    image = stream.test_image.image
    check_point(point, step=step, answer=answer, width=image.width, height=image.height)
    answered = list(stream.steps.exclude(pk=step.pk).order_by("index"))
    step.answer, step.answered_by, step.answered_at = answer, user, timezone.now()
    step.seconds = seconds
    step.label = label_made([(s.question, s.answer) for s in answered], step.question, answer)
    step.point_x, step.point_y = point if point is not None and step.label else (None, None)
    step.save(
        update_fields=["answer", "answered_by", "answered_at", "seconds", "label", "point_x", "point_y"]
    )
    lease_renew(stream, minutes=lease_minutes())
    stream_wait_for_proposal(stream)
    return stream


def step_answer_and_wait(*, stream_id: int, user: Any, **answer: Any) -> None:
    """Answer (as `step_answer`, committed), then wait a bounded time for the next question, so that
    the answer's response carries it (`TRUTHING_ANSWER_WAIT_SECONDS`; vtt_site.wakeups). A slower
    proposal leaves the stream `proposing`, and the page reads it when it comes."""
    with awaiting(proposal_topic(stream_id)) as proposed:
        step_answer(stream_id=stream_id, user=user, **answer)
        if Stream.objects.filter(pk=stream_id, state=StreamState.PROPOSING).exists():
            proposed.wait(conf.TRUTHING_ANSWER_WAIT_SECONDS)


@transaction.atomic
def step_undo(*, stream_id: int, user: Any) -> Stream:
    """Take back the operator's last answer: the steps after it go, and it waits for an answer again
    (its question is the same: it depends only on the answers before it)."""
    stream = lock_stream(stream_id)
    require_stream_open(stream)
    lease_require(stream, user, what=describe(stream), queue="the operator queue")
    last = stream.steps.exclude(answer="").order_by("-index").first()
    if last is None or last.answered_by_id != user.pk or last.automatic:
        raise ConflictError(
            TruthingErrorCode.NOTHING_TO_UNDO,
            f"There is no answer of yours to take back in {describe(stream)}.",
        )
    if Check.objects.filter(stream=stream, answers__isnull=False).exists():
        raise ConflictError(
            TruthingErrorCode.NOTHING_TO_UNDO,
            f"{describe(stream)} is being checked already; its answers can no longer be taken back.",
        )
    Check.objects.filter(stream=stream).delete()
    stream.steps.filter(index__gt=last.index).delete()
    last.answer, last.label, last.answered_by, last.answered_at, last.seconds = "", "", None, None, None
    last.point_x = last.point_y = None
    last.save(
        update_fields=["answer", "label", "answered_by", "answered_at", "seconds", "point_x", "point_y"]
    )
    stream.state, stream.ended_at = StreamState.PENDING, None
    stream.save(update_fields=["state", "ended_at"])
    lease_renew(stream, minutes=lease_minutes())
    return stream


@transaction.atomic
def stream_leave(*, stream_id: int, user: Any) -> Stream:
    """The operator gives the stream back to the queue for someone else (an admin may release anyone's)."""
    stream = lock_stream(stream_id)
    lease_release(stream, user, what=describe(stream), may_release_any=is_admin(user))
    return stream
