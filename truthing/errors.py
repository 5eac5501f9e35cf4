from enum import StrEnum


class TruthingErrorCode(StrEnum):
    """Error codes of the truthing app; they arrive with its features."""
