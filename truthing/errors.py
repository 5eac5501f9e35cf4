"""Error codes of the truthing app: stable strings a client can branch on (listed in docs/errors.md)."""

from enum import StrEnum


class TruthingErrorCode(StrEnum):
    # tests
    TEST_NOT_FOUND = "test_not_found"
    TEST_NAME_TAKEN = "test_name_taken"
    WRONG_TEST_STATE = "wrong_test_state"
    TEST_FROZEN = "test_frozen"
    TEST_UNFINISHED = "test_unfinished"
    NO_TEST_IMAGES = "no_test_images"
    NOT_A_TEST_IMAGE = "not_a_test_image"
    TRAINING_IMAGE = "training_image"
    OTHER_VOCABULARY = "other_vocabulary"
    IMAGES_WITHOUT_PIXELS = "images_without_pixels"
    NOT_A_POOL = "not_a_pool"
    PRACTICE_SHARES_IMAGES = "practice_shares_images"
    # streams, steps and checks
    STREAM_NOT_FOUND = "stream_not_found"
    STEP_NOT_PENDING = "step_not_pending"
    NOTHING_TO_UNDO = "nothing_to_undo"
    STREAM_ENDED = "stream_ended"
    CHECK_NOT_FOUND = "check_not_found"
    # adjudication
    DISAGREEMENT_NOT_FOUND = "disagreement_not_found"
    DISAGREEMENT_CLOSED = "disagreement_closed"
