"""Quality control: second opinions on operators' streams, gold work on the oracle's, adjudication.

When a stream ends, a share of them get a check (settings TRUTHING_CHECK_SHARE for operator streams,
TRUTHING_GOLD_SHARE for streams the oracle truthed). The draw is a hash of (test seed, stream), so it is
the same on every run and cannot be steered by who asks for work. A checker answers the stream's
questions in order without seeing the stored answers. A second opinion that differs opens a
disagreement for a reviewer; a gold answer is only scored against the oracle's. When a reviewer decides
an answer other than the stored one, the stream is cut after that step and proposed again from there.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from truthing import bridge
from truthing.errors import TruthingErrorCode
from truthing.models import (
    Check,
    CheckAnswer,
    CheckKind,
    Disagreement,
    DisagreementState,
    Step,
    Stream,
    TruthingMode,
)
from truthing.services.tests import require_open
from vtt_site.errors import ConflictError, NotFoundError
from vtt_site.leases import lease_release, lease_require


def _drawn(stream: Stream, share: float) -> bool:
    digest = hashlib.sha256(f"{stream.test_image.test.seed}:{stream.pk}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < share


def checks_create_for(stream: Stream) -> Check | None:
    """The check an ended stream gets, if it is drawn for one (call inside the stream's transaction)."""
    if stream.test_image.mode == TruthingMode.OPERATOR:
        kind, share = CheckKind.SECOND_OPINION, settings.VTT["TRUTHING_CHECK_SHARE"]
    else:
        kind, share = CheckKind.GOLD, settings.VTT["TRUTHING_GOLD_SHARE"]
    if not stream.steps.exists() or not _drawn(stream, share):
        return None
    check, _ = Check.objects.get_or_create(stream=stream, kind=kind)
    return check


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


def next_step_to_check(check: Check) -> Step | None:
    return check.stream.steps.exclude(check_answers__check_pass=check).order_by("index").first()


@transaction.atomic
def check_answer(*, check_id: int, user: Any, index: int, answer: str, seconds: float | None = None) -> Check:
    """The checker's answer to the next question of the check (the stored answer stays unseen)."""
    from truthing.services.streams import check_answer_value

    check_answer_value(answer)
    check = lock_check(check_id)
    require_open(check.stream.test_image.test)
    name = check.stream.test_image.image.original_name
    lease_require(check, user, what=name, queue="the operator queue")
    step = next_step_to_check(check)
    if step is None or step.index != index:
        raise ConflictError(
            TruthingErrorCode.STEP_NOT_PENDING,
            f"Question {index + 1} of {name} is not the one waiting for your answer.",
            fields={"step": [f"The pending step is {step.index if step else 'none'}."]},
        )
    given = CheckAnswer.objects.create(check_pass=check, step=step, answer=answer, seconds=seconds)
    if check.kind == CheckKind.SECOND_OPINION and answer != step.answer:
        Disagreement.objects.create(step=step, check_answer=given)
    check.checker = user
    if next_step_to_check(check) is None:
        check.finished_at = timezone.now()
        check.save(update_fields=["checker", "finished_at", *check.clear_lease()])
    else:
        check.save(update_fields=["checker"])
    return check


@transaction.atomic
def check_leave(*, check_id: int, user: Any, may_release_any: bool = False) -> Check:
    check = lock_check(check_id)
    lease_release(
        check, user, what=check.stream.test_image.image.original_name, may_release_any=may_release_any
    )
    return check


@transaction.atomic
def disagreement_decide(*, disagreement_id: int, user: Any, answer: str) -> Disagreement:
    """A reviewer's decision. An answer other than the stored one cuts the stream after that step: the
    later steps go and the stream is proposed again from there (and goes back to the operator queue)."""
    from truthing.services.streams import check_answer_value, lock_stream

    check_answer_value(answer)
    found = Disagreement.objects.filter(pk=disagreement_id).values_list("step__stream_id", flat=True).first()
    if found is None:
        raise NotFoundError(
            TruthingErrorCode.DISAGREEMENT_NOT_FOUND, f"There is no disagreement {disagreement_id}."
        )
    stream = lock_stream(found)
    require_open(stream.test_image.test)
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
    step.label = bridge.label_made(stream.test_image, answered, step, answer)
    step.save(update_fields=["answer", "label"])
    # The later steps go; their check answers and (obsolete) disagreements go with them.
    stream.steps.filter(index__gt=step.index).delete()
    from truthing.services.streams import stream_wait_for_proposal

    stream.ended_at = None
    stream_wait_for_proposal(stream, "ended_at", *stream.clear_lease())
