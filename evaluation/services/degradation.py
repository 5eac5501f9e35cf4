"""The ranking check of a test: does it score better vision higher? (scoring.degradation)

One background job (vtt_site.jobs) per frozen test. It reads the test's plan (the same one sessions are
scored against), runs the simulated systems through `scoring.scores.score_of` and keeps the report on
the row for the test's card. The beat queues a check for every frozen test that has none, or whose
report another scoring or simulation version made (`ranking_checks_due_queue`), as it does for stale
scores: a check is a pure function of the plan and the seed, so it is never stale otherwise.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q

from evaluation.models import RankingCheck
from evaluation.selectors.ranking import RANKING_VERSION
from scoring.degradation import ranking_report
from truthing.published import frozen_tests, plan_of_test
from vtt_site.jobs import JobFailed, job_enqueue, job_finish, job_progress, job_restart, job_run


@transaction.atomic
def ranking_checks_due_queue(*, limit: int = 20) -> int:
    """Queue the check of every frozen test without a current one (a periodic task); how many. A check
    waiting or running is left alone (a failed one is retried only when a version changes: its message
    stays on the card)."""
    excluded = RankingCheck.objects.filter(
        Q(version=RANKING_VERSION) | RankingCheck.unfinished_rows()
    ).values_list("test_id", flat=True)
    due = frozen_tests().exclude(pk__in=list(excluded)).order_by("pk").values_list("pk", flat=True)[:limit]
    for test_id in due:
        job_enqueue(ranking_check_reset(test_id=test_id))
    return len(due)


def ranking_check_reset(*, test_id: int) -> RankingCheck:
    """The test's check row, new or made queued again with nothing of its last run."""
    check, created = RankingCheck.objects.select_for_update().get_or_create(test_id=test_id)
    if not created:
        job_restart(check, report={})
    return check


def ranking_check_run(*, job_id: int) -> RankingCheck:
    job_run(RankingCheck, job_id, _run)
    return RankingCheck.objects.get(pk=job_id)


def _run(job: RankingCheck) -> None:
    plan = plan_of_test(test_id=job.test_id)
    if plan is None:
        raise JobFailed("The test is not published: only a published or archived test is checked.")
    if not plan.steps:
        raise JobFailed("The test has no answered question to check.")
    job_progress(job, progress=0.1)
    # Seeded by the test: the same test always gives the same report.
    report = ranking_report(plan, seed=job.test_id)
    job_finish(job, report=report, version=RANKING_VERSION)
