"""Writes for accounts: tokens and demo users."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.errors import AccountErrorCode
from accounts.models import ApiToken
from accounts.roles import Role
from accounts.tokens import digest_of, display_prefix, new_secret
from vtt_site.errors import ApplicationError, CommonErrorCode, ConflictError, NotFoundError


@transaction.atomic
def token_create(*, user, name: str, expires_in_days: int | None = None) -> tuple[ApiToken, str]:
    """Create a token and return it with its secret, which is never available again.

    A user holds at most `TOKENS_MAX_PER_USER` live tokens: a stolen session cannot mint tokens without
    end, and a forgotten script that creates one per run is noticed.
    """
    now = timezone.now()
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()  # one creation at a time
    live = ApiToken.objects.filter(user=user, revoked_at__isnull=True).exclude(expires_at__lte=now)
    if live.count() >= settings.TOKENS_MAX_PER_USER:
        raise ConflictError(
            AccountErrorCode.TOKEN_LIMIT_REACHED,
            f"You already have {settings.TOKENS_MAX_PER_USER} live tokens, the most allowed; "
            "revoke one you no longer use.",
        )
    secret = new_secret()
    expires_at = now + timedelta(days=expires_in_days) if expires_in_days else None
    try:
        with transaction.atomic():
            token = ApiToken.objects.create(
                user=user,
                name=name.strip(),
                prefix=display_prefix(secret),
                digest=digest_of(secret),
                expires_at=expires_at,
            )
    except IntegrityError:
        raise ConflictError(
            AccountErrorCode.TOKEN_NAME_TAKEN,
            f"You already have a live token named {name!r}.",
            fields={"name": ["Choose another name or revoke the existing token."]},
        ) from None
    return token, secret


@transaction.atomic
def token_revoke(*, user, token_id: int) -> ApiToken:
    token = ApiToken.objects.select_for_update().filter(pk=token_id, user=user).first()
    if token is None:
        raise NotFoundError(AccountErrorCode.TOKEN_NOT_FOUND, f"You have no token with id {token_id}.")
    if token.revoked_at is not None:
        raise ConflictError(
            AccountErrorCode.TOKEN_ALREADY_REVOKED, f"Token {token.name!r} is already revoked."
        )
    token.revoked_at = timezone.now()
    token.save(update_fields=["revoked_at"])
    return token


@transaction.atomic
def user_create_with_role(*, username: str, password: str | None, role: Role, email: str = ""):
    """A user in one role group; admins are also staff (they use the Django admin). Password None: the
    user cannot log in with one (a baseline's owner acts through API tokens only)."""
    if not username.strip():
        raise ApplicationError(
            CommonErrorCode.INVALID, "A username is required.", fields={"username": ["Required."]}
        )
    User = get_user_model()
    user, _ = User.objects.get_or_create(username=username, defaults={"email": email})
    user.set_password(password)
    user.is_staff = role == Role.ADMIN
    user.save()
    # get_or_create: post_migrate makes the groups (role_groups_ensure), but a flush told not to send it
    # (call_command("flush", inhibit_post_migrate=True), as tests/vtt_site/test_fast_flush.py does) leaves none.
    user.groups.add(Group.objects.get_or_create(name=role.value)[0])
    return user


def role_groups_ensure(*, apps: Any = None, using: str = "default", **_: Any) -> None:
    """One group per role, made where missing (a post_migrate receiver: accounts/apps.py). Without
    them no user could be given a role: after a flush the platform would have none."""
    try:
        model = apps.get_model("auth", "Group") if apps is not None else Group
    except LookupError:  # auth is not migrated (yet)
        return
    for role in Role:
        model.objects.using(using).get_or_create(name=role.value)
