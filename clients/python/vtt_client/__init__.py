"""The Python client of the visual Turing test platform (vision systems take tests through it)."""

from vtt_client.client import ApiError, Client, Session, UnsupportedServer
from vtt_client.types import (
    AnswerResult,
    AttributeQuestion,
    ExistQuestion,
    HistoryEntry,
    Image,
    Label,
    Mean,
    Proportion,
    Question,
    Region,
    RelationshipQuestion,
    Score,
    SessionScore,
    StreamScore,
    SystemScores,
    UniqueQuestion,
)

__all__ = [
    "AnswerResult",
    "ApiError",
    "AttributeQuestion",
    "Client",
    "ExistQuestion",
    "HistoryEntry",
    "Image",
    "Label",
    "Mean",
    "Proportion",
    "Question",
    "Region",
    "RelationshipQuestion",
    "Score",
    "Session",
    "SessionScore",
    "StreamScore",
    "SystemScores",
    "UniqueQuestion",
    "UnsupportedServer",
]
