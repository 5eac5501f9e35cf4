"""Errors raised by the engine core. Each names what is wrong and where, for people and for programs.

The core knows nothing of HTTP; the API handler maps an `EngineError` to a 400 with this code and
message, and the command line prints the message and exits non-zero.
"""

from __future__ import annotations


class EngineError(Exception):
    """Bad input to the engine: the message says what is wrong, `where` says where (a line, a key)."""

    code = "engine_error"

    def __init__(self, message: str, *, where: str | None = None) -> None:
        self.message = message
        self.where = where
        super().__init__(f"{where}: {message}" if where else message)

    @property
    def fields(self) -> dict[str, str]:
        return {"where": self.where} if self.where else {}


class VocabularyError(EngineError):
    code = "invalid_vocabulary"


class SceneError(EngineError):
    code = "invalid_scene"


class QuestionError(EngineError):
    code = "invalid_question"


class HistoryError(EngineError):
    code = "invalid_history"


class StatisticsError(EngineError):
    code = "invalid_statistics"
