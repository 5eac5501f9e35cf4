"""Quality control: second opinions on operators' streams and gold work on the oracle's.

When a stream ends, a share of them get a check (settings TRUTHING_CHECK_SHARE for operator streams,
TRUTHING_GOLD_SHARE for streams the oracle truthed). The draw is a hash of (test seed, stream), so it is
the same on every run and cannot be steered by who asks for work. A checker answers the stream's
questions in order without seeing the stored answers. A second opinion that differs opens a
disagreement for a reviewer (truthing.services.adjudication); a gold answer is only scored against the
oracle's.
"""

from __future__ import annotations

import hashlib
from typing import Any

from django.db import transaction
from django.utils import timezone

from accounts.roles import is_admin
from truthing.conf import conf
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
from truthing.services.rules import check_answer_value, lease_minutes, lock_check, require_stream_open
from vtt_site.errors import ConflictError
from vtt_site.leases import lease_release, lease_renew, lease_require


def _drawn(stream: Stream, share: float) -> bool:
    digest = hashlib.sha256(f"{stream.test_image.test.seed}:{stream.pk}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < share


def check_create_for(stream: Stream) -> Check | None:
    """The check an ended stream gets, if it is drawn for one (call inside the stream's transaction)."""
    if stream.test_image.mode == TruthingMode.OPERATOR:
        kind, share = CheckKind.SECOND_OPINION, conf.TRUTHING_CHECK_SHARE
    else:
        kind, share = CheckKind.GOLD, conf.TRUTHING_GOLD_SHARE
    if not stream.steps.exists() or not _drawn(stream, share):
        return None
    check, _ = Check.objects.get_or_create(stream=stream, kind=kind)
    return check


def next_step_to_check(check: Check) -> Step | None:
    return check.stream.steps.exclude(check_answers__check_pass=check).order_by("index").first()


@transaction.atomic
def check_answer(*, check_id: int, user: Any, index: int, answer: str, seconds: float | None = None) -> Check:
    """The checker's answer to the next question of the check (the stored answer stays unseen)."""
    check_answer_value(answer)
    check = lock_check(check_id)
    require_stream_open(check.stream)
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
    # A finished check stays held, as an ended stream does, so that its last answer may still be taken
    # back; the operator queue gives it back when they take new work (truthing.services.queue).
    check.finished_at = timezone.now() if next_step_to_check(check) is None else None
    check.save(update_fields=["checker", "finished_at"])
    lease_renew(check, minutes=lease_minutes())
    return check


@transaction.atomic
def check_undo(*, check_id: int, user: Any) -> Check:
    """Take back the checker's last answer, as a stream's operator may (issue 38): it waits for an
    answer again, and the disagreement it opened goes with it, unless a reviewer has decided it."""
    check = lock_check(check_id)
    require_stream_open(check.stream)
    name = check.stream.test_image.image.original_name
    lease_require(check, user, what=name, queue="the operator queue")
    last = check.answers.select_related("disagreement").order_by("-step__index").first()
    if last is None:
        raise ConflictError(
            TruthingErrorCode.NOTHING_TO_UNDO, f"There is no answer of yours to take back in {name}."
        )
    decided = getattr(last, "disagreement", None)
    if decided is not None and decided.state != DisagreementState.OPEN:
        raise ConflictError(
            TruthingErrorCode.NOTHING_TO_UNDO,
            f"A reviewer has decided on your answer to question {last.step.index + 1} of {name} already; "
            "it can no longer be taken back.",
        )
    last.delete()  # its open disagreement goes with it (cascade)
    check.finished_at = None
    check.save(update_fields=["finished_at"])
    lease_renew(check, minutes=lease_minutes())
    return check


@transaction.atomic
def check_leave(*, check_id: int, user: Any) -> Check:
    """The checker gives the check back to the queue (an admin may release anyone's)."""
    check = lock_check(check_id)
    name = check.stream.test_image.image.original_name
    lease_release(check, user, what=name, may_release_any=is_admin(user))
    return check
