"""Leases: who works on a row right now, written once for every queue.

An image in the annotation or review queue and a stream in the operator queue are each held by one
person at a time. A model that can be leased inherits `Leased` (a holder and an expiry); the queues use
the helpers below and nothing else:

- `lease_take(candidates, user, ...)`: the first free row of a queryset, leased to the user. On
  PostgreSQL the candidate is locked with `SELECT ... FOR UPDATE SKIP LOCKED`, so concurrent takers
  pass over each other's rows instead of waiting; the lease is then written by an UPDATE that repeats the
  "still free" condition, which keeps SQLite (no row locks, writes serialised) correct as well.
- `lease_renew_held(queryset, user, ...)`: the row the user already holds, if any, with its lease renewed.
- `lease_require(row, user, ...)`: raise `lease_not_held` (409) unless the user holds the row. An expired
  lease still counts while nobody else has taken the row: being slow is not a reason to lose one's work.
- `lease_release(row, user, ...)`: give the row back (an admin may release anyone's lease).
- `lease_release_all(queryset, user_id)`: give back every row of the queryset a user holds (they left).
- `holds_lease(row, user)`: the same rule as `lease_require`, as a boolean (for pages).

Rows passed to `lease_require` and `lease_release` must be locked by the caller (`select_for_update`),
inside its transaction. How long a lease lasts is a setting per queue (`minutes`).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from enum import StrEnum
from typing import Any, TypeVar

from django.conf import settings
from django.db import connection, models
from django.db.models import Q, QuerySet
from django.utils import timezone

from vtt_site.errors import ConflictError

TAKE_ATTEMPTS = 5  # only SQLite can see a candidate taken under it; a few more tries then suffice


class LeaseErrorCode(StrEnum):
    LEASE_NOT_HELD = "lease_not_held"


class Leased(models.Model):
    lease_holder = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    lease_expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True

    def clear_lease(self) -> list[str]:
        """Forget the lease in memory; returns the fields to save."""
        self.lease_holder = None
        self.lease_expires_at = None
        return ["lease_holder", "lease_expires_at"]


L = TypeVar("L", bound=Leased)


def lease_until(now: datetime, minutes: int) -> datetime:
    return now + timedelta(minutes=minutes)


def lease_free(now: datetime) -> Q:
    """Rows nobody holds, or whose lease has expired."""
    return Q(lease_holder__isnull=True) | Q(lease_expires_at__lte=now)


def lease_take(
    candidates: QuerySet[L],
    user: Any,
    *,
    minutes: int,
    related: tuple[str, ...] = (),
    now: datetime | None = None,
) -> L | None:
    """Lease the first free row of `candidates` (in primary-key order) to the user; None if none is
    free. The row comes back with `related` selected."""
    now = now or timezone.now()
    candidates = candidates.filter(lease_free(now))
    locking = candidates
    if connection.features.has_select_for_update_skip_locked:
        locking = candidates.select_for_update(skip_locked=True)
    tried: list[Any] = []
    for _ in range(TAKE_ATTEMPTS):
        pk = locking.exclude(pk__in=tried).order_by("pk").values_list("pk", flat=True).first()
        if pk is None:
            return None
        if candidates.filter(pk=pk).update(lease_holder=user, lease_expires_at=lease_until(now, minutes)):
            return candidates.model._default_manager.select_related(*related).get(pk=pk)
        tried.append(pk)
    return None


def lease_renew_held(held: QuerySet[L], user: Any, *, minutes: int, now: datetime | None = None) -> L | None:
    """The row of `held` the user holds (the oldest, should there be several), its lease renewed."""
    now = now or timezone.now()
    row = held.filter(lease_holder=user).order_by("pk").first()
    if row is not None:
        lease_renew(row, minutes=minutes, now=now)
    return row


def lease_renew(row: Leased, *, minutes: int, now: datetime | None = None) -> None:
    """Push the expiry back: working on a row is a sign of life."""
    row.lease_expires_at = lease_until(now or timezone.now(), minutes)
    row.save(update_fields=["lease_expires_at"])


def holds_lease(row: Leased, user: Any) -> bool:
    return row.lease_holder_id is not None and row.lease_holder_id == getattr(user, "pk", None)


def lease_require(row: Leased, user: Any, *, what: str, queue: str) -> None:
    """409 unless the user holds the row. `what` names the row for a person ("street-0001.png"),
    `queue` says where to take one ("the annotation queue")."""
    if holds_lease(row, user):
        return
    who = "someone else holds it" if row.lease_holder_id else "nobody holds it"
    raise ConflictError(
        LeaseErrorCode.LEASE_NOT_HELD, f"You do not hold {what} ({who}); take one from {queue} first."
    )


def lease_release(row: Leased, user: Any, *, what: str, may_release_any: bool = False) -> None:
    """Give the row back to its queue. Only its holder may, or anyone when `may_release_any` (admins)."""
    if row.lease_holder_id is None:
        raise ConflictError(LeaseErrorCode.LEASE_NOT_HELD, f"Nobody holds {what}.")
    if not holds_lease(row, user) and not may_release_any:
        raise ConflictError(
            LeaseErrorCode.LEASE_NOT_HELD, f"You do not hold {what}, so you cannot release it."
        )
    row.save(update_fields=row.clear_lease())


def lease_release_all(rows: QuerySet[L], user_id: Any) -> int:
    """Give back every row of `rows` the user holds (they left the team); returns how many."""
    return rows.filter(lease_holder_id=user_id).update(lease_holder=None, lease_expires_at=None)
