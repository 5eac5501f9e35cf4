"""Reads of the evaluation app. `access_*` selectors check who may see what: a token scoped to a system
sees only that system; an owner sees their systems; an admin sees every system. Whatever is not visible
is answered exactly like what does not exist (404), so nothing tells them apart.

The public side (docs/evaluation.md, "What others see"): everyone who may read leaderboards sees the
public systems and the built-in baselines (`systems_listed`), their finished sessions' scores, and their
stream-by-stream results only where they cannot help to take the test (`streams_withheld`); a caller
taking a test sees nothing of other systems' sessions on it (`taking_test_ids`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.db.models import Q, QuerySet

from accounts.models import ApiToken
from accounts.roles import is_admin, may
from evaluation.errors import EvaluationErrorCode
from evaluation.models import Session, SessionState, VisionSystem
from evaluation.scopes import is_scoped, scope_of, scoped_system_id
from truthing.published import TAKEABLE
from vtt_site.errors import NotFoundError


def systems_visible(*, user: Any, auth: Any = None) -> QuerySet[VisionSystem]:
    systems = VisionSystem.objects.select_related("owner")
    scoped = scoped_system_id(auth)
    if scoped is not None:
        return systems.filter(pk=scoped)
    if is_scoped(auth):
        return systems.none()
    if is_admin(user):
        return systems
    return systems.filter(owner=user)


def access_system(*, user: Any, auth: Any = None, system_id: int, act: bool = False) -> VisionSystem:
    """A system the caller may see; with `act`, one the caller may act as (its owner or its token:
    an admin sees every system but does not act as other people's)."""
    systems = systems_visible(user=user, auth=auth)
    if act and scoped_system_id(auth) is None:
        systems = systems.filter(owner=user)
    system = systems.filter(pk=system_id).first()
    if system is None:
        raise NotFoundError(
            EvaluationErrorCode.SYSTEM_NOT_FOUND, f"There is no vision system {system_id} of yours."
        )
    return system


def sessions_visible(*, user: Any, auth: Any = None) -> QuerySet[Session]:
    return Session.objects.filter(system__in=systems_visible(user=user, auth=auth)).select_related("system")


def access_session(*, user: Any, auth: Any = None, session_id: int, act: bool = False) -> Session:
    sessions = sessions_visible(user=user, auth=auth)
    if act and scoped_system_id(auth) is None:
        sessions = sessions.filter(system__owner=user)
    session = sessions.filter(pk=session_id).first()
    if session is None:
        raise NotFoundError(
            EvaluationErrorCode.SESSION_NOT_FOUND, f"There is no session {session_id} of yours."
        )
    return session


def _sessions_taking(*, user: Any, auth: Any = None) -> QuerySet[Session]:
    """The active sessions of every system of the caller's owner: a person's own systems, and for a
    token scoped to a system, every system of that system's owner (a token of another system of the
    same owner, registered and never enrolled, is the same person reading)."""
    if not getattr(user, "is_authenticated", False):
        return Session.objects.none()
    # A practice session hides nothing: a practice test has no leaderboard, and other systems' practice
    # sessions are shown to nobody but their owners (decision 0075).
    return Session.objects.filter(state=SessionState.ACTIVE, system__owner=user, practice=False)


def taking(*, user: Any, auth: Any = None, test_id: int) -> bool:
    """Whether the caller's owner has a system with an active session on this test."""
    return _sessions_taking(user=user, auth=auth).filter(test_id=test_id).exists()


def taking_test_ids(*, user: Any, auth: Any = None) -> set[int]:
    """The tests on which the caller's owner has a system with an active session."""
    return set(_sessions_taking(user=user, auth=auth).values_list("test_id", flat=True))


# --- What others see of a system ----------------------------------------------------------------------


def systems_listed(*, user: Any, auth: Any = None) -> QuerySet[VisionSystem]:
    """The systems whose finished sessions the caller may read (on leaderboards and system pages): the
    public ones and the built-in baselines, for everyone who may read leaderboards; and the ones the
    caller sees anyway (its own; every one for an admin)."""
    public = VisionSystem.objects.filter(Q(public=True) | ~Q(baseline=""))
    if not getattr(user, "is_authenticated", False):
        return public.select_related("owner")
    return (public | systems_visible(user=user, auth=auth)).select_related("owner")


def access_listed_system(*, user: Any, auth: Any = None, system_id: int) -> VisionSystem:
    """A system whose results the caller may read; a private system of someone else is a 404, exactly
    like one that does not exist."""
    system = systems_listed(user=user, auth=auth).filter(pk=system_id).first()
    if system is None:
        raise NotFoundError(
            EvaluationErrorCode.SYSTEM_NOT_FOUND, f"There is no vision system {system_id} you may see."
        )
    return system


def sees_all_sessions(system: VisionSystem, *, user: Any, auth: Any = None) -> bool:
    """Whether the caller sees every session of the system with its answers (its owner, its token, an
    admin), not only what everyone may read of it."""
    return systems_visible(user=user, auth=auth).filter(pk=system.pk).exists()


def acts_for(system: VisionSystem, *, user: Any, auth: Any = None) -> bool:
    """Whether the caller acts for this system: its scoped token, or (unscoped) its owner."""
    scoped = scoped_system_id(auth)
    if scoped is not None:
        return scoped == system.pk
    if is_scoped(auth) or not getattr(user, "is_authenticated", False):
        return False
    return system.owner_id == user.pk


def may_enrol(*, user: Any, auth: Any = None) -> bool:
    """Whether the caller could enrol a system in a test: a token scoped to a system always could; a
    person could when a role of theirs allows `evaluation.session.create`. Admins are left out: they may
    read every answer of every test anyway."""
    if scoped_system_id(auth) is not None or is_scoped(auth):
        return True
    return may(user, "evaluation.session.create") and not is_admin(user)


STREAMS_WITHHELD = (
    "Stream-by-stream results on {test} are shown to vision-system owners once the test is archived: "
    "while it can still be taken, a system's accuracy on each stream tells something about the answers "
    "on that stream's image."
)


def streams_withheld(*, test: Any, own: bool, user: Any, auth: Any = None) -> str:
    """Why another system's stream-by-stream results on `test` are not shown to the caller, or "" when
    they are. They are shown when the caller cannot use them to take the test: it is archived, or the
    caller could not enrol a system in it (decision 0032). The always-yes baseline's accuracy on a
    stream is the share of yes answers on that image; on a test that can still be taken that is a hint
    a newcomer could use."""
    if own or test.state not in TAKEABLE or not may_enrol(user=user, auth=auth):
        return ""
    return STREAMS_WITHHELD.format(test=test.name)


@dataclass(frozen=True)
class Answerer:
    """Whose sessions a caller may answer in: one system's (a token scoped to it) or one owner's systems';
    neither set, nobody's. evaluation.services.sessions.answer_submit checks it in the query that locks
    the session."""

    system_id: int | None = None
    owner_id: int | None = None


def answerable(*, user: Any, auth: Any = None) -> Answerer:
    """The sessions the caller may answer in: its scoped system's, or (unscoped) its own systems'."""
    scoped = scoped_system_id(auth)
    if scoped is not None:
        return Answerer(system_id=scoped)
    if is_scoped(auth) or not getattr(user, "is_authenticated", False):
        return Answerer()
    return Answerer(owner_id=user.pk)


def system_tokens(*, system: VisionSystem) -> QuerySet[ApiToken]:
    """The tokens scoped to a system, newest first (for its owner and admins: name, prefix, dates;
    the secret is never stored, only its digest)."""
    return ApiToken.objects.filter(user_id=system.owner_id, scope=scope_of(system.pk)).order_by(
        "-created_at", "-id"
    )


def systems_of_tokens(tokens: Iterable[ApiToken]) -> dict[int, VisionSystem]:
    """{token id: the vision system it acts as} for the scoped ones among `tokens` (one query)."""
    scoped = {token.pk: scoped_system_id(token) for token in tokens}
    systems = VisionSystem.objects.in_bulk([pk for pk in scoped.values() if pk is not None])
    return {token: systems[pk] for token, pk in scoped.items() if pk in systems}


def system_session_over(*, system: VisionSystem, session_id: int) -> Session | None:
    """A session of the system that is over (its questions, answers and pictures may be shown), or None."""
    session = Session.objects.filter(pk=session_id, system=system).first()
    return session if session is not None and session.over else None
