"""Starting and stopping `make serve` and other real processes, for the integration tests and the
benchmarks that time the served platform (benchmarks.operator_ui --serve): one way for both.

Nothing here imports Django or pytest; the caller gives the environment (database, Redis, queues,
folders) and reads the log.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start(command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    """Run `command` from the repository in a session of its own (so `stop` reaches its whole group),
    every line of its output into `log`."""
    handle = log.open("w")
    return subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True
    )


def stop(process: subprocess.Popen) -> None:
    """SIGTERM the process's group and wait for every process started under it (a supervisor's children
    have process groups of their own), then SIGKILL whatever is left."""
    try:
        tree = [psutil.Process(process.pid), *psutil.Process(process.pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        tree = []
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    _, alive = psutil.wait_procs(tree, timeout=40)
    for leftover in alive:
        leftover.kill()
    psutil.wait_procs(alive, timeout=10)
    process.wait()


def kill(process: subprocess.Popen) -> None:
    """SIGKILL the process and every process under it at once: the end of a test, after which nothing of
    their state is read again. `stop`'s graceful way waits for running tasks and requests (supervisord
    gives a worker 30 s): 7 to 23 s of every integration test's teardown, most of it on the suite's
    longest path (its tests that start processes run one after another)."""
    try:
        tree = [psutil.Process(process.pid), *psutil.Process(process.pid).children(recursive=True)]
    except psutil.NoSuchProcess:
        tree = []
    for member in tree:
        with contextlib.suppress(psutil.NoSuchProcess):
            member.kill()
    psutil.wait_procs(tree, timeout=10)
    process.wait()


def start_make_serve(env: dict[str, str], log: Path) -> tuple[str, subprocess.Popen]:
    """`make serve` (supervised web, workers and beat, as docker-compose runs them) with this
    interpreter's programs, on a free port; its address and its process (stop it with `stop`)."""
    port = free_port()
    command = ["make", "--no-print-directory", "serve", f"PORT={port}", f"BIN={BIN}"]
    return f"http://127.0.0.1:{port}", start(command, env, log)


def forget_keys(url: str, queue: str) -> None:
    """What the processes left in Redis under their queues' names (queues, bindings, the beat's lock and
    schedule, the broker marker, wake-ups): the shared server's database does not fill up run after run."""
    import redis

    client = redis.Redis.from_url(url)
    try:
        keys = list(client.scan_iter(match=f"*{queue}*"))
        if keys:
            client.delete(*keys)
    finally:
        client.close()
