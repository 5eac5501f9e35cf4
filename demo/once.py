"""Made once: `demo_setup` finds on every later run what its first run made."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from truthing.models import Test
from truthing.services.lifecycle import create_test


def demo_test_found_or_made(*, name: str, image_ids: Callable[[], list[int]], **fields: Any) -> Test:
    """The demo's test of that name, else a draft made with `fields`. Its images are only looked for
    when it is made: a later run must not render or upload anything for a test that exists."""
    test = Test.objects.filter(name=name).first()
    if test is None:
        test = create_test(name=name, image_ids=image_ids(), **fields)
    return test
