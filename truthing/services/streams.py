"""Just-in-time truthing: proposing a stream's next question, answering it, taking an answer back.

The engine runs in a Celery task (`stream_propose`), queued when an answer commits. Every write locks
the stream row first, so an answer, an undo and a proposal of one stream never interleave, and the
proposal is idempotent: it only acts on a stream that waits for the engine, and the question it adds is
a pure function of the stored answers (truthing.bridge), so a retried or redelivered task finds the
step already there, or adds exactly the step the first attempt would have added.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from engine.core.drivers import PROPOSALS_PER_ANSWER_LIMIT
from truthing import bridge, tasks
from truthing.errors import TruthingErrorCode
from truthing.models import Check, Step, StepAnswer, Stream, StreamState, TestState, TruthingMode
from truthing.services.checks import checks_create_for
from truthing.services.tests import require_open
from vtt_site.errors import ApplicationError, CommonErrorCode, ConflictError, NotFoundError
from vtt_site.jobs import task_send
from vtt_site.leases import lease_release, lease_renew, lease_require

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


def describe(stream: Stream) -> str:
    """A stream as a person names it: its image (and number, when the image has several)."""
    name = stream.test_image.image.original_name
    return name if stream.test_image.test.streams_per_image == 1 else f"{name} (stream {stream.number + 1})"


# --- Proposing (in a worker) ----------------------------------------------------------------------------


@transaction.atomic
def stream_propose(*, stream_id: int) -> Stream:
    """Add the next question to a stream that waits for the engine, or end it. Safe to run twice."""
    stream = lock_stream(stream_id)
    if stream.state != StreamState.PROPOSING or stream.test_image.test.frozen:
        return stream
    answered = list(stream.steps.order_by("index"))
    max_questions = bridge.settings_of(stream.test_image.test).max_questions
    proposed = None
    # Rejected questions do not count towards max_questions; this bounds a stream's steps anyway.
    if len(answered) < PROPOSALS_PER_ANSWER_LIMIT * max_questions:
        proposed = bridge.propose(stream.test_image, stream.number, answered)
    if proposed is None:
        _end(stream)
        return stream
    Step.objects.create(
        stream=stream,
        index=len(answered),
        question=proposed.question,
        text=proposed.text,
        p=proposed.p,
        population=proposed.population,
    )
    stream.state, stream.proposing_since = StreamState.PENDING, None
    stream.save(update_fields=["state", "proposing_since"])
    return stream


def _end(stream: Stream) -> None:
    """The engine found nothing unpredictable: the stream is over. The operator keeps the lease until
    they take new work, so that they may still take their last answer back."""
    stream.state, stream.ended_at, stream.proposing_since = StreamState.ENDED, timezone.now(), None
    stream.save(update_fields=["state", "ended_at", "proposing_since"])
    checks_create_for(stream)


# --- Answering (operators) ------------------------------------------------------------------------------


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


def check_answer_value(answer: str) -> None:
    if answer not in ANSWERS:
        raise ApplicationError(
            CommonErrorCode.INVALID,
            f"answer must be one of {', '.join(ANSWERS)}.",
            fields={"answer": [f"One of {', '.join(ANSWERS)}."]},
        )


@transaction.atomic
def step_answer(
    *, stream_id: int, user: Any, index: int, answer: str, seconds: float | None = None
) -> Stream:
    """Store the operator's answer to the pending step; the next question is proposed in a worker."""
    check_answer_value(answer)
    stream = lock_stream(stream_id)
    require_open(stream.test_image.test)
    lease_require(stream, user, what=describe(stream), queue="the operator queue")
    step = pending_step(stream, index)
    answered = list(stream.steps.exclude(pk=step.pk).order_by("index"))
    step.answer, step.answered_by, step.answered_at = answer, user, timezone.now()
    step.seconds = seconds
    step.label = bridge.label_made(stream.test_image, answered, step, answer)
    step.save(update_fields=["answer", "answered_by", "answered_at", "seconds", "label"])
    lease_renew(stream, minutes=lease_minutes())
    stream_wait_for_proposal(stream)
    return stream


def stream_wait_for_proposal(stream: Stream, *extra_fields: str) -> None:
    """The stream waits for the engine: the proposal task is queued when the transaction commits."""
    stream.state, stream.proposing_since = StreamState.PROPOSING, timezone.now()
    stream.save(update_fields=["state", "proposing_since", *extra_fields])
    transaction.on_commit(lambda: queue_proposal(stream.pk))


def queue_proposal(stream_id: int) -> bool:
    """Hand the proposal task to the broker. Never raises: with the broker down the answer is kept, the
    stream waits, and the sweeper queues the task again once the broker is back."""
    return task_send(lambda: tasks.stream_propose.delay(stream_id), f"the proposal of stream {stream_id}")


def streams_sweep() -> int:
    """Queue again the proposals of streams that have waited for the engine too long; how many."""
    stale = timezone.now() - timedelta(seconds=settings.JOB_STALE_SECONDS)
    waiting = Stream.objects.filter(state=StreamState.PROPOSING, proposing_since__lt=stale)
    waiting = waiting.exclude(test_image__test__state__in=[TestState.PUBLISHED, TestState.ARCHIVED])
    return sum(queue_proposal(pk) for pk in waiting.values_list("pk", flat=True))


@transaction.atomic
def step_undo(*, stream_id: int, user: Any) -> Stream:
    """Take back the operator's last answer: the steps after it go, and it waits for an answer again
    (its question is the same: it depends only on the answers before it)."""
    stream = lock_stream(stream_id)
    require_open(stream.test_image.test)
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
    last.save(update_fields=["answer", "label", "answered_by", "answered_at", "seconds"])
    stream.state, stream.ended_at = StreamState.PENDING, None
    stream.save(update_fields=["state", "ended_at"])
    lease_renew(stream, minutes=lease_minutes())
    return stream


@transaction.atomic
def stream_leave(*, stream_id: int, user: Any, may_release_any: bool = False) -> Stream:
    """The operator leaves the stream: it goes back to the queue for someone else."""
    stream = lock_stream(stream_id)
    lease_release(stream, user, what=describe(stream), may_release_any=may_release_any)
    return stream


def lease_minutes() -> int:
    return settings.VTT["TRUTHING_LEASE_MINUTES"]


def operator_streams():
    """Streams operators truth: of tests being truthed, on images without a reviewed annotation."""
    return Stream.objects.filter(
        test_image__test__state=TestState.TRUTHING, test_image__mode=TruthingMode.OPERATOR
    ).exclude(state=StreamState.ENDED)
