"""The independent audit of a test (issue 10): can a guesser that never sees pixels predict its answers?

A background job (vtt_site.jobs). It generates oracle-answered streams on the training images of the
test's statistics, cross-fitted so that the engine's p on them is out of sample as on a test image
(engine.audit.training_streams), trains the blind guesser on them, and scores it and the engine-p
guesser on the test's own stored streams. The report and the reliability diagram are kept on the row
and shown on the test's card.
"""

from __future__ import annotations

from django.db import transaction

from kernel.estimates import Estimate
from kernel.kinds import question_from_json
from kernel.questions import Answer, Label
from truthing import bridge
from truthing.bridge import StreamStep, audit_streams, reliability_svg, scenes_of, training_streams
from truthing.conf import conf
from truthing.errors import TruthingErrorCode
from truthing.models import Step, StreamState, Test, TestAudit, TestState
from truthing.published.reuse import reuse_report
from truthing.services.rules import lock_test
from vtt_site.errors import ConflictError
from vtt_site.interactive import give_way
from vtt_site.jobs import (
    JobFailed,
    job_enqueue,
    job_finish,
    job_limit_check,
    job_progress,
    job_restart,
    job_run,
)


@transaction.atomic
def audit_start(*, test: Test, user=None) -> TestAudit:
    """Queue the audit of a test whose streams have ended (again, if it was audited before).

    An audit of the test already waiting or running is joined, not queued again: it is a pure function
    of the ended streams, so it gives exactly what a second one would, and asking twice (a retry, a
    double click, 300 requests) costs nothing (decision 0041). A new audit counts
    towards the user's JOBS_MAX_PER_USER.
    """
    test = lock_test(test.pk)
    if (
        test.state == TestState.DRAFT
        or test.test_images.filter(streams__state__in=[StreamState.PROPOSING, StreamState.PENDING]).exists()
    ):
        raise ConflictError(
            TruthingErrorCode.TEST_UNFINISHED,
            f"{test.name} can be audited once every stream has ended.",
        )
    audit = TestAudit.objects.select_for_update().filter(test=test).first()
    if audit is not None and audit.unfinished:
        return audit  # joined
    job_limit_check(TestAudit, user=user, what="audits")
    if audit is None:
        audit = TestAudit.objects.create(test=test, created_by=user)
    else:
        job_restart(audit, report={}, reliability_svg="", created_by=user)
    job_enqueue(audit)
    return audit


def audit_run(*, job_id: int) -> TestAudit:
    job_run(TestAudit, job_id, _run)
    return TestAudit.objects.get(pk=job_id)


def _run(job: TestAudit) -> None:
    test = Test.objects.select_related("statistics").get(pk=job.test_id)
    stats = bridge.statistics_of(test)
    engine_settings = bridge.settings_of(test)
    training_ids = list(test.statistics.training_images.values_list("pk", flat=True))
    scenes = list(scenes_of(training_ids, stats.vocabulary))
    job_progress(job, progress=0.1)
    train = training_streams(
        stats.vocabulary,
        scenes,
        engine_settings,
        seed=test.seed,
        limit=conf.AUDIT_TRAINING_STREAMS,
        min_overlap=stats.min_overlap,
        between_steps=give_way,
    )
    job_progress(job, progress=0.6)
    held_out = streams_of_test(test)
    try:
        report = audit_streams(stats.vocabulary, train, held_out, seed=test.seed)
    except ValueError as exc:
        raise JobFailed(f"The audit cannot run: {exc}.") from None
    # What earlier sessions' truths are worth to a new one (issue 18), on sessions dealt as systems are.
    report["reuse"] = reuse_report(
        test, on_progress=lambda share: job_progress(job, progress=0.6 + 0.4 * share)
    )
    job_finish(
        job, report=report, reliability_svg=reliability_svg(report, title=f"Reliability of p: {test.name}")
    )


def streams_of_test(test: Test) -> list[list[StreamStep]]:
    """The test's stored streams as the core's steps (question, the p and population it was proposed
    with, the answer, the label it made)."""
    stats = bridge.statistics_of(test)
    vocabulary = stats.vocabulary
    streams: dict[int, list[StreamStep]] = {}
    steps = (
        Step.objects.filter(stream__test_image__test=test, stream__state=StreamState.ENDED)
        .exclude(answer="")
        .select_related("stream__test_image__image")
        .order_by("stream_id", "index")
    )
    for step in steps:
        image = step.stream.test_image.image
        question = question_from_json(step.question, vocabulary, image.width, image.height)
        label = Label.parse(step.label, vocabulary, "label") if step.label else None
        streams.setdefault(step.stream_id, []).append(
            StreamStep(step.index, question, Estimate(step.p, step.population), Answer(step.answer), label)
        )
    return list(streams.values())
