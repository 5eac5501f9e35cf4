"""Fixtures of the dataset tests: an import goes into a collection, so they are the annotation tests'
(a collection whose members are the users of the `users` fixture, one per role)."""

from __future__ import annotations

from tests.annotations.conftest import (  # noqa: F401  (fixtures, found by pytest by their name here)
    annotator,
    collection,
    other_annotator,
    other_reviewer,
    outsider,
    reviewer,
)
