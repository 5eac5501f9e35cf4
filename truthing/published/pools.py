"""The pools an operator-truthed image deals from: which of a test's own streams may be dealt, how often
each was, and the choice for a new deal (under a lock on the pools' rows, so that concurrent enrolments
see each other's deals and exposure counts stay exact). Reads; the deal is written by
truthing.published.dealing."""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

from django.db.models import Count, Exists, OuterRef, QuerySet

from truthing.models import (
    Check,
    DealtStream,
    Disagreement,
    DisagreementState,
    Stream,
    StreamState,
    TestImage,
    TruthingMode,
)


def dealable_pool(test_image_ids: list[int]):
    """The pool streams that may be dealt: a test's own streams that have ended, whose checks are
    finished and whose disagreements are decided (a stream grown after publishing may still change
    until then)."""
    unfinished = Check.objects.filter(stream=OuterRef("pk"), finished_at__isnull=True)
    disputed = Disagreement.objects.filter(step__stream=OuterRef("pk"), state=DisagreementState.OPEN)
    return Stream.objects.filter(test_image_id__in=test_image_ids, state=StreamState.ENDED).exclude(
        Exists(unfinished) | Exists(disputed)
    )


def pool_choices(images: list[TestImage], *, owner_id: int, rng: random.Random) -> dict[int, int]:
    """Per operator-truthed image, the pool stream dealt: the least dealt so far among those not yet
    dealt to this owner (all of them when every one was), ties drawn with the deal's generator."""
    pooled = [test_image.pk for test_image in images if test_image.mode == TruthingMode.OPERATOR]
    if not pooled:
        return {}
    # The lock: one deal at a time chooses from these pools, and sees every deal committed before it.
    list(TestImage.objects.select_for_update().filter(pk__in=pooled).order_by("pk").values_list("pk"))
    pools: dict[int, list[int]] = defaultdict(list)
    for stream_id, test_image_id in (
        dealable_pool(pooled).order_by("number").values_list("pk", "test_image_id")
    ):
        pools[test_image_id].append(stream_id)
    streams = [stream_id for pool in pools.values() for stream_id in pool]
    exposure = pool_exposure(streams)
    owned = set(
        DealtStream.objects.filter(stream_id__in=streams, deal__owner_id=owner_id).values_list(
            "stream_id", flat=True
        )
    )
    chosen = {}
    for test_image_id in pooled:
        pool = pools.get(test_image_id)
        if not pool:
            continue  # a published test has a pool for every operator image; a broken one gets nothing
        fresh = [stream_id for stream_id in pool if stream_id not in owned] or pool
        least = min(exposure[stream_id] for stream_id in fresh)
        chosen[test_image_id] = rng.choice([stream_id for stream_id in fresh if exposure[stream_id] == least])
    return chosen


def pool_exposure(stream_ids: Iterable[int] | QuerySet[Any, Any]) -> Counter[int]:
    """How many deals (sessions) each of these streams was dealt to (`stream_ids`: ids, or a query of
    them, which PostgreSQL reads as a subquery)."""
    counted = (
        DealtStream.objects.filter(stream_id__in=stream_ids)
        .values("stream_id")
        .annotate(n=Count("id"))
        .values_list("stream_id", "n")
    )
    return Counter(dict(counted))


def dealt_streams_count(test_id: int) -> int:
    """How many streams were generated for the test's deals (sessions' own oracle streams)."""
    return Stream.dealt.filter(test_image__test_id=test_id).count()
