from enum import StrEnum


class AccountErrorCode(StrEnum):
    TOKEN_NAME_TAKEN = "token_name_taken"
    TOKEN_NOT_FOUND = "token_not_found"
    TOKEN_ALREADY_REVOKED = "token_already_revoked"
    TOKEN_LIMIT_REACHED = "token_limit_reached"
