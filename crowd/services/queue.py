"""The crowd queue: each image handed to `overlap` different annotators, gold mixed in at its rate.

A hand-out is a copy (crowd.models.Copy), leased to its annotator with `vtt_site.leases`. The image rows
are the locks: a candidate image is taken with `SELECT ... FOR UPDATE SKIP LOCKED`, its copies counted
again under that lock, and a copy inserted only while fewer than `overlap` are live (submitted, or held
under a lease that has not expired); `unique (image, annotator)` makes a second copy for one person
impossible whatever happens. So sixteen annotators pulling at once pass over each other's images
instead of waiting, and no image is handed out more often than asked (tests/crowd/test_queue_race.py).

A copy whose lease expired before it was submitted stays its annotator's until someone else needs the
place: then it is deleted (its draft is lost) and the place handed out again.
"""

from __future__ import annotations

import random
from typing import Any

from django.db import connection, transaction
from django.db.models import Count, Exists, IntegerField, OuterRef, Q, Subquery, Value
from django.db.models.functions import Coalesce
from django.utils import timezone

from annotations.models import Collection, Image, Stage
from annotations.services.annotation import image_lease_minutes
from crowd.errors import CrowdErrorCode
from crowd.models import Copy, CopyState, CrowdSettings, GoldImage
from crowd.selectors import active_pause, require_crowd
from vtt_site.errors import PermissionDeniedError
from vtt_site.leases import lease_renew_held, lease_until

TAKE_ATTEMPTS = 8  # a candidate found full under its lock is passed over; a few more tries then suffice


def _live(now) -> Q:
    return Q(state=CopyState.SUBMITTED) | Q(lease_expires_at__gt=now)


@transaction.atomic
def copy_next(*, collection: Collection, user: Any, rng: random.Random | None = None) -> Copy | None:
    """The copy the annotator should work on: the one they hold, else a new one (a gold image at the
    collection's gold rate, when one they never had is left), else None: nothing is waiting for them."""
    settings = require_crowd(collection)
    pause = active_pause(collection=collection, user=user)
    if pause is not None:
        raise PermissionDeniedError(
            CrowdErrorCode.ANNOTATOR_PAUSED,
            f"You are paused from {collection.name}: {pause.reason} A reviewer of the collection can lift it.",
        )
    now, minutes = timezone.now(), image_lease_minutes()
    mine = Copy.objects.filter(annotator=user, image__collection=collection, state=CopyState.IN_PROGRESS)
    held = lease_renew_held(mine, user, minutes=minutes, now=now)
    if held is not None:
        return held
    _share_collection(collection)
    if settings.gold_rate > 0 and (rng or random).random() < settings.gold_rate:
        copy = _take(_gold_candidates(collection, user), user, limit=None, gold=True, now=now)
        if copy is not None:
            return copy
    return _take(
        _candidates(collection, user, settings, now), user, limit=settings.overlap, gold=False, now=now
    )


def _share_collection(collection: Collection) -> None:
    """A hand-out holds the collection's row in share mode, so a change of the overlap waits for it
    (crowd.services.settings locks the row for update); hand-outs do not wait for each other."""
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1 FROM annotations_collection WHERE id = %s FOR SHARE", [collection.pk])


def _never_had(user: Any) -> Q:
    return ~Q(Exists(Copy.objects.filter(image=OuterRef("pk"), annotator=user)))


def _candidates(collection: Collection, user: Any, settings: CrowdSettings, now) -> Any:
    taken = (
        Copy.objects.filter(_live(now), image=OuterRef("pk"))
        .values("image")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return (
        Image.objects.filter(_never_had(user), collection=collection, stage=Stage.ANNOTATE)
        .exclude(Exists(GoldImage.objects.filter(image=OuterRef("pk"))))
        .annotate(taken=Coalesce(Subquery(taken, output_field=IntegerField()), Value(0)))
        .filter(taken__lt=settings.overlap)
        # Images others have begun first, so that merges come early and steadily; then in upload order.
        .order_by("-taken", "pk")
    )


def _gold_candidates(collection: Collection, user: Any) -> Any:
    return (
        Image.objects.filter(
            _never_had(user), collection=collection, stage=Stage.ACCEPTED, crowd_gold__isnull=False
        )
        .exclude(annotator=user)
        .order_by("?")
    )


def _take(candidates: Any, user: Any, *, limit: int | None, gold: bool, now) -> Copy | None:
    """Lock the first candidate nobody else is locking, count its live copies again under the lock, and
    insert the user's copy if there is room. When every candidate is locked by other hand-outs, wait for
    one of them rather than answer "nothing is waiting" while places may be left (a hand-out is short)."""
    passed: list[int] = []
    if connection.features.has_select_for_update_skip_locked:
        copy = _take_from(
            candidates.select_for_update(skip_locked=True, of=("self",)), passed, user, limit, gold, now
        )
        if copy is not None:
            return copy
        candidates = candidates.select_for_update(of=("self",))
    return _take_from(candidates, passed, user, limit, gold, now)


def _take_from(locking: Any, passed: list[int], user: Any, limit: int | None, gold: bool, now) -> Copy | None:
    for _ in range(TAKE_ATTEMPTS):
        pk = locking.exclude(pk__in=passed).values_list("pk", flat=True).first()
        if pk is None:
            return None
        copies = Copy.objects.filter(image_id=pk)
        if limit is not None and copies.filter(_live(now)).count() >= limit:
            passed.append(pk)
            continue
        if limit is not None and copies.count() >= limit:
            # A place held by a lease that expired before its copy was submitted is given to another.
            copies.filter(state=CopyState.IN_PROGRESS, lease_expires_at__lte=now).delete()
        return Copy.objects.create(
            image_id=pk,
            annotator=user,
            gold=gold,
            taken_at=now,
            lease_holder=user,
            lease_expires_at=lease_until(now, image_lease_minutes()),
        )
    return None
