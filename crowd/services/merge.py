"""Placeholder until crowd.consensus lands."""

from __future__ import annotations

from annotations.models import Image


def merge_if_complete(*, image: Image) -> None:
    return None
