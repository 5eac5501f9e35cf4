"""The engine app's settings (vtt_site.app_settings): read as `conf.NAME`, overridden in a test as a
Django setting of the same name.

The proposing settings (`ENGINE_EPSILON` and friends) are unset by default: their defaults are the engine
core's own (`EngineSettings`), and engine.settings.engine_settings() is their one reader.
"""

from __future__ import annotations

from engine.core.settings import EngineSettings
from vtt_site.app_settings import FLOAT, INT, AppSettings, Setting, between, optional

CORE = EngineSettings()


def _core(name: str) -> str:
    return f"unset: the engine's default, {getattr(CORE, name)}."


class EngineAppSettings(AppSettings):
    """Query engine: fitted statistics and the proposing settings (docs/engine.md)"""

    ENGINE_EPSILON = Setting(
        optional(FLOAT), None, f"How close to 1/2 a question's p must be; {_core('epsilon')}"
    )
    ENGINE_MIN_POPULATION = Setting(
        optional(INT), None, f"Training items an estimate needs; {_core('min_population')}"
    )
    ENGINE_MAX_ATTRIBUTES = Setting(
        optional(INT), None, f"Attributes a question may name (0 to 2); {_core('max_attributes')}"
    )
    ENGINE_MAX_QUESTIONS = Setting(
        optional(INT), None, f"Questions of one stream at most; {_core('max_questions')}"
    )
    ENGINE_REJECTION_LIMIT = Setting(
        optional(INT),
        None,
        f"Rejected questions about one object or region before it is left; {_core('rejection_limit')}",
    )
    ENGINE_PRIOR_STRENGTH = Setting(
        optional(FLOAT),
        None,
        f"The shrinkage between estimate levels (decision 0034); {_core('prior_strength')}",
    )
    ENGINE_WEIGHTED_STRENGTH = Setting(
        optional(FLOAT),
        None,
        f"The strength of the consistency-weighted level (0055); {_core('weighted_strength')}",
    )
    ENGINE_RELATIONSHIP_STRENGTH = Setting(
        optional(FLOAT),
        None,
        f"The strength of a relationship's weighted level (0059); {_core('relationship_strength')}",
    )
    ENGINE_CONSISTENCY_WEIGHT = Setting(
        optional(FLOAT), None, f"Lambda, the weight of a disagreeing image; {_core('consistency_weight')}"
    )
    ENGINE_MIN_EVIDENCE = Setting(
        optional(FLOAT),
        None,
        f"The weight a uniqueness candidate needs (0056; 0: off); {_core('min_evidence')}",
    )
    ENGINE_SHARP_EPSILON = Setting(
        optional(FLOAT),
        None,
        f"Sharper questions (0035; a test may turn it off with null); {_core('sharp_epsilon')}",
    )
    ENGINE_REGION_MIN_OVERLAP = Setting(
        FLOAT,
        0.0,
        "The visibility threshold of an object in a region, fixed when fitting (stored in the file).",
        check=between(0, 1),
    )
    ENGINE_FIT_SHARD_IMAGES = Setting(
        INT,
        250_000,
        "A fit over more training images than this is split into shards fitted by the workers side by side.",
    )


conf = EngineAppSettings()
