"""Reads of the evaluation app. `access_*` selectors check who may see what: a token scoped to a system
sees only that system; an owner sees their systems; an admin sees every system. Whatever is not visible
is answered exactly like what does not exist (404), so nothing tells them apart."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from accounts.roles import is_admin
from evaluation.errors import EvaluationErrorCode
from evaluation.models import Session, VisionSystem
from evaluation.scopes import is_scoped, scoped_system_id
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


def taking(*, user: Any, auth: Any = None, test_id: int) -> bool:
    """Whether the caller acts for a system with an active session on this test."""
    if not getattr(user, "is_authenticated", False):
        return False
    scoped = scoped_system_id(auth)
    sessions = Session.objects.filter(test_id=test_id, state="active")
    if scoped is not None:
        return sessions.filter(system_id=scoped).exists()
    return sessions.filter(system__owner=user).exists()


def answerable(*, user: Any, auth: Any = None) -> QuerySet[Session]:
    """The sessions the caller may answer in: its scoped system's, or (unscoped) its own systems'."""
    scoped = scoped_system_id(auth)
    if scoped is not None:
        return Session.objects.filter(system_id=scoped)
    if is_scoped(auth):
        return Session.objects.none()
    return Session.objects.filter(system__owner=user)
