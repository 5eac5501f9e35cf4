"""What an API view declares it does: `operation = "..."` or `operations = {"GET": ..., ...}`.

Read by the permission (accounts.permissions, against the role matrix) and by the schema (operation
ids), so it lives below both.
"""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured
from rest_framework import exceptions


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
