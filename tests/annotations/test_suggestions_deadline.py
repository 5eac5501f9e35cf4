"""Every call to a model server ends by its deadline, whatever the server does (issue 46, item 4).

httpx's timeouts are per read, so a server that trickled its response headers a byte at a time held the
annotator's page 12 s against a 3 s deadline. The servers here are real sockets on the loopback that
answer slower and slower: headers a byte at a time, or quick headers and a body a byte at a time.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from annotations.suggestions import client

HEADERS = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 2000\r\n\r\n"


@contextmanager
def trickling_server(*, fast_headers: bool, gap: float = 0.05, lasts: float = 20.0) -> Iterator[str]:
    """A server that reads the request, then sends one byte every `gap` seconds for at most `lasts`
    seconds: the headers (or, with `fast_headers`, the headers at once and then the body)."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve(conn: socket.socket) -> None:
        with conn:
            conn.recv(65536)
            if fast_headers:
                conn.sendall(HEADERS)
            payload = b"{" + b" " * 1998 + b"}" if fast_headers else HEADERS
            ends = time.monotonic() + lasts
            for byte in payload:
                if stop.is_set() or time.monotonic() > ends:
                    return
                try:
                    conn.sendall(bytes([byte]))
                except OSError:
                    return  # the client gave up, as it should
                time.sleep(gap)

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join()
        listener.close()


@pytest.mark.parametrize("fast_headers", [False, True], ids=["headers-trickle", "body-trickles"])
@pytest.mark.parametrize("call", ["health", "setup", "predict"])
def test_a_trickling_server_is_given_up_at_the_deadline(fast_headers, call):
    with trickling_server(fast_headers=fast_headers) as url:
        connection = client.Connection(url=url)
        started = time.monotonic()
        with pytest.raises(client.BackendFault) as fault:
            if call == "health":
                client.health(connection, seconds=1.0)
            elif call == "setup":
                client.setup(connection, project="1.1", schema="<View/>", seconds=1.0)
            else:
                client.predict(connection, body={"tasks": []}, seconds=1.0)
        took = time.monotonic() - started
    assert took < 1.5, f"held for {took:.1f} s against a 1 s deadline"
    assert fault.value.reason == f"The model server did not answer /{call} within 1 s."
