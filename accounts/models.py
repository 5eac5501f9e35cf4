"""API tokens: named, revocable, stored only as a SHA-256 digest of the secret."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone


class ApiToken(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100)
    # The first characters of the secret, kept in clear so a person can tell their tokens apart.
    prefix = models.CharField(max_length=16, db_index=True)
    # The secret is random (256 bits), so an unsalted SHA-256 is enough and allows an indexed lookup.
    digest = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    # Empty: the token acts as its user. Otherwise what it is limited to, set by the app that owns the
    # scope ("vision_system:<id>", evaluation.services.systems): such a token may perform only the
    # operations of accounts.roles.SCOPED_TOKEN_OPERATIONS (decision 0030).
    scope = models.CharField(max_length=60, blank=True, default="")

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["user", "name"],
                condition=models.Q(revoked_at__isnull=True),
                name="unique_live_token_name",
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…) of {self.user}"

    def is_live(self, now=None) -> bool:
        now = now or timezone.now()
        return self.revoked_at is None and (self.expires_at is None or self.expires_at > now)
