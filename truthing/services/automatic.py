"""Automatic truthing: the oracle answers every stream of the test images that have a reviewed, complete
annotation, exactly as `vtt-engine generate` does (ambiguous answers are recorded as rejections).

It runs as a background job (vtt_site.jobs: claimed under a row lock, a heartbeat while it runs, taken
over when its worker dies). Streams are written in batches, each in one transaction and under the
streams' row locks: a stream is untouched or complete, and a run that takes over skips the streams that
have ended, so every stream is written exactly once.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from truthing import bridge
from truthing.bridge import CoreStatistics, StreamStep, run_automatic, scenes_of
from truthing.conf import conf
from truthing.models import AutomaticTruthing, Step, Stream, StreamState, Test, TruthingMode
from truthing.services.checks import check_create_for
from truthing.services.rules import lock_stream
from vtt_site.interactive import give_way
from vtt_site.jobs import job_enqueue, job_finish, job_progress, job_run

WRITE_BATCH = 50  # streams per transaction: few enough that a takeover redoes little


def automatic_streams(test: Test):
    return Stream.objects.filter(test_image__test=test, test_image__mode=TruthingMode.AUTOMATIC)


def automatic_truthing_start(*, test: Test) -> list[AutomaticTruthing]:
    """The jobs (TRUTHING_AUTOMATIC_PARTS of them, run side by side by the workers), queued when the
    caller's transaction commits."""
    parts = max(1, conf.TRUTHING_AUTOMATIC_PARTS)
    jobs = []
    for part in range(parts):
        job, _ = AutomaticTruthing.objects.get_or_create(
            test=test, part=part, defaults={"parts": parts, "created_by": test.created_by}
        )
        job_enqueue(job)
        jobs.append(job)
    return jobs


def automatic_truthing_run(*, job_id: int) -> AutomaticTruthing:
    job_run(AutomaticTruthing, job_id, _run)
    return AutomaticTruthing.objects.get(pk=job_id)


def _run(job: AutomaticTruthing) -> None:
    test = Test.objects.select_related("statistics").get(pk=job.test_id)
    if test.frozen:
        job_finish(job)
        return
    stats = bridge.statistics_of(test)
    engine_settings = bridge.settings_of(test)
    streams = [
        stream
        for stream in automatic_streams(test)
        .select_related("test_image__image")
        .order_by("test_image__position", "number")
        if stream.test_image.position % job.parts == job.part
    ]
    todo = [s for s in streams if s.state != StreamState.ENDED]
    image_ids = sorted({s.test_image.image_id for s in todo})
    scenes = {scene.image: scene for scene in scenes_of(image_ids, stats.vocabulary)}
    job_progress(job, streams_total=len(streams), streams_done=len(streams) - len(todo))
    for start in range(0, len(todo), WRITE_BATCH):
        batch = todo[start : start + WRITE_BATCH]
        written = {
            stream.pk: run_automatic(
                stats,
                scenes[stream.test_image.image.original_name],
                engine_settings,
                bridge.seed_of(stream.test_image, stream.number),
                between_steps=give_way,
            )
            for stream in batch
        }
        give_way()  # the batch's write competes for the database too
        _write_streams(written, stats)
        done = job.streams_done + len(batch)
        job_progress(job, streams_done=done, progress=done / max(len(streams), 1))
    job_finish(job)


@transaction.atomic
def _write_streams(steps_by_stream: dict[int, list[StreamStep]], stats: CoreStatistics) -> None:
    """Write a batch of streams in one transaction, each under its row lock; a stream another run
    (presumed dead) has written meanwhile is left as it is."""
    now = timezone.now()
    rows: list[Step] = []
    ended: list[Stream] = []
    for stream_id, steps in steps_by_stream.items():
        stream = lock_stream(stream_id)
        if stream.state == StreamState.ENDED:
            continue
        stream.steps.all().delete()
        rows.extend(bridge.oracle_step_rows(stream, steps, stats, now))
        stream.state, stream.ended_at, stream.proposing_since = StreamState.ENDED, now, None
        ended.append(stream)
    Step.objects.bulk_create(rows, batch_size=2000)
    Stream.objects.bulk_update(ended, ["state", "ended_at", "proposing_since"])
    for stream in ended:
        check_create_for(stream)
