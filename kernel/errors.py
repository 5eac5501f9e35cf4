"""Errors raised by the engine core. Each names what is wrong and where, for people and for programs.

The core knows nothing of HTTP. An `EngineError` carries a code from `CoreErrorCode` (fine enough for a
client to act on: a box outside the image, an unknown attribute, a label not instantiated yet, ...), a
message for a person, and `where`: the path of the offending value in the document that was given
(`objects[3].bbox`, `history[2].question.label`, or with a root such as `line 7.objects[0]`). The API
handler turns it into `{"code", "message", "fields": {where: [message]}}` with a 400; the command line
prints the message and exits non-zero.
"""

from __future__ import annotations

from enum import StrEnum


class CoreErrorCode(StrEnum):
    # generic, per kind of document
    ENGINE_ERROR = "engine_error"
    INVALID_VOCABULARY = "invalid_vocabulary"
    INVALID_SCENE = "invalid_scene"
    INVALID_QUESTION = "invalid_question"
    INVALID_HISTORY = "invalid_history"
    INVALID_STATISTICS = "invalid_statistics"
    INVALID_SETTING = "invalid_setting"
    # scenes
    BAD_IMAGE_SIZE = "bad_image_size"
    BAD_BOX = "bad_box"
    BOX_OUTSIDE_IMAGE = "box_outside_image"
    UNKNOWN_OBJECT_TYPE = "unknown_object_type"
    UNKNOWN_ATTRIBUTE = "unknown_attribute"
    DUPLICATE_ATTRIBUTE = "duplicate_attribute"
    EXCLUSIVE_ATTRIBUTES = "exclusive_attributes"
    DUPLICATE_OBJECT_ID = "duplicate_object_id"
    UNKNOWN_OBJECT = "unknown_object"
    UNKNOWN_RELATIONSHIP = "unknown_relationship"
    RELATIONSHIP_NOT_ALLOWED = "relationship_not_allowed"
    SELF_RELATIONSHIP = "self_relationship"
    # questions and histories
    UNKNOWN_KIND = "unknown_kind"
    BAD_LABEL = "bad_label"
    LABEL_NOT_INSTANTIATED = "label_not_instantiated"
    UNKNOWN_REGION = "unknown_region"
    REGION_BOX_MISMATCH = "region_box_mismatch"
    BAD_ANSWER = "bad_answer"


def at(where: str | None, child: str) -> str:
    """The path of `child` inside `where`: at("", "objects[3]") is "objects[3]", at("scene", "[2]") is
    "scene[2]", at("scene", "image") is "scene.image"."""
    if not where:
        return child
    return f"{where}{child}" if child.startswith("[") else f"{where}.{child}"


class EngineError(Exception):
    """Bad input to the engine: the message says what is wrong, `where` says where (a path, a file)."""

    code: str = CoreErrorCode.ENGINE_ERROR

    def __init__(self, message: str, *, where: str | None = None, code: CoreErrorCode | None = None) -> None:
        self.message = message
        self.where = where or None
        if code is not None:
            self.code = code
        super().__init__(f"{where}: {message}" if where else message)

    @property
    def fields(self) -> dict[str, list[str]]:
        return {self.where: [self.message]} if self.where else {}


class VocabularyError(EngineError):
    code = CoreErrorCode.INVALID_VOCABULARY


class SceneError(EngineError):
    code = CoreErrorCode.INVALID_SCENE


class QuestionError(EngineError):
    code = CoreErrorCode.INVALID_QUESTION


class HistoryError(EngineError):
    code = CoreErrorCode.INVALID_HISTORY


class StatisticsError(EngineError):
    code = CoreErrorCode.INVALID_STATISTICS


class SettingError(EngineError):
    code = CoreErrorCode.INVALID_SETTING
