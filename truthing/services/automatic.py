"""Automatic truthing: the oracle answers every stream of the test images that have a reviewed, complete
annotation, exactly as `vtt-engine generate` does (ambiguous answers are recorded as rejections).

Each stream is written in its own transaction, all its steps at once, so a stream is either untouched
or complete; a run that dies part-way is resumed by running it again, which skips the ended streams.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import transaction
from django.utils import timezone

from engine.bridge import scenes_of
from engine.core.drivers import run_automatic
from truthing import bridge
from truthing.models import Step, Stream, StreamState, Test, TruthingMode
from truthing.services.checks import checks_create_for
from truthing.services.streams import lock_stream


def automatic_streams(test: Test):
    return Stream.objects.filter(test_image__test=test, test_image__mode=TruthingMode.AUTOMATIC)


def truth_automatically(*, test_id: int, on_stream: Callable[[int, int], None] | None = None) -> int:
    """Truth every automatic stream of the test that has not ended; returns how many were written.
    `on_stream(done, total)` reports progress."""
    test = Test.objects.select_related("statistics").get(pk=test_id)
    if test.frozen:
        return 0
    stats = bridge.statistics_of(test)
    settings = bridge.settings_of(test)
    streams = list(
        automatic_streams(test).select_related("test_image__image").order_by("test_image__position", "number")
    )
    total, written = len(streams), 0
    todo = [s for s in streams if s.state != StreamState.ENDED]
    image_ids = sorted({s.test_image.image_id for s in todo})
    scenes = dict(zip(image_ids, scenes_of(image_ids, stats.vocabulary), strict=True))
    for done, stream in enumerate(streams, start=1):
        if stream.state != StreamState.ENDED:
            steps = run_automatic(
                stats,
                scenes[stream.test_image.image_id],
                settings,
                bridge.seed_of(stream.test_image, stream.number),
            )
            written += _write_stream(stream.pk, stats, steps)
        if on_stream is not None:
            on_stream(done, total)
    return written


@transaction.atomic
def _write_stream(stream_id: int, stats, steps) -> int:
    stream = lock_stream(stream_id)
    if stream.state == StreamState.ENDED:
        return 0  # another run wrote it meanwhile
    now = timezone.now()
    stream.steps.all().delete()
    Step.objects.bulk_create(
        [
            Step(
                stream=stream,
                automatic=True,
                answered_at=now,
                proposed_at=now,
                answer=str(step.answer),
                label=str(step.label) if step.label is not None else "",
                **vars(
                    bridge.step_values(
                        stats, stream.test_image, step.question, step.estimate.p, step.estimate.population
                    )
                ),
                index=step.index,
            )
            for step in steps
        ]
    )
    stream.state, stream.ended_at = StreamState.ENDED, now
    stream.save(update_fields=["state", "ended_at"])
    checks_create_for(stream)
    return 1
