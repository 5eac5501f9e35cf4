"""`Authorization: Token vtt_…` (or `Bearer vtt_…`) for programs; the browser uses its session."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication

from accounts.models import ApiToken
from accounts.selectors import token_with_roles
from accounts.throttling import auth_failure
from accounts.tokens import digest_of

# Writing last_used_at on every request would turn reads into writes; once a minute is enough to audit.
LAST_USED_GRANULARITY = timedelta(minutes=1)
UNKNOWN_TOKEN = "The token is unknown, revoked or expired."


class HashedTokenAuthentication(authentication.BaseAuthentication):
    keywords = ("token", "bearer")

    def authenticate(self, request):
        parts = authentication.get_authorization_header(request).split()
        if not parts or parts[0].lower().decode(errors="replace") not in self.keywords:
            return None
        if len(parts) != 2:
            raise auth_failure(request, "Authorization header must be 'Token <secret>'.")
        try:
            secret = parts[1].decode()
        except UnicodeDecodeError:
            raise auth_failure(request, "The token contains invalid characters.") from None
        token = token_with_roles(digest=digest_of(secret))
        now = timezone.now()
        # An inactive user's token gets the same answer as an unknown one: nothing tells them apart.
        if token is None or not token.is_live(now) or not token.user.is_active:
            raise auth_failure(request, UNKNOWN_TOKEN, token.user_id if token is not None else None)
        if token.last_used_at is None or now - token.last_used_at > LAST_USED_GRANULARITY:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        return token.user, token

    def authenticate_header(self, request) -> str:
        return 'Token realm="api"'


class HashedTokenScheme(OpenApiAuthenticationExtension):
    target_class = "accounts.authentication.HashedTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema):
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Token vtt_…`: create one at /api/v1/tokens/ or on the Tokens page.",
        }
