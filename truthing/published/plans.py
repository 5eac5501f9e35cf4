"""What the evaluation app may read of a test: published tests, their streams in a fixed order, and the
steps a vision system may be shown (docs/method.md section 1; docs/evaluation.md).

A session is dealt streams of its own (truthing.published.dealing): its plan is the plan of its deal
(`deal_plan`), built the same way from the deal's streams in the deal's order.

Its names are evaluation's doors into truthing (truthing.published, with `deal_create`). It never
returns a rejected (ambiguous) step, an unanswered step, an annotation, an operator or an image's name: the answers it carries are the truth the
evaluation app reveals to a system one step at a time, after the system's own answer is stored.

A published test is frozen (truthing.services.lifecycle), so its plan is computed once per process and kept
(`plan_of_test`): every later request of every session of that test reads it from memory.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from django.db.models import QuerySet
from django.db.models.fields.files import FieldFile

from truthing.models import Deal, DealtStream, Step, StepAnswer, Stream, Test, TestImage, TestState
from vtt_site.cache import BoundedCache
from vtt_site.job_model import JobStatus

# Tests a vision system may take (enrol in, answer); an archived test keeps its sessions readable.
TAKEABLE = (TestState.PUBLISHED,)
FROZEN = (TestState.PUBLISHED, TestState.ARCHIVED)


@dataclass(frozen=True)
class PlanStep:
    """One question a system is asked, in the order systems are asked them."""

    ordinal: int  # position in the whole test: 0, 1, 2, ...
    step_id: int
    stream_pos: int  # position of its stream in the test's fixed order
    step_pos: int  # position among the stream's shown steps (rejected steps are not counted)
    kind: str
    question: dict[str, Any]
    text: str
    answer: str  # "yes" or "no": the truth, revealed only once the system has answered
    label: str  # the label a "yes" to this uniqueness question made, or ""
    p: float | None  # the engine's P(yes) from the history and the training statistics
    last_in_stream: bool


@dataclass(frozen=True)
class PlanStream:
    pos: int
    test_image_id: int
    width: int
    height: int
    first_ordinal: int
    # How many steps of the stream are shown. Never sent to a system: a stream's length says something
    # about its image, so a system learns it only when the stream ends.
    steps: int


@dataclass(frozen=True)
class TestPlan:
    test_id: int
    streams: tuple[PlanStream, ...]
    steps: tuple[PlanStep, ...]
    # A session's plan while its deal is still generating streams holds the streams dealt so far, in
    # order: `complete` is false and `streams_total` is the number the test will have.
    complete: bool = True
    streams_total: int | None = None

    @property
    def streams_in_test(self) -> int:
        return len(self.streams) if self.streams_total is None else self.streams_total


def published_tests() -> QuerySet[Test]:
    """The tests vision systems may enrol in, newest first."""
    return Test.objects.filter(state__in=TAKEABLE).order_by("-published_at", "-id")


def frozen_tests() -> QuerySet[Test]:
    return Test.objects.filter(state__in=FROZEN).order_by("-published_at", "-id")


def ranked_tests() -> QuerySet[Test]:
    """The frozen tests that have a leaderboard: every one but the practice tests (decision 0075)."""
    return frozen_tests().filter(practice=False)


def frozen_test_get(*, test_id: int) -> Test | None:
    return frozen_tests().filter(pk=test_id).first()


_PLANS: BoundedCache[TestPlan] = BoundedCache(64)


def plan_of_test(*, test_id: int) -> TestPlan | None:
    """The frozen plan of a published (or archived) test, or None for any other test. Only frozen tests
    are kept: a plan never goes stale."""
    plan = _PLANS.get(test_id)
    if plan is not None:
        return plan
    if not Test.objects.filter(pk=test_id, state__in=FROZEN).exists():
        return None
    return _PLANS.get_or_build(test_id, lambda: _build_plan(test_id))


def _build_plan(test_id: int) -> TestPlan:
    """The test's own streams (never a stream generated for one session's deal), image by image."""
    streams = list(
        Stream.objects.filter(test_image__test_id=test_id)
        .order_by("test_image__position", "number")
        .values_list("pk", "test_image_id", "test_image__image__width", "test_image__image__height")
    )
    return plan_of_streams(test_id, streams)


def plan_of_streams(
    test_id: int, streams: list[tuple[int, int, int, int]], *, after: TestPlan | None = None
) -> TestPlan:
    """The plan that asks these streams ((stream, test image, width, height) rows) in this order; after
    the plan `after`, when given (its streams come first, and only the new ones are read)."""
    plan_streams: list[PlanStream] = list(after.streams) if after else []
    plan_steps: list[PlanStep] = list(after.steps) if after else []
    streams = streams[len(plan_streams) :]
    shown: dict[int, list[tuple]] = {pk: [] for pk, *_ in streams}
    for row in (
        Step.objects.filter(stream_id__in=list(shown), answer__in=[StepAnswer.YES, StepAnswer.NO])
        .order_by("stream_id", "index")
        .values_list("stream_id", "pk", "question", "text", "answer", "label", "p")
    ):
        shown[row[0]].append(row[1:])
    for pos, (stream_id, test_image_id, width, height) in enumerate(streams, start=len(plan_streams)):
        rows = shown[stream_id]
        plan_streams.append(PlanStream(pos, test_image_id, width, height, len(plan_steps), len(rows)))
        for step_pos, (step_id, question, text, answer, label, p) in enumerate(rows):
            plan_steps.append(
                PlanStep(
                    ordinal=len(plan_steps),
                    step_id=step_id,
                    stream_pos=pos,
                    step_pos=step_pos,
                    kind=question.get("kind", ""),
                    question=question,
                    text=text,
                    answer=answer,
                    label=label,
                    p=p,
                    last_in_stream=step_pos == len(rows) - 1,
                )
            )
    return TestPlan(test_id=test_id, streams=tuple(plan_streams), steps=tuple(plan_steps))


# A deal never changes once done, so its plan is kept like a test's; a process keeps the plans of the
# sessions being taken now.
_DEAL_PLANS: BoundedCache[TestPlan] = BoundedCache(256)
# While a deal is generating, the plan of its streams written so far, by deal: the next read extends it
# with the streams written since (a system waits for its next stream: rebuilding the whole plan each
# time would read a 1,000-image deal's steps a thousand times).
_PARTIAL_PLANS: BoundedCache[TestPlan] = BoundedCache(256)


def deal_plan(*, deal_id: int) -> TestPlan | None:
    """The plan of a session's deal, its streams in its own order: whole once the deal is done; before,
    the streams dealt so far from the first on (`complete` false), so that the session can be taken as
    soon as its first stream is written; None while there is none."""
    plan = _DEAL_PLANS.get(deal_id)
    if plan is not None:
        return plan
    deal = Deal.objects.filter(pk=deal_id).values_list("test_id", "status").first()
    if deal is None:
        return None
    test_id, status = deal
    rows = _dealt_rows(deal_id)
    if status == JobStatus.DONE:
        _PARTIAL_PLANS.pop(deal_id)
        return _DEAL_PLANS.get_or_build(deal_id, lambda: plan_of_streams(test_id, rows))
    written = next((i for i, row in enumerate(rows) if row[0] is None), len(rows))
    if written == 0:
        return None
    before = _PARTIAL_PLANS.get(deal_id)
    if before is not None and len(before.streams) == written:
        return before
    after = before if before is not None and len(before.streams) < written else None
    partial = replace(
        plan_of_streams(test_id, rows[:written], after=after), complete=False, streams_total=len(rows)
    )
    _PARTIAL_PLANS.put(deal_id, partial)
    return partial


def _dealt_rows(deal_id: int) -> list[tuple[Any, int, int, int]]:
    """The deal's (stream, test image, width, height) rows in its order; stream None: not written yet."""
    return list(
        DealtStream.objects.filter(deal_id=deal_id)
        .order_by("position")
        .values_list("stream_id", "test_image_id", "test_image__image__width", "test_image__image__height")
    )


def deal_progress(*, deal_id: int) -> dict[str, Any]:
    """Where the dealing of a session stands, for its system: no stream or question in it."""
    deal = Deal.objects.get(pk=deal_id)
    return {
        "status": str(deal.status),
        "progress": deal.progress,
        "streams_done": deal.streams_done,
        "streams_total": deal.streams_total,
        "message": deal.message,
    }


def plans_forget() -> None:
    """Tests only: a test database reuses ids across tests."""
    _PLANS.clear()
    _DEAL_PLANS.clear()
    _PARTIAL_PLANS.clear()


def image_file_of_test(*, test_id: int, test_image_id: int) -> FieldFile | None:
    """The pixels of a test image of a frozen test (its file, for vtt_site.storage.file_response), or
    None."""
    test_image = (
        TestImage.objects.filter(pk=test_image_id, test_id=test_id, test__state__in=FROZEN)
        .select_related("image")
        .first()
    )
    if test_image is None or not test_image.image.file:
        return None
    return test_image.image.file
