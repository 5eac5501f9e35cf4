"""Making and checking token secrets. Only `digest_of` output is ever stored."""

from __future__ import annotations

import hashlib
import secrets

TOKEN_PREFIX = "vtt_"


def new_secret() -> str:
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def digest_of(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def display_prefix(secret: str) -> str:
    return secret[: len(TOKEN_PREFIX) + 8]
