"""Error codes of the crowd app: stable strings a client can branch on."""

from enum import StrEnum


class CrowdErrorCode(StrEnum):
    COPY_NOT_FOUND = "copy_not_found"
    COPY_SUBMITTED = "copy_submitted"
    OVERLAP_IN_PROGRESS = "overlap_in_progress"
    ANNOTATOR_PAUSED = "annotator_paused"
    NOT_A_CROWD = "not_a_crowd"
    MERGE_NOT_FOUND = "merge_not_found"
    MERGE_DECIDED = "merge_decided"
    GOLD_NOT_ACCEPTED = "gold_not_accepted"
    PAUSE_NOT_FOUND = "pause_not_found"
