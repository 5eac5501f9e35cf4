"""Reads for accounts."""

from __future__ import annotations

from django.db.models import QuerySet

from accounts.models import ApiToken


def tokens_of(*, user) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user).order_by("-created_at", "-id")
