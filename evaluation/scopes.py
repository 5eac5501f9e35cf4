"""Tokens scoped to one vision system (decision 0030): `ApiToken.scope == "vision_system:<id>"`."""

from __future__ import annotations

from typing import Any

PREFIX = "vision_system:"


def scope_of(system_id: int) -> str:
    return f"{PREFIX}{system_id}"


def scoped_system_id(auth: Any) -> int | None:
    """The vision system a request's token is scoped to, or None (a person, or an unscoped token)."""
    scope = getattr(auth, "scope", "") or ""
    if scope.startswith(PREFIX):
        return int(scope[len(PREFIX) :])
    return None


def is_scoped(auth: Any) -> bool:
    return bool(getattr(auth, "scope", ""))
