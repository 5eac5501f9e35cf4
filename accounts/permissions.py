"""The default permission of every API view: the view names its operation, the role matrix decides."""

from __future__ import annotations

from rest_framework import exceptions
from rest_framework.permissions import BasePermission

from accounts.roles import SCOPED_TOKEN_OPERATIONS, may
from vtt_site.api.operations import operation_of


class OperationPermission(BasePermission):
    message = "Your role does not allow this operation."

    def has_permission(self, request, view) -> bool:
        if request.method == "OPTIONS":
            return True
        operation = operation_of(view, request.method)
        if not (request.user and request.user.is_authenticated):
            raise exceptions.NotAuthenticated()
        if getattr(request.auth, "scope", "") and operation not in SCOPED_TOKEN_OPERATIONS:
            return False  # a scoped token acts only within its scope (decision 0030)
        return may(request.user, operation)
