"""The model server's credential, sealed with a key of the site's (Fernet: AES and an HMAC).

The key is SUGGESTIONS_CREDENTIALS_KEY (annotations.conf; SECRET_KEY when unset), stretched to Fernet's 32 bytes with SHA-256. When the key changes, a stored credential no
longer opens: `secret_open` then raises `SecretUnusable`, whose message asks for the credential again,
and nothing fails with a 500. The plain credential lives only in memory, for one request to the server.
"""

from __future__ import annotations

import base64
import hashlib

from cryptography.fernet import Fernet, InvalidToken

from annotations.conf import conf

UNUSABLE = (
    "The stored credential of the model server cannot be read (the site's credentials key changed since "
    "it was entered): enter the credential again."
)


class SecretUnusable(Exception):
    def __init__(self) -> None:
        super().__init__(UNUSABLE)
        self.reason = UNUSABLE


def _fernet() -> Fernet:
    key = str(conf.SUGGESTIONS_CREDENTIALS_KEY).encode()
    return Fernet(base64.urlsafe_b64encode(hashlib.sha256(b"vtt model-server credential|" + key).digest()))


def secret_seal(plain: str) -> str:
    """The stored form of a credential ("" stays "": no credential)."""
    return _fernet().encrypt(plain.encode()).decode() if plain else ""


def secret_open(sealed: str) -> str:
    if not sealed:
        return ""
    try:
        return _fernet().decrypt(sealed.encode()).decode()
    except (InvalidToken, ValueError):
        raise SecretUnusable() from None


def secret_usable(sealed: str) -> bool:
    try:
        secret_open(sealed)
    except SecretUnusable:
        return False
    return True
