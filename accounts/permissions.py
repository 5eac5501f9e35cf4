"""The default permission of every API view: the view names its operation, the role matrix decides."""

from __future__ import annotations

from rest_framework import exceptions
from rest_framework.permissions import BasePermission

from accounts.roles import QUEUEING_OPERATIONS, SCOPED_TOKEN_OPERATIONS, may
from vtt_site.api.operations import operation_of
from vtt_site.broker import BROKER_DOWN, broker_error
from vtt_site.errors import ServiceUnavailableError


class OperationPermission(BasePermission):
    message = "Your role does not allow this operation."

    def has_permission(self, request, view) -> bool:
        if request.method == "OPTIONS":
            return True
        operation = operation_of(view, request.method)
        # The access_* selectors check it against the user's membership role in the collection.
        request.operation = operation
        if not (request.user and request.user.is_authenticated):
            raise exceptions.NotAuthenticated()
        if getattr(request.auth, "scope", "") and operation not in SCOPED_TOKEN_OPERATIONS:
            return False  # a scoped token acts only within its scope (decision 0030)
        if not may(request.user, operation):
            return False
        if operation in QUEUEING_OPERATIONS and broker_error() is not None:
            # Refused before anything is written: a job that could never start is not created.
            raise ServiceUnavailableError(BROKER_DOWN)
        return True
