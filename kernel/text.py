"""Checks of the text a name may hold, shared by the uploads of images and the imports of scene graphs."""

from __future__ import annotations

import unicodedata


def has_control_characters(text: str) -> bool:
    """A NUL, a newline, a bidirectional override: nothing a name may hold (nor a database text column)."""
    return any(unicodedata.category(char) in ("Cc", "Cf", "Cs") for char in text)
