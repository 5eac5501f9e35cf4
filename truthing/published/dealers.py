"""One dealer's work on a deal (truthing.published.dealing, decision 0096): claim the next row of the
deal that has no stream yet, generate its stream, and write it with the deal's progress, all in one
transaction that holds the row.

The claim is a row lock, as the leases' `lease_take` takes a row: `SELECT ... FOR UPDATE SKIP LOCKED`
of the first row without a stream, in the deal's order, so that dealers pass over each other's rows
instead of waiting. A dealer that dies (a killed process, a lost connection) has its transaction rolled
back by PostgreSQL and its row is free again at once; one that stops talking to the database inside its
claim for `JOB_STALE_SECONDS` (a frozen process, a machine gone without closing its connection) has its
session ended by PostgreSQL (`idle_in_transaction_session_timeout`), the staleness a job's heartbeat
is judged by. A second stream of one image for one deal would be refused besides, by the table's
constraint (`one_dealt_stream_per_image`). Every dealer acts under the claim of the deal's
job (vtt_site.jobs): its progress and the finish are the job's conditional writes, in the stream's
transaction, so a dealer whose run was taken over writes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from truthing import bridge
from truthing.bridge import CoreStatistics, StreamStep, run_automatic, scenes_of
from truthing.models import Deal, DealtStream, Step, Stream, StreamState
from truthing.published.exposure import exposure_of, exposure_sources
from vtt_site.interactive import give_way
from vtt_site.job_model import JobStatus
from vtt_site.jobs import job_finish, job_progress

# A dealer reads the scene of the row it claimed with those of the next rows without a stream, this
# many at a time (reading a 1,000-image test's scenes one by one took seconds); its first read is of
# the claimed row alone, so that the session's first stream starts at once.
SCENE_CHUNK = 50


@dataclass
class Dealing:
    """What a dealer needs of its deal: the row (with the claim it acts under), the test's fit and
    settings, and the scenes it has read ahead."""

    deal: Deal
    stats: CoreStatistics
    settings: Any
    scenes: dict[str, Any] = field(default_factory=dict)
    read_once: bool = False

    @classmethod
    def of(cls, deal: Deal) -> Dealing:
        test = deal.test
        return cls(deal, bridge.statistics_of(test), bridge.settings_of(test))

    def left(self) -> int:
        return _unwritten(self.deal.pk).count()

    def scene_of(self, dealt: DealtStream) -> Any:
        name = dealt.test_image.image.original_name
        if name not in self.scenes:
            self._read_scenes(dealt)
        return self.scenes.pop(name)

    def _read_scenes(self, dealt: DealtStream) -> None:
        """The claimed row's scene, with those of the rows after it that have no stream yet (another
        dealer may deal some of them; what it read before is dropped, as other dealers took it)."""
        images = [dealt.test_image.image_id]
        if self.read_once:
            ahead = _unwritten(self.deal.pk).filter(position__gt=dealt.position).order_by("position")
            images += list(ahead.values_list("test_image__image_id", flat=True)[: SCENE_CHUNK - 1])
        self.read_once = True
        self.scenes = {scene.image: scene for scene in scenes_of(images, self.stats.vocabulary)}


def _unwritten(deal_id: int):
    return DealtStream.objects.filter(deal_id=deal_id, stream__isnull=True)


def deal_one(dealing: Dealing, *, wait: bool) -> bool:
    """Claim the deal's first row without a stream, generate its stream and write it with the deal's
    progress (or its finish), in one transaction; False when there is no such row. Without `wait` the
    rows other dealers hold are passed over; with it they are waited for, and a row whose dealer died
    is taken. `JobLost` (the write rolled back) when the deal's claim is no longer the dealer's."""
    with transaction.atomic():
        _release_when_silent()
        dealt = _claim(dealing.deal.pk, wait=wait)
        if dealt is None:
            return False
        test_image = dealt.test_image
        sources = exposure_sources(test_image, deal_id=dealing.deal.pk)
        steps = run_automatic(
            dealing.stats,
            dealing.scene_of(dealt),
            dealing.settings,
            bridge.dealt_seed_of(test_image, dealing.deal.seed),
            exposure=exposure_of(dealing.stats.vocabulary, test_image, sources),
            between_steps=give_way,
        )
        _write_dealt(dealing, dealt, steps, sources)
        finish_if_complete(dealing.deal)
    return True


def _claim(deal_id: int, *, wait: bool) -> DealtStream | None:
    """The first row of the deal without a stream, locked (only the row: its image's rows are read by
    every dealer of every deal); with `wait` False, the first that no other dealer holds."""
    rows = _unwritten(deal_id).select_related("test_image__image", "test_image__test").order_by("position")
    return rows.select_for_update(skip_locked=not wait, of=("self",)).first()


def _release_when_silent() -> None:
    """A dealer silent inside its claim for JOB_STALE_SECONDS loses it (the module's docstring)."""
    if connection.vendor != "postgresql":
        return
    milliseconds = str(int(settings.JOB_STALE_SECONDS * 1000))
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config('idle_in_transaction_session_timeout', %s, true)", [milliseconds])


def _write_dealt(dealing: Dealing, dealt: DealtStream, steps: list[StreamStep], sources: list[int]) -> None:
    """Store the stream and give it to its row, in the caller's transaction (which holds the row)."""
    now = timezone.now()
    stream = Stream.objects.create(
        test_image=dealt.test_image,
        deal=dealing.deal,
        exposure_streams=sources,
        state=StreamState.ENDED,
        proposing_since=None,
        ended_at=now,
    )
    Step.objects.bulk_create(bridge.oracle_step_rows(stream, steps, dealing.stats, now), batch_size=2000)
    dealt.stream = stream
    dealt.save(update_fields=["stream"])


def finish_if_complete(deal: Deal) -> None:
    """Record the deal's progress, or finish it when no row is left without a stream. In the transaction
    that wrote a stream, after locking the deal's row, so that of two dealers writing the last two
    streams at once the second counts the first's. `JobLost` when the caller's claim is gone."""
    Deal.objects.select_for_update().filter(pk=deal.pk).values_list("pk").first()
    left = _unwritten(deal.pk).count()
    done = deal.streams_total - left
    if left:
        job_progress(deal, streams_done=done, progress=done / max(deal.streams_total, 1))
    else:
        job_finish(deal, streams_done=done)


def held_deal(deal_id: int, claim: str) -> Deal | None:
    """The deal while it runs under `claim`, with its test; None once it is settled or taken over."""
    running = Deal.objects.filter(pk=deal_id, claim=claim, status__in=Deal.running_statuses)
    return running.select_related("test").first()


def deals_waiting(deal_id: int) -> bool:
    """Whether another deal waits for a dealer (queued and sent): a helper gives its worker to it, so
    that a session enrolled meanwhile gets its first stream without waiting for this whole deal."""
    queued = Deal.objects.filter(status=JobStatus.QUEUED, enqueued_at__isnull=False).exclude(pk=deal_id)
    return queued.exists()
