"""docs/openapi.yaml tells a client every error code an operation may answer: each 4xx/5xx response of
each operation is an error whose `code` is an enum component (decision 0080). Read here as a client
generator reads it, following `$ref`s, so a schema that only looks right to a person fails."""

from __future__ import annotations

from typing import Any

from accounts.roles import OPERATIONS
from tests.openapi_document import openapi_document
from tests.vtt_site.test_error_codes import error_enums
from vtt_site.api.schema import ANY_OPERATION

METHODS = ("get", "put", "post", "delete", "patch")


def resolve(node: dict[str, Any]) -> dict[str, Any]:
    """A schema object with its `$ref` followed (`#/components/schemas/Name`)."""
    while "$ref" in node:
        *_, kind, name = node["$ref"].split("/")
        node = openapi_document()["components"][kind][name]
    return node


def error_codes_of(response: dict[str, Any]) -> set[str]:
    """The codes an error response may carry: the enum of `code` in its schema, or in each of its
    alternatives (`oneOf`: an upload's refusal or any other error)."""
    body = resolve(response["content"]["application/json"]["schema"])
    codes: set[str] = set()
    for alternative in body.get("oneOf", [body]):
        code = resolve(resolve(alternative)["properties"]["code"])
        assert "enum" in code, f"`code` of {alternative} is not an enum"
        codes.update(code["enum"])
    return codes


def operation_errors() -> dict[str, set[str]]:
    """operationId -> every code its error responses (4xx and 5xx) list."""
    found: dict[str, set[str]] = {}
    for item in openapi_document()["paths"].values():
        for method in METHODS:
            if method not in item:
                continue
            operation = item[method]
            codes = found.setdefault(operation["operationId"], set())
            for status, response in operation["responses"].items():
                if status >= "400" and "content" in response:
                    codes |= error_codes_of(response)
    return found


def test_every_operation_lists_what_any_operation_may_answer():
    errors = operation_errors()
    assert sorted(errors) == sorted(name.replace(".", "_") for name in OPERATIONS)
    common = {str(code) for code in ANY_OPERATION}
    assert {"invalid", "permission_denied", "not_found", "not_authenticated"} <= common
    missing = {operation: sorted(common - codes) for operation, codes in errors.items() if common - codes}
    assert missing == {}, "operations whose errors lack common codes"


def test_every_code_of_every_error_enum_is_some_operations():
    """A code no operation lists is a code no generated client knows. (Which operation answers which code
    is checked on the responses themselves: tests/django_fixtures.py.)"""
    listed = set().union(*operation_errors().values())
    codes = {str(member) for enum in error_enums() for member in enum}
    assert sorted(codes - listed) == []


def test_a_client_finds_the_codes_of_creating_a_token():
    """What a generated client does: POST /api/v1/tokens/ -> its 409 -> the schema -> `code`, a named enum
    with the token codes, and not another app's."""
    conflict = openapi_document()["paths"]["/api/v1/tokens/"]["post"]["responses"]["409"]
    ref = conflict["content"]["application/json"]["schema"]["$ref"]
    assert ref == "#/components/schemas/TokenError"
    code = openapi_document()["components"]["schemas"]["TokenError"]["properties"]["code"]
    assert code == {"$ref": "#/components/schemas/TokenErrorCode"}
    enum = openapi_document()["components"]["schemas"]["TokenErrorCode"]["enum"]
    assert {"token_name_taken", "token_limit_reached", "invalid", "throttled"} <= set(enum)
    assert "image_not_found" not in enum
