"""Real processes for the integration tests: a Celery worker on Redis, and `make serve`.

They share the test database with the test process (pytest-django's `test_…` database on PostgreSQL),
so the tests use `transactional_db`: what the test writes is committed and the processes see it.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from django.db import connection

from vtt_site.celery import app as celery_app

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


def wait_for(condition: Callable[[], object], timeout: float, what: str, log: Path | None = None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = condition()
        if result:
            return result
        time.sleep(0.25)
    tail = log.read_text()[-3000:] if log and log.exists() else ""
    pytest.fail(f"Timed out after {timeout:.0f} s waiting for {what}.\n{tail}")


@pytest.fixture
def real_services(transactional_db, settings, tmp_path):
    """Environment for child processes pointing at the test database, Redis and this test's folders."""
    if connection.vendor != "postgresql" or not settings.REDIS_URL:
        pytest.fail(
            "Integration tests need PostgreSQL and Redis: run them through `make test` or .ci/run "
            "(DATABASE_URL=postgres://… REDIS_URL=redis://…)."
        )
    db = connection.settings_dict
    queue = f"vtt-test-{uuid.uuid4().hex[:8]}"  # a queue of our own: no stale message reaches our worker
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST'] or '127.0.0.1'}:"
        f"{db['PORT'] or 5432}/{db['NAME']}",
        "REDIS_URL": settings.REDIS_URL,
        "CELERY_QUEUE": queue,
        "SECRET_KEY": settings.SECRET_KEY,
        "VAR_DIR": str(tmp_path / "var"),
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),
        "ENGINE_DIR": str(settings.VTT["ENGINE_DIR"]),
        "DJANGO_SETTINGS_MODULE": "vtt_site.settings",
    }
    previous = (celery_app.conf.task_always_eager, celery_app.conf.task_default_queue)
    celery_app.conf.task_always_eager = False
    celery_app.conf.task_default_queue = queue
    celery_app.amqp.__dict__.pop("queues", None)  # recomputed from the new default queue
    yield env
    celery_app.conf.task_always_eager, celery_app.conf.task_default_queue = previous
    celery_app.amqp.__dict__.pop("queues", None)


def start(command: list[str], env: dict[str, str], log: Path) -> subprocess.Popen:
    handle = log.open("w")
    return subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=handle, stderr=subprocess.STDOUT, start_new_session=True
    )


def stop(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGTERM)
        process.wait(timeout=20)
    except ProcessLookupError:
        return
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()


@pytest.fixture
def start_worker(real_services, tmp_path):
    """Start a real Celery worker (pool of one, beat embedded: the job sweeper runs) and wait until it is
    ready; `start_worker(**env)` returns the process and its log. Every worker stops after the test."""
    started: list[subprocess.Popen] = []

    def start_one(**env: str) -> tuple[subprocess.Popen, Path]:
        name = f"worker-{len(started) + 1}"
        log = tmp_path / f"{name}.log"
        process = start(
            [
                str(BIN / "celery"),
                "-A",
                "vtt_site",
                "worker",
                "--beat",
                "--schedule",
                str(tmp_path / f"{name}-beat"),
                "--hostname",
                f"{name}@%h",
                "--loglevel",
                "info",
                "--concurrency",
                "1",
                "--queues",
                real_services["CELERY_QUEUE"],
                "--without-gossip",
                "--without-mingle",
            ],
            {**real_services, **env},
            log,
        )
        started.append(process)
        wait_for(lambda: "ready." in log.read_text(), 60, "the Celery worker to start", log)
        return process, log

    yield start_one
    for process in started:
        stop(process)


@pytest.fixture
def celery_worker(start_worker):
    return start_worker()[1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def served(real_services, tmp_path):
    """`make serve`: gunicorn and a Celery worker, the docker-compose pair without Docker."""
    port = free_port()
    log = tmp_path / "serve.log"
    process = start(
        ["make", "--no-print-directory", "serve", f"PORT={port}", f"BIN={BIN}"], real_services, log
    )
    base = f"http://127.0.0.1:{port}"
    yield base, log, process
    stop(process)
