"""Error codes of the annotation app: stable strings a client can branch on."""

from enum import StrEnum


class AnnotationErrorCode(StrEnum):
    # vocabularies
    VOCABULARY_NOT_FOUND = "vocabulary_not_found"
    VOCABULARY_IN_USE = "vocabulary_in_use"
    VOCABULARY_RENAMED = "vocabulary_renamed"
    VOCABULARY_VERSION_TAKEN = "vocabulary_version_taken"
    # collections and members
    COLLECTION_NOT_FOUND = "collection_not_found"
    COLLECTION_NAME_TAKEN = "collection_name_taken"
    USER_NOT_FOUND = "user_not_found"
    MEMBER_NOT_FOUND = "member_not_found"
    MEMBER_ROLE_FORBIDS = "member_role_forbids"
    # images and uploads
    IMAGE_NOT_FOUND = "image_not_found"
    IMAGE_HAS_NO_FILE = "image_has_no_file"
    NO_FILES = "no_files"
    NO_IMAGE_ACCEPTED = "no_image_accepted"
    NOT_AN_IMAGE = "not_an_image"
    FORMAT_NOT_ALLOWED = "format_not_allowed"
    IMAGE_TOO_LARGE = "image_too_large"
    TOO_MANY_PIXELS = "too_many_pixels"
    DUPLICATE_IMAGE = "duplicate_image"
    IMAGE_NAME_TAKEN = "image_name_taken"
    PIXELS_SIZE_MISMATCH = "pixels_size_mismatch"
    FILE_NAME_TOO_LONG = "file_name_too_long"
    INVALID_FILE_NAME = "invalid_file_name"
    BAD_ZIP = "bad_zip"
    ZIP_TOO_LARGE = "zip_too_large"
    TOO_MANY_FILES = "too_many_files"
    REQUEST_TOO_LARGE = "request_too_large"
    # annotation, queues and review
    WRONG_STAGE = "wrong_stage"
    SELF_REVIEW = "self_review"
    COMMENT_REQUIRED = "comment_required"
    INCOMPLETE_ATTRIBUTES = "incomplete_attributes"
    QUEUE_ELSEWHERE = "queue_elsewhere"
    # suggestions from a model
    SUGGESTION_NOT_FOUND = "suggestion_not_found"
    SUGGESTION_NOT_OF_IMAGE = "suggestion_not_of_image"
    SUGGESTION_ACCEPTED = "suggestion_accepted"
    # import and export
    IMPORT_NOT_FOUND = "import_not_found"
    IMPORT_UNREADABLE = "import_unreadable"
    IMPORT_INVALID = "import_invalid"
    IMPORT_CONFLICT = "import_conflict"
    IMPORT_NOT_WAITING = "import_not_waiting"
    UNKNOWN_FORMAT = "unknown_format"
    MAPPING_INVALID = "mapping_invalid"
    # suggestions from a model (decision 0078)
    MODEL_BACKEND_NOT_SET = "model_backend_not_set"
    MODEL_BACKEND_DISABLED = "model_backend_disabled"
    PREANNOTATION_NOT_FOUND = "preannotation_not_found"
    SIGNED_URL_INVALID = "signed_url_invalid"
    SIGNED_URL_EXPIRED = "signed_url_expired"
