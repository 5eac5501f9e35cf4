"""Proposing a stream's next question, in a worker, and ending a stream the engine has nothing more for.

The engine runs in a Celery task (`truthing.queues.STREAM_PROPOSE`), queued when an answer commits.
Every write locks the stream row first, so an answer, an undo and a proposal of one stream never
interleave, and the proposal is idempotent: it only acts on a stream that waits for the engine, and the
question it adds is a pure function of the stored answers (truthing.bridge), so a retried or redelivered
task finds the step already there, or adds exactly the step the first attempt would have added.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from truthing import bridge
from truthing.bridge import PROPOSALS_PER_ANSWER_LIMIT
from truthing.models import Step, Stream, StreamState, TestState, TruthingMode
from truthing.queues import STREAM_PROPOSE
from truthing.services.checks import check_create_for
from truthing.services.rules import growing, lock_stream
from vtt_site.interactive import proposal_pending


@transaction.atomic
def stream_propose(*, stream_id: int) -> Stream:
    """Add the next question to a stream that waits for the engine, or end it. Safe to run twice."""
    stream = lock_stream(stream_id)
    if (
        stream.state != StreamState.PROPOSING
        or (stream.test_image.test.frozen and not growing(stream))
        or stream.test_image.mode == TruthingMode.AUTOMATIC  # the oracle's job writes those streams
    ):
        return stream
    answered = list(stream.steps.order_by("index"))
    max_questions = bridge.settings_of(stream.test_image.test).max_questions
    proposed = None
    # Rejected questions do not count towards max_questions; this bounds a stream's steps anyway.
    if len(answered) < PROPOSALS_PER_ANSWER_LIMIT * max_questions:
        proposed = bridge.propose(stream.test_image, stream.number, answered)
    if proposed is None:
        stream_end(stream)
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


def stream_end(stream: Stream) -> None:
    """The engine found nothing unpredictable: the stream is over (the caller holds its row lock). The
    operator keeps the lease until they take new work, so that they may still take their last answer
    back."""
    stream.state, stream.ended_at, stream.proposing_since = StreamState.ENDED, timezone.now(), None
    stream.save(update_fields=["state", "ended_at", "proposing_since"])
    check_create_for(stream)


def stream_wait_for_proposal(stream: Stream, *extra_fields: str) -> None:
    """The stream waits for the engine: the proposal task is queued when the transaction commits."""
    stream.state, stream.proposing_since = StreamState.PROPOSING, timezone.now()
    stream.save(update_fields=["state", "proposing_since", *extra_fields])
    stream_id = stream.pk
    transaction.on_commit(lambda: proposal_queue(stream_id))


def proposal_queue(stream_id: int) -> bool:
    """Hand the proposal task to the broker. Never raises: with the broker down the answer is kept, the
    stream waits, and the sweeper queues the task again once the broker is back."""
    proposal_pending(stream_id)  # long jobs give way until it is written (vtt_site.interactive)
    return STREAM_PROPOSE.send(stream_id, what=f"the proposal of stream {stream_id}")


def streams_sweep() -> int:
    """Queue again the proposals of streams that have waited for the engine too long; how many.

    Only operators' streams: a stream of an annotated image waits for the automatic truthing job, which
    the job sweeper looks after; a proposal there would put a question no operator can be given.
    """
    stale = timezone.now() - timedelta(seconds=settings.JOB_STALE_SECONDS)
    waiting = Stream.objects.filter(
        state=StreamState.PROPOSING, proposing_since__lt=stale, test_image__mode=TruthingMode.OPERATOR
    )
    waiting = waiting.exclude(test_image__test__state__in=[TestState.PUBLISHED, TestState.ARCHIVED])
    return sum(proposal_queue(pk) for pk in waiting.values_list("pk", flat=True))
