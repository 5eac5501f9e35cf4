"""The operator queue: what an operator works on next (vtt_site.leases).

An operator holds one piece of work at a time: a stream they truth until it ends, or a check. Asking
for work returns what they hold (its lease renewed); otherwise a check of someone else's stream (a
second opinion, or gold work on a stream the oracle truthed: both look the same to them), then a stream
that waits for an operator. An ended stream or a finished check they still hold (kept so that they
could take their last answer back) is given back first.

Only work on images of collections where the operator's membership grants the operator role (decision
0006: a membership role means something; it is also what lets them see the pixels). Admins: anywhere.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Exists, OuterRef, Q

from accounts.roles import is_admin
from annotations.models import CollectionMembership, MemberRole
from truthing.models import Check, Step, Stream, StreamState, TestState
from truthing.services.rules import lease_minutes, operator_streams
from vtt_site.leases import lease_release_all, lease_renew_held, lease_take

STREAM_RELATED = ("test_image__test", "test_image__image")
CHECK_RELATED = ("stream__test_image__test", "stream__test_image__image")


def open_checks():
    """Unfinished checks of tests being truthed, and of streams grown into a published test's pool."""
    return Check.objects.filter(
        Q(stream__test_image__test__state=TestState.TRUTHING)
        | Q(stream__test_image__test__state=TestState.PUBLISHED, stream__grown_at__isnull=False),
        finished_at__isnull=True,
    )


def workable_by(rows, user: Any, image: str):
    """The rows whose image (at the path `image`) is in a collection the user operates in."""
    if is_admin(user):
        return rows
    memberships = CollectionMembership.objects.filter(
        collection=OuterRef(f"{image}__collection"), user=user, role=MemberRole.OPERATOR
    )
    return rows.filter(Exists(memberships))


@transaction.atomic
def operator_next(*, user: Any) -> Stream | Check | None:
    minutes = lease_minutes()
    # Ended streams and finished checks stay held so that their last answer may be taken back.
    lease_release_all(Stream.objects.filter(state=StreamState.ENDED), user.pk)
    lease_release_all(Check.objects.filter(finished_at__isnull=False), user.pk)
    streams = workable_by(operator_streams(), user, "test_image__image")
    checks = workable_by(open_checks(), user, "stream__test_image__image")
    held = lease_renew_held(streams, user, minutes=minutes) or lease_renew_held(checks, user, minutes=minutes)
    if held is not None:
        return held
    answered_by_user = Step.objects.filter(stream=OuterRef("stream"), answered_by=user)
    check = lease_take(checks.exclude(Exists(answered_by_user)), user, minutes=minutes, related=CHECK_RELATED)
    if check is not None:
        return check
    return lease_take(streams, user, minutes=minutes, related=STREAM_RELATED)
