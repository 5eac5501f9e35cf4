"""Adjudication: a reviewer decides where a second opinion differs from the stored answer.

A decision other than the stored answer cuts the stream after that step: the later steps go, and the
stream is proposed again from there (truthing.services.proposals) and goes back to the operator queue.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from kernel.kinds import label_made
from truthing.errors import TruthingErrorCode
from truthing.models import Disagreement, DisagreementState, Step, Stream
from truthing.services.proposals import stream_wait_for_proposal
from truthing.services.rules import check_answer_value, lock_stream, require_stream_open
from vtt_site.errors import ConflictError, NotFoundError


@transaction.atomic
def disagreement_decide(*, disagreement_id: int, user: Any, answer: str) -> Disagreement:
    """A reviewer's decision on a disagreement that is still open."""
    check_answer_value(answer)
    found = Disagreement.objects.filter(pk=disagreement_id).values_list("step__stream_id", flat=True).first()
    if found is None:
        raise NotFoundError(
            TruthingErrorCode.DISAGREEMENT_NOT_FOUND, f"There is no disagreement {disagreement_id}."
        )
    stream = lock_stream(found)
    require_stream_open(stream)
    disagreement = (
        Disagreement.objects.select_related("step").select_for_update(of=("self",)).get(pk=disagreement_id)
    )
    if disagreement.state != DisagreementState.OPEN:
        raise ConflictError(
            TruthingErrorCode.DISAGREEMENT_CLOSED,
            "This disagreement was decided already, or its step is gone.",
        )
    step = disagreement.step
    disagreement.state, disagreement.decided_answer = DisagreementState.RESOLVED, answer
    disagreement.decided_by, disagreement.decided_at = user, timezone.now()
    disagreement.save(update_fields=["state", "decided_answer", "decided_by", "decided_at"])
    if answer != step.answer:
        _cut_after(stream, step, answer)
    return disagreement


def _cut_after(stream: Stream, step: Step, answer: str) -> None:
    Disagreement.objects.filter(
        step__stream=stream, step__index__gt=step.index, state=DisagreementState.OPEN
    ).update(state=DisagreementState.OBSOLETE)
    answered = list(stream.steps.filter(index__lt=step.index).order_by("index"))
    step.answer = answer
    step.label = label_made([(s.question, s.answer) for s in answered], step.question, answer)
    # The operator's point marked the object of their answer; a different answer has none.
    step.point_x = step.point_y = None
    step.save(update_fields=["answer", "label", "point_x", "point_y"])
    # The later steps go; their check answers and (obsolete) disagreements go with them.
    stream.steps.filter(index__gt=step.index).delete()
    stream.ended_at = None
    stream_wait_for_proposal(stream, "ended_at", *stream.clear_lease())
