"""docs/errors.md is the one list of error codes: every code of every app's enum is on it, it lists
nothing else, and (tests/django_fixtures.py) the test session fails when a response carries a code that
is not on it."""

from __future__ import annotations

import importlib
import inspect
import re
from enum import StrEnum
from pathlib import Path

from django.conf import settings

ROOT = Path(__file__).resolve().parents[2]
ERRORS_PAGE = ROOT / "docs" / "errors.md"


def listed_codes() -> set[str]:
    return set(re.findall(r"^\| `([a-z_]+)` \|", ERRORS_PAGE.read_text(), flags=re.MULTILINE))


def error_enums() -> list[type[StrEnum]]:
    """The StrEnums named *ErrorCode in every errors module of the project (found, not listed, so a new
    app's codes are checked without anyone remembering to add them here)."""
    modules = ["vtt_site.errors", "vtt_site.leases", "kernel.errors"]
    for app in settings.INSTALLED_APPS:
        if (ROOT / app / "errors.py").exists():
            modules.append(f"{app}.errors")
    enums = []
    for name in modules:
        module = importlib.import_module(name)
        for _, value in inspect.getmembers(module, inspect.isclass):
            if (
                issubclass(value, StrEnum)
                and value.__name__.endswith("ErrorCode")
                and value.__module__ == name
            ):
                enums.append(value)
    return enums


def test_every_code_of_every_error_enum_is_listed_and_nothing_else():
    codes = {str(member) for enum in error_enums() for member in enum}
    assert len(error_enums()) >= 6
    assert sorted(codes - listed_codes()) == [], "codes missing from docs/errors.md"
    assert sorted(listed_codes() - codes) == [], "docs/errors.md lists codes no enum has"


def test_the_schema_shows_only_listed_codes():
    schema = (ROOT / "docs" / "openapi.yaml").read_text()
    examples = set(re.findall(r"code: ([a-z_]+)$", schema, flags=re.MULTILINE))
    assert examples, "the schema shows no example error"
    assert sorted(examples - listed_codes()) == []


def test_an_unlisted_code_in_a_response_is_noticed(api):
    from tests.django_fixtures import SEEN_ERROR_CODES
    from vtt_site.api.errors import error_body

    error_body("surely_not_a_code", "…")
    assert "surely_not_a_code" in SEEN_ERROR_CODES
    SEEN_ERROR_CODES.discard("surely_not_a_code")  # the session check would fail the run otherwise
