"""Writes of vision systems and their scoped tokens."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction

from accounts.models import ApiToken
from accounts.services import token_create
from evaluation.errors import EvaluationErrorCode
from evaluation.models import SystemShown, VisionSystem
from evaluation.scopes import scope_of
from vtt_site.errors import ApplicationError, CommonErrorCode, ConflictError


@transaction.atomic
def system_create(
    *,
    owner: Any,
    name: str,
    description: str = "",
    url: str = "",
    public: bool = True,
    baseline: str = "",
    shown: str = SystemShown.IMAGE,
) -> VisionSystem:
    name = name.strip()
    if not name:
        raise ApplicationError(
            CommonErrorCode.INVALID, "A vision system needs a name.", fields={"name": ["Required."]}
        )
    if shown not in SystemShown.values:
        raise ApplicationError(
            CommonErrorCode.INVALID,
            "A system is shown the image or the text only.",
            fields={"shown": ["Choose image or text."]},
        )
    try:
        with transaction.atomic():
            return VisionSystem.objects.create(
                owner=owner,
                name=name,
                description=description,
                url=url,
                public=public,
                baseline=baseline,
                shown=shown,
            )
    except IntegrityError:
        raise ConflictError(
            EvaluationErrorCode.SYSTEM_NAME_TAKEN,
            f"You have a vision system named {name!r} already.",
            fields={"name": ["Choose another name."]},
        ) from None


@transaction.atomic
def system_token_create(
    *, system: VisionSystem, name: str, expires_in_days: int | None = None
) -> tuple[ApiToken, str]:
    """A token of the system's owner that acts only as this system (decision 0030). The secret is
    returned once."""
    token, secret = token_create(user=system.owner, name=name, expires_in_days=expires_in_days)
    token.scope = scope_of(system.pk)
    token.save(update_fields=["scope"])
    return token, secret
