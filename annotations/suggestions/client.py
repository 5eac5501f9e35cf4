"""The HTTP side of a Label Studio ML backend: GET /health, POST /setup, POST /predict.

Every request has one deadline for the whole exchange (connecting, sending, reading the headers and the
answer, which is read up to a size limit: `vtt_site.outbound`), sends the credential when there is one
(basic authentication, or one header), and follows no redirect: the platform asks the URL it was given
and nothing else, and it never fetches a URL a backend names. Environment proxies are not used, so that
a request goes where the URL says. A failure of any kind is a `BackendFault` whose reason a person can
read; the credential never appears in it.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from typing import Any

from kernel import safejson
from vtt_site import outbound

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
    headers = {"User-Agent": USER_AGENT, "Accept": "application/json", **_credential_headers(connection)}
    content = None
    if body is not None:
        content = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    try:
        answer = outbound.exchange(
            method,
            connection.endpoint(path),
            headers=headers,
            body=content,
            seconds=seconds,
            connect_seconds=connection.connect_seconds,
            max_bytes=connection.max_answer_bytes,
            check_status=lambda status: _check_status(status, path),
        )
    except outbound.TimedOut:
        raise BackendFault(f"The model server did not answer /{path} within {seconds:g} s.") from None
    except outbound.Unreachable:
        raise BackendFault(
            "The model server could not be reached (is it running, at this address?)."
        ) from None
    except outbound.TooLarge:
        raise BackendFault(
            f"The model server's answer is larger than {connection.max_answer_bytes:,} bytes."
        ) from None
    except outbound.Broken:
        raise BackendFault(f"The connection to the model server failed during /{path}.") from None
    try:
        return safejson.loads(answer)
    except ValueError:
        raise BackendFault(f"The model server's answer to /{path} is not JSON.") from None


def _credential_headers(connection: Connection) -> dict[str, str]:
    if connection.auth == "basic":
        pair = f"{connection.username}:{connection.secret}".encode()
        return {"Authorization": f"Basic {base64.b64encode(pair).decode('ascii')}"}
    if connection.auth == "header":
        return {connection.header_name: connection.secret}
    return {}


def _check_status(status: int, path: str) -> None:
    if status in (401, 403):
        raise BackendFault(
            f"The model server refused the credential (HTTP {status} on /{path}): check the "
            "authentication set for it."
        )
    if 300 <= status < 400:
        raise BackendFault(f"The model server answered /{path} with a redirect, which is not followed.")
    if not 200 <= status < 300:
        raise BackendFault(f"The model server answered /{path} with HTTP {status}.")
