"""The import-linter contracts (pyproject.toml) keep covering the code as it grows."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def contract(name_start: str) -> dict:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    return next(c for c in config["contracts"] if c["name"].startswith(name_start))


def test_the_layers_name_every_package_of_the_project_and_no_child():
    """The apps' layers name top-level packages only (a layer of children has to be kept by hand, and
    a new child left out of it would be checked by no layer), every package the linter reads is in one,
    and the kernel is at the bottom, below the scoring core that reads its kinds."""
    layers = contract("Apps depend downwards only")["layers"]
    roots = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["root_packages"]
    # A layer may hold siblings that must not import each other ("datasets | crowd"), never children.
    packages = [name.strip() for layer in layers for name in layer.split("|")]
    assert all("." not in package and ":" not in package for package in packages)
    assert sorted(packages) == sorted(roots)
    assert all((ROOT / package / "__init__.py").exists() for package in roots)
    assert layers[-2:] == ["scoring", "kernel"]
    # No arrow runs back up: the layers ignore no import (vtt_site.urls names the apps' URLs by string).
    assert not contract("Apps depend downwards only").get("ignore_imports")
