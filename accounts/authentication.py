"""`Authorization: Token vtt_…` (or `Bearer vtt_…`) for programs; the browser uses its session."""

from __future__ import annotations

from datetime import timedelta

from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions

from accounts.models import ApiToken
from accounts.tokens import digest_of

# Writing last_used_at on every request would turn reads into writes; once a minute is enough to audit.
LAST_USED_GRANULARITY = timedelta(minutes=1)


class HashedTokenAuthentication(authentication.BaseAuthentication):
    keywords = ("token", "bearer")

    def authenticate(self, request):
        parts = authentication.get_authorization_header(request).split()
        if not parts or parts[0].lower().decode(errors="replace") not in self.keywords:
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed("Authorization header must be 'Token <secret>'.")
        try:
            secret = parts[1].decode()
        except UnicodeDecodeError:
            raise exceptions.AuthenticationFailed("The token contains invalid characters.") from None
        token = ApiToken.objects.select_related("user").filter(digest=digest_of(secret)).first()
        now = timezone.now()
        if token is None or not token.is_live(now):
            raise exceptions.AuthenticationFailed("The token is unknown, revoked or expired.")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("The token's user is inactive.")
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
