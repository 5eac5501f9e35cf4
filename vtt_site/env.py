"""Typed readers for the environment variables that configure the platform.

Every variable the settings read goes through one of these functions, so a wrong value fails at
start-up with a message that names the variable instead of surfacing later as an odd behaviour.
`.env.example` lists every variable with its default.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "", environ: Mapping[str, str] | None = None) -> str:
    """The variable's value; unset and empty both mean the default (so `.env.example` can list `X=`)."""
    source = os.environ if environ is None else environ
    return source.get(name, "").strip() or default


def env_bool(name: str, default: bool = False, environ: Mapping[str, str] | None = None) -> bool:
    raw = env_str(name, "1" if default else "0", environ).lower()
    if raw in _TRUE:
        return True
    if raw in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be one of 1/0, true/false, yes/no, on/off; got {raw!r}")


def env_int(name: str, default: int, environ: Mapping[str, str] | None = None) -> int:
    raw = env_str(name, str(default), environ)
    try:
        return int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer; got {raw!r}") from None


def env_float(name: str, default: float, environ: Mapping[str, str] | None = None) -> float:
    raw = env_str(name, str(default), environ)
    try:
        return float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number; got {raw!r}") from None


def env_number_overrides(
    names: Mapping[str, type], environ: Mapping[str, str] | None = None
) -> dict[str, int | float]:
    """{setting: value} for the variables of `names` ({VARIABLE: int or float}) that are set: the
    defaults stay with the code that owns them, and the environment only says what differs."""
    overrides: dict[str, int | float] = {}
    for variable, kind in names.items():
        if env_str(variable, "", environ):
            read = env_int if kind is int else env_float
            overrides[variable] = read(variable, 0, environ)
    return overrides


def env_list(name: str, default: str = "", environ: Mapping[str, str] | None = None) -> list[str]:
    return [item.strip() for item in env_str(name, default, environ).split(",") if item.strip()]
