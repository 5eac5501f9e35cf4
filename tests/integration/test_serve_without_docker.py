"""`make serve`, the docker-compose set-up without Docker: gunicorn serves the API and its static files,
and the Celery workers run the tasks it queues, on the local PostgreSQL and Redis (supervised, with the
beat: test_supervision.py)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
import uuid

import pytest

from accounts.roles import Role
from accounts.services import token_create
from demo.synthetic.scenes import generate_scenes
from tests.factories import CollectionFactory, UserFactory
from tests.integration.conftest import wait_for
from tests.parallel import ONE_SERVED_AT_A_TIME

pytestmark = [pytest.mark.integration, ONE_SERVED_AT_A_TIME]


def call(
    base: str, path: str, token: str | None = None, body: bytes | None = None, content_type: str | None = None
) -> tuple[int, bytes]:
    request = urllib.request.Request(base + path, data=body, method="POST" if body is not None else "GET")
    if token:
        request.add_header("Authorization", f"Token {token}")
    if content_type:
        request.add_header("Content-Type", content_type)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()
    except OSError:
        return 0, b""


def multipart(fields: dict[str, str], file_name: str, content: bytes) -> tuple[bytes, str]:
    boundary = uuid.uuid4().hex
    parts = [
        f'--{boundary}\r\nContent-Disposition: form-data; name="{k}"\r\n\r\n{v}\r\n'.encode()
        for k, v in fields.items()
    ]
    parts.append(
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="{file_name}"\r\n'
        f"Content-Type: application/octet-stream\r\n\r\n".encode()
        + content
        + b"\r\n"
    )
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def test_make_serve_runs_web_and_worker(served):
    base, log, process = served
    wait_for(lambda: call(base, "/readyz")[0] == 200, 120, "/readyz to answer 200", log)
    ready = json.loads(call(base, "/readyz")[1])
    assert ready["checks"] == {
        "database": {"ok": True, "vendor": "postgresql"},
        "broker": {"ok": True},
        "cache": {"ok": True},
    }
    status, css = call(base, "/static/frontend/site.css")
    assert status == 200 and b"--accent" in css

    admin = UserFactory(role=Role.ADMIN)
    _, token = token_create(user=admin, name="serve-test")
    collection = CollectionFactory()
    scenes = "".join(json.dumps(s) + "\n" for s in generate_scenes(40, seed=61)).encode()
    body, content_type = multipart({"format": "jsonl", "mark_reviewed": "true"}, "scenes.jsonl", scenes)
    status, created = call(base, f"/api/v1/collections/{collection.pk}/imports/", token, body, content_type)
    assert status == 202, created
    job_id = json.loads(created)["id"]
    job = wait_for(
        lambda: (
            (j := json.loads(call(base, f"/api/v1/imports/{job_id}/", token)[1]))["status"]
            in {"done", "failed"}
            and j
        ),
        90,
        "the import through the worker",
        log,
    )
    assert job["status"] == "done", job

    status, created = call(
        base,
        "/api/v1/statistics/",
        token,
        json.dumps({"collections": [collection.pk]}).encode(),
        "application/json",
    )
    assert status == 202, created
    fit_id = json.loads(created)["id"]
    fitted = wait_for(
        lambda: (
            (s := json.loads(call(base, f"/api/v1/statistics/{fit_id}/", token)[1]))["status"]
            in {"ready", "failed"}
            and s
        ),
        90,
        "the fit through the worker",
        log,
    )
    assert fitted["status"] == "ready" and fitted["images"] == 40
    assert process.poll() is None, "web and worker are still up"
