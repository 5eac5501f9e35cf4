"""The questions a session is asked, read through truthing's one door for evaluation (truthing.published)."""

from __future__ import annotations

from evaluation.errors import EvaluationErrorCode
from evaluation.models import Session, TestSchedule
from truthing.published import TestPlan, test_plan
from vtt_site.errors import ConflictError


def plan_of(session: Session) -> TestPlan:
    plan = test_plan(test_id=session.test_id)
    if plan is None:  # a published test is never unpublished; this is a broken database
        raise ConflictError(EvaluationErrorCode.TEST_NOT_PUBLISHED, "The session's test is not published.")
    return plan


def deadline_of(test_id: int):
    return TestSchedule.objects.filter(test_id=test_id).values_list("deadline", flat=True).first()
