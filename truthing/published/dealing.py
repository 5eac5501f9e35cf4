"""The deal's job: generate, ahead of the system, the fresh streams of a session on the test's
oracle-truthed images (truthing.published.deals chose the rest at enrolment), spread over dealers.

Each stream is proposed by the engine with the deal's seed and answered by the oracle, exactly as
automatic truthing does (`run_automatic`, and its rows through `oracle_step_rows`), and stored like any
stream: a Stream row (ended, marked with its deal) and its steps with p and population. The engine's
draw prefers the questions least told to earlier sessions: its exposure is made of the latest streams
dealt on the image by earlier deals (truthing.published.exposure), whose ids the row keeps. So it
replays exactly, and a stream depends on its image, the deal's seed and earlier deals only, never on
another stream of its own deal: whichever dealer writes it, in whatever order, it is the same stream.

Several dealers share one deal (decision 0096, `truthing.published.dealers` for the claim). The job's run
(`deal_run`, the owner: claimed, heartbeat, takeover, all vtt_site.jobs) asks `TRUTHING_DEALERS - 1`
helpers (`deal_help`, tasks on the deals queue) to deal beside it, under its own claim. Every dealer
takes the next free row in the deal's order (SKIP LOCKED) and writes its stream in the transaction that
holds the row, with the deal's progress; the dealer that writes the last stream finishes the job in that
transaction. The owner, once no row is free, waits for the rows other dealers hold and deals any whose
dealer died (its transaction rolled back, its row free again). A run that takes over a dead owner finds
the streams written already and deals the rest. The session can be taken as soon as its first stream is
written (truthing.published.plans.deal_plan gives the streams written so far from the first): the first
row is the first claimed, and its scene is read alone.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from django.db import transaction

from truthing import bridge
from truthing.conf import conf
from truthing.models import Deal, Step, Stream
from truthing.published.dealers import Dealing, deal_one, deals_waiting, finish_if_complete, held_deal
from truthing.published.exposure import exposure_of
from truthing.queues import DEAL_HELP
from vtt_site.jobs import JobLost, job_run
from vtt_site.queueing import tasks_in_process

logger = logging.getLogger(__name__)


def deal_run(*, job_id: int) -> Deal:
    job_run(Deal, job_id, _run)
    return Deal.objects.get(pk=job_id)


def _run(deal: Deal) -> None:
    dealing = Dealing.of(deal)
    with transaction.atomic():
        finish_if_complete(deal)  # the progress a run that takes over starts from; done if nothing is left
    if not deal.running:
        return
    _ask_helpers(deal, dealing.left())
    while deal_one(dealing, wait=False):
        pass
    # No row is free: wait for those other dealers hold, and deal any whose dealer died. The dealer that
    # writes the last stream finishes the job.
    while deal_one(dealing, wait=True):
        pass


def _ask_helpers(deal: Deal, left: int) -> None:
    """Send the helpers of this run (no more than there are streams besides the owner's first). Not when
    tasks run in this process (`make run`, most tests): a helper would run to its end before the owner
    starts, one after the other, and SQLite has one writer anyway."""
    helpers = min(conf.TRUTHING_DEALERS - 1, left - 1)
    if tasks_in_process() or helpers <= 0:
        return
    for n in range(helpers):
        DEAL_HELP.send(deal.pk, str(deal.claim), what=f"helper {n + 1} of deal {deal.pk}")


def deal_help(*, deal_id: int, claim: str) -> int:
    """Deal streams of a deal beside its owner, under the owner's claim `claim`, while a row is free and
    no other deal waits for a dealer; how many this helper wrote. A helper whose owner's claim is gone
    (the deal settled, or taken over: the new run asks for helpers of its own) does nothing. A helper
    that fails leaves its row to the owner, which meets the same failure and fails the job saying so."""
    deal = held_deal(deal_id, claim)
    if deal is None:
        return 0
    written = 0
    try:
        dealing = Dealing.of(deal)
        while not deals_waiting(deal_id) and deal_one(dealing, wait=False):
            written += 1
    except JobLost:
        logger.info("Deal %s was settled or taken over; its helper stops.", deal_id)
    except Exception:
        logger.exception("A helper of deal %s failed; the deal's own run deals its streams.", deal_id)
    return written


def replayed(stream: Stream, steps: Sequence[Step]) -> list[dict[str, Any]]:
    """The question the engine proposes after each prefix of the stream's answered steps (resumed from
    the stored answers alone, and for a dealt stream the exposure of the streams it names): equal to the
    stored questions when the stream replays exactly."""
    vocabulary = bridge.statistics_of(stream.test_image.test).vocabulary
    ids = stream.exposure_streams
    exposure = exposure_of(vocabulary, stream.test_image, ids) if ids else None
    return bridge.proposals_after_each_prefix(stream, steps, exposure)
