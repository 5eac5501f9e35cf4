"""The HTTP side of a Label Studio ML backend: GET /health, POST /setup, POST /predict.

Every request has a deadline for the whole exchange (connecting, sending, and reading the answer,
which is read in chunks up to a size limit), sends the credential when there is one (basic
authentication, or one header), and follows no redirect: the platform asks the URL it was given and
nothing else, and it never fetches a URL a backend names. Environment proxies are not used
(`trust_env=False`), so that a request goes where the URL says. A failure of any kind is a
`BackendFault` whose reason a person can read; the credential never appears in it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from vtt_site import safejson

USER_AGENT = "vtt-platform (Label Studio ML backend client)"


class BackendFault(Exception):
    """The model server could not be used for this request; `reason` says why, for a person."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Connection:
    """Where the server is and how to authenticate; `secret` is the plain credential, in memory only."""

    url: str
    auth: str = "none"  # none, basic, header (annotations.models.BackendAuth)
    username: str = ""
    header_name: str = ""
    secret: str = field(default="", repr=False)
    connect_seconds: float = 2.0
    max_answer_bytes: int = 5 * 1024 * 1024

    def endpoint(self, path: str) -> str:
        return f"{self.url.rstrip('/')}/{path}"


def health(connection: Connection, *, seconds: float) -> Any:
    return _exchange(connection, "GET", "health", None, seconds)


def setup(connection: Connection, *, project: str, schema: str, seconds: float) -> Any:
    """Label Studio's /setup: the project's id and its labeling configuration (`schema`); the answer
    says the model's version."""
    return _exchange(connection, "POST", "setup", {"project": project, "schema": schema}, seconds)


def predict(connection: Connection, *, body: dict[str, Any], seconds: float) -> Any:
    return _exchange(connection, "POST", "predict", body, seconds)


def _exchange(connection: Connection, method: str, path: str, body: Any, seconds: float) -> Any:
    deadline = time.monotonic() + seconds
    timeout = httpx.Timeout(seconds, connect=min(seconds, connection.connect_seconds))
    headers = {"User-Agent": USER_AGENT, "Accept": "application/json"}
    auth: httpx.Auth | None = None
    if connection.auth == "basic":
        auth = httpx.BasicAuth(connection.username, connection.secret)
    elif connection.auth == "header":
        headers[connection.header_name] = connection.secret
    try:
        with httpx.Client(timeout=timeout, follow_redirects=False, trust_env=False) as client:
            request = client.build_request(method, connection.endpoint(path), json=body, headers=headers)
            response = client.send(request, auth=auth, stream=True)
            try:
                _check_status(response, path)
                content = _read_limited(response, deadline, seconds, connection.max_answer_bytes)
            finally:
                response.close()
    except httpx.TimeoutException:
        raise BackendFault(f"The model server did not answer /{path} within {seconds:g} s.") from None
    except httpx.ConnectError:
        raise BackendFault(
            "The model server could not be reached (is it running, at this address?)."
        ) from None
    except (httpx.HTTPError, httpx.InvalidURL, ValueError):
        # ValueError: a header value that cannot be sent (the credential is checked when it is set).
        raise BackendFault(f"The connection to the model server failed during /{path}.") from None
    try:
        return safejson.loads(content)
    except ValueError:
        raise BackendFault(f"The model server's answer to /{path} is not JSON.") from None


def _check_status(response: httpx.Response, path: str) -> None:
    status = response.status_code
    if status in (401, 403):
        raise BackendFault(
            f"The model server refused the credential (HTTP {status} on /{path}): check the "
            "authentication set for it."
        )
    if 300 <= status < 400:
        raise BackendFault(f"The model server answered /{path} with a redirect, which is not followed.")
    if not 200 <= status < 300:
        raise BackendFault(f"The model server answered /{path} with HTTP {status}.")


def _read_limited(response: httpx.Response, deadline: float, seconds: float, limit: int) -> bytes:
    chunks, size = [], 0
    for chunk in response.iter_bytes():
        size += len(chunk)
        if size > limit:
            raise BackendFault(f"The model server's answer is larger than {limit:,} bytes.")
        if time.monotonic() > deadline:
            raise BackendFault(f"The model server did not finish its answer within {seconds:g} s.")
        chunks.append(chunk)
    return b"".join(chunks)
