"""Issue 11, item 2: pathological JSON (deep nesting, huge numbers) is a 400 in the error shape on
every JSON endpoint, never a 500 through a RecursionError or an overflowing column."""

from __future__ import annotations

import json

import pytest

from accounts.roles import Role
from kernel import safejson

DEEP = "[" * 1000 + "]" * 1000  # about 2 KB
DEEP_OBJECT = '{"a":' * 1000 + "1" + "}" * 1000


@pytest.mark.parametrize("body", [DEEP, DEEP_OBJECT, "[" * 65 + "]" * 65])
def test_deep_nesting_is_refused_before_parsing(body):
    with pytest.raises(safejson.UnsafeJSON, match="nested at most 64"):
        safejson.loads(body)


def test_nesting_up_to_the_limit_and_brackets_in_strings_are_fine():
    assert safejson.loads("[" * 64 + "]" * 64) == eval("[" * 64 + "]" * 64)
    assert safejson.loads(json.dumps({"name": "[[[[" * 100})) == {"name": "[[[[" * 100}
    assert safejson.loads('{"a": "\\"[[[["}') == {"a": '"[[[['}


@pytest.mark.parametrize("number", ["1" + "0" * 400, "-99999999999999999999", "1e999", "NaN", "-Infinity"])
def test_numbers_no_field_can_hold_are_refused(number):
    with pytest.raises(safejson.UnsafeJSON):
        safejson.loads(f'{{"bbox": [{number}, 1, 2, 3]}}')


def test_unbalanced_deep_brackets_are_refused_not_a_recursion_error():
    with pytest.raises(ValueError):
        safejson.loads("[" * 5000)


@pytest.mark.django_db
@pytest.mark.parametrize("body", [DEEP, DEEP_OBJECT, '{"name": ' + "9" * 400 + "}"])
def test_every_json_endpoint_answers_400_in_the_error_shape(api, users, body):
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    client = api.as_user(users[Role.ADMIN])
    checked = 0
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            content = operation.get("requestBody", {}).get("content", {})
            if "application/json" not in content:
                continue
            url = path.replace("{", "").replace("}", "")
            for name in ("collection_id", "image_id", "vocabulary_id", "job_id", "token_id", "user_id", "id"):
                url = url.replace(name, "1")
            response = getattr(client, method)(url, data=body, content_type="application/json")
            assert response.status_code in (400, 404), (method, url, response.status_code)
            if response.status_code == 400:
                assert response.json()["code"] == "parse_error", (method, url, response.json())
                assert response.json()["message"].startswith("The JSON body is refused")
                checked += 1
    assert checked >= 5
