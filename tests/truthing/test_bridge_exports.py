"""The bridge hands truthing the engine's values and functions, never its database models (issue 47,
item 2): the one model-level link is a test's fit (`Test.statistics`), asked about through the bridge."""

from __future__ import annotations

import ast
from pathlib import Path

from django.db import models

import truthing.bridge as bridge

ROOT = Path(__file__).resolve().parents[2]


def test_no_name_the_bridge_hands_out_is_a_model_or_a_models_choices():
    handed = {name: getattr(bridge, name) for name in bridge.__all__}
    from_models = [
        name
        for name, value in handed.items()
        if (isinstance(value, type) and issubclass(value, (models.Model, models.Choices)))
        or getattr(value, "__module__", "").endswith(".models")
    ]
    assert from_models == []


def test_truthing_takes_from_the_bridge_only_what_it_hands_out():
    taken = set()
    for path in (ROOT / "truthing").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module == "truthing.bridge":
                taken |= {(alias.name, str(path.relative_to(ROOT))) for alias in node.names}
    assert taken and {item for item in taken if item[0] not in bridge.__all__} == set()
