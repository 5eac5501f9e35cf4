"""The one reader of the engine's proposing settings in the platform.

The defaults are the engine core's (`EngineSettings`); the environment may override some of them
(`ENGINE_EPSILON` and friends, declared in engine.conf, unset by default); a test may override them
again for itself. A bad value is refused with the core's message, which names the setting.
"""

from __future__ import annotations

from dataclasses import asdict, fields
from typing import Any

from engine.conf import conf
from engine.core.settings import EngineSettings

ENVIRONMENT_NAMES = {f"ENGINE_{f.name.upper()}": f.name for f in fields(EngineSettings)}
# Settings of earlier engines that tests stored before they were replaced (decision 0034): reading such
# a test's settings drops them, so its remaining streams go on with today's estimator.
RETIRED = frozenset({"full_history_min_population"})


def engine_settings(**overrides: Any) -> EngineSettings:
    """EngineSettings: the core's defaults, then the environment's overrides, then `overrides`."""
    from_environment = {
        field: value
        for variable, field in ENVIRONMENT_NAMES.items()
        if (value := getattr(conf, variable)) is not None
    }
    current = {name: value for name, value in overrides.items() if name not in RETIRED}
    return EngineSettings(**{**from_environment, **current})


def engine_settings_document(engine: EngineSettings) -> dict[str, Any]:
    """The settings as stored with a test (a JSON object)."""
    return asdict(engine)
