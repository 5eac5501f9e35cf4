"""Error codes of the engine app. Errors of the engine core keep their own codes (kernel.errors)."""

from enum import StrEnum


class EngineErrorCode(StrEnum):
    STATISTICS_NOT_FOUND = "statistics_not_found"
    STATISTICS_NOT_READY = "statistics_not_ready"
    NO_COLLECTIONS = "no_collections"
    MIXED_VOCABULARIES = "mixed_vocabularies"
    NO_TRAINING_IMAGES = "no_training_images"
    BAD_SETTING = "bad_setting"
