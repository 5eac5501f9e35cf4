"""A stream dealt to a session is not a test's pool stream (issue 47, item 1).

Both kinds live in `truthing.Stream`. The default manager holds the pool only, so a query about a test's
streams (its card, its audit, the operators' queue) cannot take in a session's private streams by
leaving out a filter; the dealt ones are reached through `Stream.dealt`, from truthing.published alone.
On the database: tests/truthing/test_dealing.py (the managers against a real deal).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("accounts", "annotations", "benchmarks", "demo", "engine", "evaluation", "frontend", "kernel")
PACKAGES += ("scoring", "scripts", "tests", "truthing", "vtt_site")


def sources() -> list[Path]:
    return [
        path
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
        if "migrations" not in path.parts and path != Path(__file__)
    ]


def test_the_kind_of_a_stream_is_told_apart_only_in_truthings_models():
    """`deal__isnull` written by hand was the filter one query could forget (17 of them, 9 modules)."""
    found = [str(p.relative_to(ROOT)) for p in sources() if re.search(r"deal(_id)?__isnull", p.read_text())]
    assert found == ["truthing/models/streams.py"]


def test_dealt_streams_are_reached_only_from_the_published_package():
    found = {
        str(p.relative_to(ROOT))
        for p in sources()
        if "Stream.dealt" in p.read_text() and not p.is_relative_to(ROOT / "tests")
    } - {"truthing/models/streams.py"}  # where it is declared
    assert found and all(path.startswith("truthing/published/") for path in found), found
