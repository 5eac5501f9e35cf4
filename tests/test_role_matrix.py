"""Every role against every API operation: allowed ones succeed, forbidden ones get 403, anonymous 401.

`CALLS` holds one valid request per operation in `accounts.roles.OPERATIONS`; a test fails when an API
view exists whose operation has no entry here, so the matrix grows with every app. Each call runs on a
fresh world in which every role's user is a member of the demo collection, so an allowed call succeeds.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from accounts.permissions import operation_of
from accounts.roles import OPERATIONS, Role
from accounts.services import token_create

pytestmark = pytest.mark.django_db


@dataclass
class Call:
    method: str
    path: str
    data: Any = None
    format: str | None = "json"
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class World:
    actor: Any
    users: dict[Role, Any]


Builder = Callable[[World], Call]

CALLS: dict[str, Builder] = {
    "account.read": lambda w: Call("get", "/api/v1/me/"),
    "tokens.list": lambda w: Call("get", "/api/v1/tokens/"),
    "tokens.create": lambda w: Call("post", "/api/v1/tokens/", {"name": "matrix"}),
    "tokens.revoke": lambda w: Call(
        "delete", f"/api/v1/tokens/{token_create(user=w.actor, name='to-revoke')[0].pk}/"
    ),
}


def api_operations() -> set[str]:
    """The operations of every view mounted under /api/v1/, read from the URL configuration."""
    found: set[str] = set()

    def walk(patterns, prefix: str) -> None:
        for pattern in patterns:
            route = prefix + str(pattern.pattern)
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, route)
            elif isinstance(pattern, URLPattern) and route.startswith("api/v1/"):
                view_class = getattr(pattern.callback, "view_class", None)
                if view_class is None or view_class.__module__.startswith("drf_spectacular"):
                    continue
                view = view_class()
                for method in ("get", "post", "put", "patch", "delete"):
                    if hasattr(view_class, method):
                        found.add(operation_of(view, method.upper()))

    walk(get_resolver().url_patterns, "")
    return found


def test_every_api_operation_is_in_the_role_matrix_and_has_a_call():
    mounted = api_operations()
    assert mounted - set(OPERATIONS) == set(), "views name operations missing from accounts.roles"
    assert set(OPERATIONS) - set(CALLS) == set(), "operations without a call in this test"
    assert set(OPERATIONS) - mounted == set(), "operations listed but not mounted"


def perform(api, call: Call):
    return getattr(api, call.method)(call.path, data=call.data, format=call.format, **call.headers)


@pytest.mark.parametrize("role", list(Role), ids=lambda r: r.value.replace(" ", "-"))
@pytest.mark.parametrize("operation", sorted(OPERATIONS))
def test_role_matrix(operation, role, api, users, world_factory):
    world = world_factory(actor=users[role], users=users)
    call = CALLS[operation](world)
    response = perform(api.as_user(users[role]), call)
    if role in OPERATIONS[operation]:
        assert 200 <= response.status_code < 300, (
            operation,
            role,
            response.status_code,
            response.content[:300],
        )
    else:
        assert response.status_code == 403, (operation, role, response.status_code)
        assert response.json()["code"] == "permission_denied"


@pytest.mark.parametrize("operation", sorted(OPERATIONS))
def test_anonymous_gets_401(operation, api, users, world_factory):
    call = CALLS[operation](world_factory(actor=users[Role.ADMIN], users=users))
    response = perform(api, call)
    assert response.status_code == 401, (operation, response.status_code)


@pytest.fixture
def world_factory(db):
    def build(actor, users) -> World:
        return World(actor=actor, users=users)

    return build
