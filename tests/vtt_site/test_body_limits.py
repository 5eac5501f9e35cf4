"""Issue 22, item 4: a JSON body is limited to what its operation can need. A 50 MiB body was parsed
whole and took a worker to 2.9 GB; now an answer takes a few KiB, an operation that names no limit
JSON_BODY_MAX_BYTES, an annotation 4 MiB. A body over the limit is a 413 in the error shape, refused from
its Content-Length before it is read, and nothing is written."""

from __future__ import annotations

import json

import pytest

from accounts.models import ApiToken
from accounts.roles import Role
from vtt_site.api.parsers import ANSWER_BODY_BYTES

pytestmark = pytest.mark.django_db

ANSWERS = [
    (Role.VISION_SYSTEM_OWNER, "/api/v1/evaluation/sessions/1/answers/"),
    (Role.OPERATOR, "/api/v1/truthing/streams/1/answer/"),
    (Role.OPERATOR, "/api/v1/truthing/checks/1/answer/"),
]


def refused_as_too_large(response, limit: int) -> None:
    assert response.status_code == 413, response.content
    body = response.json()
    assert set(body) == {"code", "message", "fields"}
    assert body["code"] == "too_large"
    assert f"{limit:,} bytes" in body["message"]


@pytest.mark.parametrize(("role", "url"), ANSWERS)
def test_an_answer_of_more_than_a_few_kib_is_refused(api, users, role, url):
    padded = {"answer": "yes", "stream": 0, "step": 0, "comment": "x" * 20_000}
    response = api.as_user(users[role]).post(url, padded, format="json")
    refused_as_too_large(response, ANSWER_BODY_BYTES)


def test_an_operation_without_a_limit_of_its_own_takes_the_settings_limit(api, users, settings):
    settings.JSON_BODY_MAX_BYTES = 1000
    client = api.as_user(users[Role.ANNOTATOR])
    response = client.post("/api/v1/tokens/", {"name": "n" * 1200}, format="json")
    refused_as_too_large(response, 1000)
    assert not ApiToken.objects.exists()
    assert client.post("/api/v1/tokens/", {"name": "n" * 100}, format="json").status_code == 201


def test_a_body_is_refused_from_its_declared_length_before_it_is_read(api, users):
    """10 MiB declared (under the 50 MiB of any request, which imports need): the JSON parser refuses
    it without reading, so a client cannot make a worker hold it."""
    client = api.as_user(users[Role.ANNOTATOR])
    body = json.dumps({"name": "ok"}).encode()
    response = client.generic(
        "POST", "/api/v1/tokens/", body, content_type="application/json", CONTENT_LENGTH=str(10 * 2**20)
    )
    refused_as_too_large(response, 64 * 1024)
    assert "10,485,760 bytes" in response.json()["message"]
    assert not ApiToken.objects.exists()
