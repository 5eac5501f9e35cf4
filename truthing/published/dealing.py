"""The deal's job: generate, ahead of the system, the fresh streams of a session on the test's
oracle-truthed images (truthing.published.deals chose the rest at enrolment).

Each stream is proposed by the engine with the deal's seed and answered by the oracle, exactly as
automatic truthing does (`run_automatic`, and its rows through `oracle_step_rows`), and stored like any
stream: a Stream row (ended, marked with its deal) and its steps with p and population. The engine's
draw prefers the questions least told to earlier sessions: its exposure is made of the latest streams
dealt on the image (truthing.published.exposure), whose ids the row keeps. So it replays exactly: the engine
resumed from its stored answers, with the exposure of the same streams, proposes the same questions.
Streams are written one by one, in the deal's order, each in its own transaction under the lock of its
dealt row; a run that takes over a dead one skips the streams written already, so each is written once.
The session can be taken as soon as its first stream is written (truthing.published.plans.deal_plan
gives the streams written so far): the job deals the rest ahead of the system.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from django.db import transaction
from django.utils import timezone

from truthing import bridge
from truthing.bridge import CoreStatistics, StreamStep, run_automatic, scenes_of
from truthing.models import Deal, DealtStream, Step, Stream, StreamState
from truthing.published.exposure import exposure_of, exposure_sources
from vtt_site.interactive import give_way
from vtt_site.jobs import job_finish, job_progress, job_run


def deal_run(*, job_id: int) -> Deal:
    job_run(Deal, job_id, _run)
    return Deal.objects.get(pk=job_id)


def _run(deal: Deal) -> None:
    test = deal.test
    stats = bridge.statistics_of(test)
    settings = bridge.settings_of(test)
    todo = list(
        DealtStream.objects.filter(deal=deal, stream__isnull=True)
        .select_related("test_image__image", "test_image__test")
        .order_by("position")
    )
    done = deal.streams_total - len(todo)
    job_progress(deal, streams_done=done, progress=done / max(deal.streams_total, 1))
    for dealt, scene in _with_scenes(todo, stats):
        test_image = dealt.test_image
        sources = exposure_sources(test_image, deal_id=deal.pk)
        steps = run_automatic(
            stats,
            scene,
            settings,
            bridge.dealt_seed_of(test_image, deal.seed),
            exposure=exposure_of(stats.vocabulary, test_image, sources),
            between_steps=give_way,
        )
        _write_dealt(deal, dealt.pk, steps, stats, sources)
        done += 1
        job_progress(deal, streams_done=done, progress=done / max(deal.streams_total, 1))
    job_finish(deal)


# The session can be taken once its first stream is written: that one's scene is read alone, the rest
# in chunks of this many (reading a 1,000-image test's scenes first took seconds before any question).
SCENE_CHUNK = 50


def _with_scenes(todo: list[DealtStream], stats: CoreStatistics) -> Iterator[tuple[DealtStream, Any]]:
    """Each stream to deal with its image's scene, read a chunk at a time, the first one alone."""
    chunks = [todo[:1]] + [todo[i : i + SCENE_CHUNK] for i in range(1, len(todo), SCENE_CHUNK)]
    for chunk in chunks:
        images = [dealt.test_image.image_id for dealt in chunk]
        scenes = {scene.image: scene for scene in scenes_of(images, stats.vocabulary)}
        for dealt in chunk:
            yield dealt, scenes[dealt.test_image.image.original_name]


@transaction.atomic
def _write_dealt(
    deal: Deal, dealt_id: int, steps: list[StreamStep], stats: CoreStatistics, sources: list[int]
) -> None:
    dealt = DealtStream.objects.select_for_update().select_related("test_image__test").get(pk=dealt_id)
    if dealt.stream_id is not None:
        return  # another run (presumed dead) wrote it meanwhile
    now = timezone.now()
    stream = Stream.objects.create(
        test_image=dealt.test_image,
        deal=deal,
        exposure_streams=sources,
        state=StreamState.ENDED,
        proposing_since=None,
        ended_at=now,
    )
    Step.objects.bulk_create(bridge.oracle_step_rows(stream, steps, stats, now), batch_size=2000)
    dealt.stream = stream
    dealt.save(update_fields=["stream"])


def replayed(stream: Stream, steps: Sequence[Step]) -> list[dict[str, Any]]:
    """The question the engine proposes after each prefix of the stream's answered steps (resumed from
    the stored answers alone, and for a dealt stream the exposure of the streams it names): equal to the
    stored questions when the stream replays exactly."""
    vocabulary = bridge.statistics_of(stream.test_image.test).vocabulary
    ids = stream.exposure_streams
    exposure = exposure_of(vocabulary, stream.test_image, ids) if ids else None
    return bridge.proposals_after_each_prefix(stream, steps, exposure)
