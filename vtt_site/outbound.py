"""One request to a server outside the platform, with one deadline for the whole exchange.

httpx's timeouts are per operation: each read may wait the whole read timeout, so a server that sends
its headers or its body a byte at a time holds the caller for as long as it likes (issue 46, item 4:
12 s against a 3 s deadline on the annotator's page, 30 s when called directly). Here every network
operation of the exchange (connecting, the TLS handshake, each write, each read) waits at most what is
left of one deadline, and none starts once it has passed, through httpcore's public network-backend
interface: whatever the server does, the call ends within the deadline plus one scheduling slice.

No redirect is followed (httpcore never does), no environment proxy is used, and the connection is not
kept: the request goes where the URL says, once.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import httpcore


class Unreachable(Exception):
    """Nothing answered at the address (refused, no route, unknown host)."""


class TimedOut(Exception):
    """The deadline passed before the exchange was over."""


class Broken(Exception):
    """The exchange failed some other way (the connection dropped, the answer is not HTTP, a bad URL)."""


class TooLarge(Exception):
    """The answer is larger than the caller accepts."""


def _time_left(deadline: float, timeout: float | None, exc: type[Exception]) -> float:
    """What an operation may wait: its own timeout, but never past the deadline; `exc` once it passed."""
    left = deadline - time.monotonic()
    if left <= 0:
        raise exc("the deadline of the exchange passed")
    return left if timeout is None else min(timeout, left)


class _DeadlineStream(httpcore.NetworkStream):
    def __init__(self, stream: httpcore.NetworkStream, deadline: float) -> None:
        self._stream, self._deadline = stream, deadline

    def _left(self, timeout: float | None, exc: type[Exception]) -> float:
        return _time_left(self._deadline, timeout, exc)

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, self._left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, self._left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context: Any, server_hostname: str | None = None, timeout: float | None = None):
        left = self._left(timeout, httpcore.ConnectTimeout)
        return _DeadlineStream(self._stream.start_tls(ssl_context, server_hostname, left), self._deadline)

    def get_extra_info(self, info: str) -> Any:
        return self._stream.get_extra_info(info)


class _DeadlineBackend(httpcore.NetworkBackend):
    def __init__(self, deadline: float) -> None:
        self._backend, self._deadline = httpcore.SyncBackend(), deadline

    def connect_tcp(
        self, host: str, port: int, timeout: float | None = None, local_address=None, socket_options=None
    ):
        left = _time_left(self._deadline, timeout, httpcore.ConnectTimeout)
        stream = self._backend.connect_tcp(host, port, left, local_address, socket_options)
        return _DeadlineStream(stream, self._deadline)

    def sleep(self, seconds: float) -> None:
        time.sleep(min(seconds, max(0.0, self._deadline - time.monotonic())))


def exchange(
    method: str,
    url: str,
    *,
    headers: Mapping[str, str],
    body: bytes | None,
    seconds: float,
    connect_seconds: float,
    max_bytes: int,
    check_status: Callable[[int], None],
) -> bytes:
    """Send one request and read the whole answer within `seconds`: its body, after `check_status` has
    seen the status (it raises to refuse one). `Unreachable`, `TimedOut`, `Broken` or `TooLarge`
    otherwise; the caller's own exception from `check_status` passes through."""
    deadline = time.monotonic() + seconds
    timeouts = {"connect": min(seconds, connect_seconds), "read": seconds, "write": seconds, "pool": seconds}
    try:
        pool = httpcore.ConnectionPool(
            network_backend=_DeadlineBackend(deadline), max_keepalive_connections=0
        )
        sent = pool.stream(
            method, url, headers=list(headers.items()), content=body, extensions={"timeout": timeouts}
        )
        with pool, sent as response:
            check_status(response.status)
            return _read_limited(response.iter_stream(), max_bytes)
    except httpcore.TimeoutException:
        raise TimedOut() from None
    except httpcore.ConnectError:
        raise Unreachable() from None
    except (httpcore.NetworkError, httpcore.ProtocolError, httpcore.UnsupportedProtocol, ValueError):
        # ValueError: a URL or a header value that cannot be sent.
        raise Broken() from None


def _read_limited(chunks: Iterable[bytes], limit: int) -> bytes:
    read, size = [], 0
    for chunk in chunks:
        size += len(chunk)
        if size > limit:
            raise TooLarge()
        read.append(chunk)
    return b"".join(read)
