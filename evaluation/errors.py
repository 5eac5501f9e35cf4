from enum import StrEnum


class EvaluationErrorCode(StrEnum):
    """Error codes of the evaluation app; they arrive with its features."""
