"""One error shape for every failure, pagination, and the schema and docs served without a CDN."""

from __future__ import annotations

import pytest

from accounts.roles import Role

pytestmark = pytest.mark.django_db


def assert_error_shape(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"code", "message", "fields"}
    assert body["code"] == code
    assert body["message"]
    return body


def test_anonymous_request_is_401_with_the_error_shape(api):
    response = api.get("/api/v1/me/")
    assert_error_shape(response, 401, "not_authenticated")
    assert response["WWW-Authenticate"].startswith("Token")


def test_unknown_api_path_is_a_json_404(api, users):
    assert_error_shape(api.as_user(users[Role.ANNOTATOR]).get("/api/v1/no-such-thing/"), 404, "not_found")


def test_malformed_json_is_a_400(api, users):
    response = api.as_user(users[Role.ANNOTATOR]).post(
        "/api/v1/tokens/", data="{not json", content_type="application/json"
    )
    assert_error_shape(response, 400, "parse_error")


def test_validation_errors_name_the_field(api, users):
    body = assert_error_shape(api.as_user(users[Role.ANNOTATOR]).post("/api/v1/tokens/", {}), 400, "invalid")
    assert "name" in body["fields"]
    assert body["message"].startswith("name:")


def test_wrong_method_is_a_405(api, users):
    assert_error_shape(api.as_user(users[Role.ANNOTATOR]).put("/api/v1/me/", {}), 405, "method_not_allowed")


def test_lists_are_paginated(api, users):
    client = api.as_user(users[Role.ANNOTATOR])
    for index in range(3):
        assert client.post("/api/v1/tokens/", {"name": f"t{index}"}).status_code == 201
    page = client.get("/api/v1/tokens/?page_size=2").json()
    assert page["count"] == 3
    assert len(page["results"]) == 2
    assert page["next"] and page["previous"] is None
    assert_error_shape(client.get("/api/v1/tokens/?page=9"), 404, "not_found")


def test_schema_and_docs_are_served_without_a_cdn(client):
    schema = client.get("/api/v1/schema/")
    assert schema.status_code == 200
    assert b"openapi: 3" in schema.content
    docs = client.get("/api/v1/docs/")
    assert docs.status_code == 200
    html = docs.content.decode()
    assert "swagger-ui" in html
    assert "cdn" not in html.lower() and "unpkg" not in html.lower()
    for asset in ("swagger-ui-bundle.js", "swagger-ui.css"):
        start = html.index(asset)
        url = html[html.rindex('"', 0, start) + 1 : start + len(asset)]
        assert url.startswith("/static/"), url
        assert client.get(url).status_code == 200


def test_an_oversized_body_is_a_413_not_a_500(api, users, settings):
    settings.JSON_BODY_MAX_BYTES = 100
    response = api.as_user(users[Role.ANNOTATOR]).post("/api/v1/tokens/", {"name": "x" * 500})
    assert_error_shape(response, 413, "too_large")
