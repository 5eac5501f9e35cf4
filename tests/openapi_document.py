"""docs/openapi.yaml as the tests read it: parsed once per process, with libyaml (the pure-Python loader
spent 1 to 2.5 s of CPU on its 427 KB each time a test module read it)."""

from __future__ import annotations

import copy
import functools
from pathlib import Path
from typing import Any

import yaml

PATH = Path(__file__).resolve().parents[1] / "docs" / "openapi.yaml"


@functools.cache
def openapi_document() -> dict[str, Any]:
    """The parsed document, shared by every test of the process: read it, never change it."""
    return yaml.load(PATH.read_text(), Loader=yaml.CSafeLoader)


def openapi_copy() -> dict[str, Any]:
    """A copy of the document of one's own, to change (schemathesis' links, its resolved references)."""
    return copy.deepcopy(openapi_document())
