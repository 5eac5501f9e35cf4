"""The demo's quality control: a test being truthed where the checks have something to show.

Without it the demo never offered a check, so the Operators page had no agreement and no gold figure
and Adjudication was empty (issue 46). Two demo colleagues have worked on this test through the
truthing services, as operators would: `operator-2` truthed its two images without a scene graph
(answering what the demo knows each picture shows) and answered a gold check of a stream the oracle
truthed; the admin checked one of operator-2's streams and disagreed on one answer. Left for a
newcomer: a second opinion on the other stream and a gold check (the operator queue gives them to
`operator` before any stream), and the disagreement (Adjudication, as `reviewer`).

The draws that give an ended stream a check are shares of chance (truthing.services.checks); here the
demo gives the streams it means their checks, and none other, so that what is left is always the same.
Made once: a later run finds the disagreement and leaves the test to the people working on it.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.test import override_settings

from annotations.models import Collection
from demo.once import demo_test_found_or_made
from demo.pictures import pictures_ensure
from demo.synthetic import generate_scenes
from kernel.scene import parse_scene
from truthing import bridge
from truthing.models import AutomaticTruthing, Check, Disagreement, Stream, StreamState, Test, TestState
from truthing.services.automatic import automatic_truthing_run
from truthing.services.checks import check_answer, check_create_for, check_leave, next_step_to_check
from truthing.services.lifecycle import start_test
from truthing.services.proposals import stream_propose
from truthing.services.rules import lease_minutes, lock_stream
from truthing.services.streams import step_answer, stream_leave
from vtt_site.leases import lease_take

CHECKED_TEST = "Demo test with checks"
CHECKED_PREFIX = "demo-checked"
CHECKED_BLIND = 2  # rendered test images whose scene graphs only the demo knows: operator-2 truths them
CHECKED_ORACLE = 2  # reviewed test images: the oracle truths them, gold checks check them
SECOND_OPERATOR = "operator-2"


def demo_checks_ensure(
    *, collection: Collection, statistics: Any, seed: int, oracle_image_ids: list[int], admin_username: str
) -> Test:
    """The test with a stream to check, a gold check and an open disagreement (see the module), on
    pictures of its own without scene graphs and on reviewed test images (`oracle_image_ids`)."""
    users = get_user_model().objects
    admin, colleague = users.get(username=admin_username), users.get(username=SECOND_OPERATOR)
    scenes = list(generate_scenes(CHECKED_BLIND, seed + 4, prefix=CHECKED_PREFIX))
    test = demo_test_found_or_made(
        name=CHECKED_TEST,
        description="Being truthed, with checks: a second opinion and a gold check wait in the operator "
        "queue, and a disagreement under Adjudication.",
        statistics=statistics,
        image_ids=lambda: (
            [image.pk for image in pictures_ensure(collection, scenes)] + oracle_image_ids[:CHECKED_ORACLE]
        ),
        seed=seed,
        created_by=admin,
    )
    if test.state not in (TestState.DRAFT, TestState.TRUTHING):
        return test
    if Disagreement.objects.filter(step__stream__test_image__test=test).exists():
        return test  # made already: what is left is the people's
    # No check is drawn by chance: the demo gives the streams it means theirs.
    with override_settings(TRUTHING_CHECK_SHARE=0.0, TRUTHING_GOLD_SHARE=0.0):
        test = _started_and_truthed(test)
        streams = list(_own_streams(test))
        blind = [s for s in streams if s.test_image.image.original_name.startswith(CHECKED_PREFIX)]
        oracle = [s for s in streams if s not in blind]
        if any(stream.state != StreamState.ENDED for stream in oracle):
            return test  # the oracle's job is still at work (a worker holds it): the next run goes on
        truths = {scene["image"]: scene for scene in scenes}
        for stream in blind:
            _truth_as(colleague, stream, truths[stream.test_image.image.original_name])
    _answer_check(colleague, _check_on(oracle[0]))
    _check_on(blind[0])  # the second opinion left for a newcomer
    _check_on(oracle[1])  # ... and the gold check
    _answer_check(admin, _check_on(blind[1]), disagree=True)
    return test


def _started_and_truthed(test: Test) -> Test:
    if test.state == TestState.DRAFT:
        test = start_test(test=test)
    # Eager (make run): the job ran when the start committed, and this finds it done.
    for job in AutomaticTruthing.objects.filter(test=test):
        automatic_truthing_run(job_id=job.pk)
    return test


def _own_streams(test: Test):
    return (
        Stream.objects.filter(test_image__test=test)
        .select_related("test_image__image", "test_image__test")
        .order_by("test_image__position", "number")
    )


def _truth_as(user: Any, stream: Stream, scene: dict[str, Any]) -> None:
    """The user truths the stream as an operator would, answering what the picture shows: the oracle's
    answers on the scene the demo drew (the same engine, seed and answers give the same questions)."""
    if stream.state == StreamState.ENDED:
        return
    stats = bridge.statistics_of(stream.test_image.test)
    oracle = bridge.run_automatic(
        stats,
        parse_scene(scene, stats.vocabulary),
        bridge.settings_of(stream.test_image.test),
        bridge.seed_of(stream.test_image, stream.number),
    )
    truths = [str(step.answer) for step in oracle]
    _take(Stream.objects.filter(pk=stream.pk), user)
    while True:
        # The proposal is the worker's; the demo runs it here, so that it waits for nothing (a second run
        # of it finds the step written: it is idempotent).
        stream = stream_propose(stream_id=stream.pk)
        if stream.state == StreamState.ENDED:
            break
        pending = stream.steps.get(answer="")
        answer = truths[pending.index] if pending.index < len(truths) else "ambiguous"
        step_answer(stream_id=stream.pk, user=user, index=pending.index, answer=answer)
    stream_leave(stream_id=stream.pk, user=user)


def _take(work, user: Any) -> None:
    """The user takes this piece of work from the operator queue (the lease the queue would give)."""
    with transaction.atomic():
        lease_take(work, user, minutes=lease_minutes())


def _check_on(stream: Stream) -> Check:
    """The check the demo gives an ended stream (a second opinion or gold work, by who truthed it)."""
    every = {"TRUTHING_CHECK_SHARE": 1.0, "TRUTHING_GOLD_SHARE": 1.0}
    with override_settings(**every), transaction.atomic():
        check = check_create_for(lock_stream(stream.pk))
    assert check is not None  # an ended stream of a test being truthed, with steps
    return check


def _answer_check(user: Any, check: Check, *, disagree: bool = False) -> None:
    """The user answers the check with the stored answers (gold: the oracle's, the truth), or, with
    `disagree`, the opposite of the first yes or no."""
    if check.finished_at is not None:
        return
    _take(Check.objects.filter(pk=check.pk), user)
    flipped = not disagree
    while (step := next_step_to_check(check)) is not None:
        answer = step.answer
        if not flipped and answer in ("yes", "no"):
            answer, flipped = ("no" if answer == "yes" else "yes"), True
        check = check_answer(check_id=check.pk, user=user, index=step.index, answer=answer)
    check_leave(check_id=check.pk, user=user)
