"""Real processes for the integration tests: Celery workers and a beat on Redis, `make serve`, and a
Redis server of the test's own for the tests that restart it (the shared one is never touched).

They share the test database with the test process (pytest-django's `test_…` database on PostgreSQL),
so the tests use `transactional_db`: what the test writes is committed and the processes see it. Each
test has queues of its own (and so a beat lock of its own): no stale message or lock reaches it.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import psutil
import pytest
from django.db import connection

from tests.serving import BIN, forget_keys, free_port, kill, start, start_make_serve
from vtt_site.celery import app as celery_app
from vtt_site.celery import queues_use


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
    queue = f"vtt-test-{uuid.uuid4().hex[:8]}"  # queues of our own: no stale message reaches our workers
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}:{db['PASSWORD'] or ''}@{db['HOST'] or '127.0.0.1'}:"
        f"{db['PORT'] or 5432}/{db['NAME']}",
        "REDIS_URL": settings.REDIS_URL,
        "CELERY_QUEUE": queue,
        "CELERY_PROPOSAL_QUEUE": f"{queue}-proposals",
        "CELERY_DEAL_QUEUE": f"{queue}-deals",
        "SECRET_KEY": settings.SECRET_KEY,
        "VAR_DIR": str(tmp_path / "var"),
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),
        "DJANGO_SETTINGS_MODULE": "vtt_site.settings",
    }
    conf = celery_app.conf
    previous = (
        conf.task_always_eager,
        conf.task_default_queue,
        settings.CELERY_PROPOSAL_QUEUE,
        settings.CELERY_DEAL_QUEUE,
    )
    conf.task_always_eager = False
    queues_use(queue, env["CELERY_PROPOSAL_QUEUE"], env["CELERY_DEAL_QUEUE"])
    yield env
    conf.task_always_eager = previous[0]
    queues_use(*previous[1:])
    forget_keys(settings.REDIS_URL, queue)


@contextlib.contextmanager
def publishing_to(url: str) -> Iterator[None]:
    """This process's Celery app sends its tasks to the broker at `url` (the workers keep theirs)."""
    previous = celery_app.conf.broker_url
    celery_app.conf.broker_url = url
    celery_app._after_fork()  # drop the connection and producer pools made for the other broker
    try:
        yield
    finally:
        celery_app.conf.broker_url = previous
        celery_app._after_fork()


def celery(*args: str) -> list[str]:
    return [str(BIN / "celery"), "-A", "vtt_site", *args]


@pytest.fixture
def start_beat(real_services, tmp_path):
    """Start a Celery beat as the service does (`celery beat`); `start_beat(**env)` returns the process
    and its log. Every beat stops after the test."""
    started: list[subprocess.Popen] = []

    def start_one(**env: str) -> tuple[subprocess.Popen, Path]:
        name = f"beat-{len(started) + 1}"
        log = tmp_path / f"{name}.log"
        command = celery("beat", "--loglevel", "info", "--schedule", str(tmp_path / f"{name}-schedule"))
        started.append(start(command, {**real_services, **env}, log))
        return started[-1], log

    yield start_one
    for process in started:
        kill(process)


@pytest.fixture
def start_worker(real_services, start_beat, tmp_path):
    """Start a real Celery worker (a pool of one taking both queues) and wait until it is ready; the
    first one also starts the beat (a process of its own, as in the service: the sweeps go on while a
    worker is killed). `start_worker(**env)` returns the worker and its log; all stop after the test."""
    started: list[subprocess.Popen] = []

    def start_one(**env: str) -> tuple[subprocess.Popen, Path]:
        name = f"worker-{len(started) + 1}"
        log = tmp_path / f"{name}.log"
        queues = f"{real_services['CELERY_QUEUE']},{real_services['CELERY_PROPOSAL_QUEUE']}"
        command = celery(
            "worker",
            "--hostname",
            f"{name}@%h",
            "--loglevel",
            "info",
            "--concurrency",
            "1",
            "--queues",
            queues,
            "--without-gossip",
            "--without-mingle",
        )
        process = start(command, {**real_services, **env}, log)
        started.append(process)
        if len(started) == 1:
            start_beat(**env)
        wait_for(lambda: "ready." in log.read_text(), 60, "the Celery worker to start", log)
        return process, log

    yield start_one
    for process in started:
        kill(process)


@pytest.fixture
def celery_worker(start_worker):
    return start_worker()[1]


@dataclass
class Served:
    """`make serve` running: its address, its log (every process writes there) and the `make` process."""

    base: str
    log: Path
    process: subprocess.Popen
    env: dict[str, str]

    def processes(self) -> list[psutil.Process]:
        """Every process of the service (web, workers, their pools, the beat)."""
        try:
            return psutil.Process(self.process.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            return []

    def main_processes(self, *words: str) -> list[psutil.Process]:
        """The processes whose command line has every word, and whose parent's does not: a program's
        main process, not its pool or an embedded service."""
        found = []
        for process in self.processes():
            try:
                if has_words(process, words) and not has_words(process.parent(), words):
                    found.append(process)
            except psutil.NoSuchProcess:
                continue
        return found


def has_words(process: psutil.Process | None, words: tuple[str, ...]) -> bool:
    """Every word is an argument of the command line, or an option ("beat": `celery beat`, `--beat`)."""
    try:
        command = set(process.cmdline()) if process else set()
    except psutil.NoSuchProcess:
        return False
    return all(word in command or f"--{word}" in command for word in words)


# The tests' service has every part, each as small as it goes, unless a test asks for more: each process
# is a Django start (2 to 3 s of CPU on the 2-core machine), and `make serve`'s own sizes (5 web workers,
# 2 proposers, 2 dealers) made each served test start over a dozen while the suite ran on both cores.
SMALLEST_SERVICE = {
    "WEB_WORKERS": "2",
    "PROPOSER_CONCURRENCY": "1",
    "DEALER_CONCURRENCY": "1",
    "TRUTHING_DEALERS": "1",
}


@pytest.fixture
def serve(real_services, tmp_path) -> Iterator[Callable[..., Served]]:
    """`serve(**env)`: `make serve` (supervised web, workers and beat, as docker-compose runs them) on the
    test database and queues, stopped with everything it started after the test."""
    started: list[subprocess.Popen] = []

    def start_serving(**env: str) -> Served:
        log = tmp_path / "serve.log"
        full = {**real_services, **SMALLEST_SERVICE, **env}
        base, process = start_make_serve(full, log)
        started.append(process)
        return Served(base, log, process, full)

    yield start_serving
    for process in started:
        kill(process)


@pytest.fixture
def served(serve):
    started = serve()
    return started.base, started.log, started.process


@dataclass
class PrivateRedis:
    """A Redis server of the test's own, without persistence (as docker-compose runs it)."""

    port: int
    folder: Path
    process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        log = (self.folder / "redis.log").open("a")
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                str(self.folder),
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        wait_for(self.answers, 20, f"the private Redis on port {self.port}")

    def answers(self) -> bool:
        import redis

        try:
            return bool(redis.Redis(port=self.port, socket_timeout=1).ping())
        except redis.RedisError:
            return False

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()  # Redis stops at once; without persistence its data is gone
            self.process.wait(timeout=20)

    def restart(self) -> None:
        self.stop()
        self.start()


@pytest.fixture
def private_redis(tmp_path) -> Iterator[PrivateRedis]:
    folder = tmp_path / "redis"
    folder.mkdir()
    server = PrivateRedis(free_port(), folder)
    server.start()
    yield server
    server.stop()
