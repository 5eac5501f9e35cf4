"""The questions a session is asked, read through truthing's one door for evaluation (truthing.published):
the plan of the streams dealt to the session (truthing.published), or for a session enrolled before tests
were dealt, the test's own plan."""

from __future__ import annotations

from evaluation.errors import EvaluationErrorCode
from evaluation.models import Session, TestSchedule
from truthing.published import TestPlan, deal_plan, deal_progress, plan_of_test
from vtt_site.errors import ConflictError

# Seconds a client is told to wait before asking again while its session's streams are generated.
DEALING_RETRY_SECONDS = 2


class SessionDealing(ConflictError):
    """The session's streams are still being generated: nothing can be asked or answered yet."""

    def __init__(self, progress: dict) -> None:
        done, total = progress["streams_done"], progress["streams_total"]
        if progress["status"] == "failed":
            message = "The streams of this session could not be prepared (the failure is logged). Nothing was stored."
        else:
            message = (
                f"The streams of this session are being prepared ({done} of {total} ready): ask again in "
                f"{DEALING_RETRY_SECONDS} seconds. Nothing was stored."
            )
        super().__init__(EvaluationErrorCode.SESSION_DEALING, message)
        self.headers = {"Retry-After": str(DEALING_RETRY_SECONDS)}


def plan_of(session: Session) -> TestPlan:
    """The session's plan: while its deal is being generated, the streams dealt so far (`complete`
    false); SessionDealing (409) while there is none."""
    if session.deal_id is not None:
        plan = deal_plan(deal_id=session.deal_id)
        if plan is None:
            raise SessionDealing(deal_progress(deal_id=session.deal_id))
        return plan
    plan = plan_of_test(test_id=session.test_id)
    if plan is None:  # a published test is never unpublished; this is a broken database
        raise ConflictError(EvaluationErrorCode.TEST_NOT_PUBLISHED, "The session's test is not published.")
    return plan


def session_ready(session: Session) -> bool:
    """Whether the session's first question can be asked (its first stream is dealt)."""
    return session.deal_id is None or deal_plan(deal_id=session.deal_id) is not None


def session_dealt(session: Session) -> bool:
    """Whether every stream of the session is dealt: its count of questions is known."""
    if session.deal_id is None:
        return True
    plan = deal_plan(deal_id=session.deal_id)
    return plan is not None and plan.complete


def deadline_of(test_id: int):
    return TestSchedule.objects.filter(test_id=test_id).values_list("deadline", flat=True).first()
