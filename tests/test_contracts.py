"""The import-linter contracts (pyproject.toml) keep covering the code as it grows."""

from __future__ import annotations

import pkgutil
import tomllib
from pathlib import Path

import engine

ROOT = Path(__file__).resolve().parent.parent


def contract(name_start: str) -> dict:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    return next(c for c in config["contracts"] if c["name"].startswith(name_start))


def test_the_engine_layer_names_every_child_of_the_engine_package_but_its_core():
    """The apps' layers list the engine app child by child (its core is a layer of its own, at the
    bottom); a new engine module left out of that list would be checked by no layer."""
    layers = contract("Apps depend downwards only")["layers"]
    engine_layer = next(layer for layer in layers if layer.startswith("engine.") and ":" in layer)
    listed = {name.strip().removeprefix("engine.") for name in engine_layer.split(":")}
    children = {module.name for module in pkgutil.iter_modules(engine.__path__)} | {"__main__"}
    assert listed == children - {"core"}
    assert layers[-2:] == ["engine.core", "scoring"]
