from enum import StrEnum


class EvaluationErrorCode(StrEnum):
    SYSTEM_NOT_FOUND = "system_not_found"
    SYSTEM_NAME_TAKEN = "system_name_taken"
    TEST_NOT_PUBLISHED = "test_not_published"
    SESSION_NOT_FOUND = "session_not_found"
    ALREADY_ENROLLED = "already_enrolled"
    ENROLMENT_LIMIT = "enrolment_limit"
    DEADLINE_PASSED = "deadline_passed"
    SESSION_OVER = "session_over"
    SESSION_NOT_OVER = "session_not_over"
    STEP_NOT_CURRENT = "step_not_current"
    STREAM_NOT_OPEN = "stream_not_open"
    ANSWER_CONFLICT = "answer_conflict"
    IMAGE_NOT_AVAILABLE = "image_not_available"
    SESSION_ALREADY_VOIDED = "session_already_voided"
    SESSION_DEALING = "session_dealing"
    NO_LEADERBOARD = "no_leaderboard"
