"""The default permission of every API view: the view names its operation, the role matrix decides."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured
from rest_framework import exceptions
from rest_framework.permissions import BasePermission

from accounts.roles import may


def operation_of(view, method: str) -> str:
    """The operation a view performs for an HTTP method, as declared on the view."""
    operations = getattr(view, "operations", None)
    if operations is not None:
        if method == "HEAD":
            method = "GET"
        if method not in operations:
            raise exceptions.MethodNotAllowed(method)
        return operations[method]
    operation = getattr(view, "operation", None)
    if operation is None:
        raise ImproperlyConfigured(f"{type(view).__name__} does not declare `operation` or `operations`")
    return operation


class OperationPermission(BasePermission):
    message = "Your role does not allow this operation."

    def has_permission(self, request, view) -> bool:
        if request.method == "OPTIONS":
            return True
        operation = operation_of(view, request.method)
        if not (request.user and request.user.is_authenticated):
            raise exceptions.NotAuthenticated()
        return may(request.user, operation)
