"""Fixtures shared by every test that uses Django (loaded by tests/conftest.py when pytest-django is on).

Unit tests run Celery tasks eagerly and use a per-process cache, whatever REDIS_URL says; the
integration tests (tests/integration) switch to the real broker and a real worker process.

`make test` runs them on pytest-xdist workers: tests/parallel.py keeps the workers apart.
"""

from __future__ import annotations

import contextlib
import json

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient
from rest_framework.views import APIView

from accounts.roles import Role
from annotations.models import Split
from datasets.services.creation import import_create
from datasets.services.run import import_run
from demo.pictures import scene_pictures_upload
from demo.synthetic.scenes import generate_scenes
from tests.factories import CollectionFactory, UserFactory
from vtt_site.celery import app as celery_app

# Every error code a response carried during the session; checked against docs/errors.md at the end.
SEEN_ERROR_CODES: set[str] = set()
# Every (operationId, code) of an error an API view answered; checked at the end against the codes
# docs/openapi.yaml lists for that operation, which is what a generated client knows.
SEEN_OPERATION_CODES: set[tuple[str, str]] = set()

LOCMEM_CACHE = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}


@pytest.fixture(autouse=True)
def _unit_test_defaults(request, settings):
    if request.node.get_closest_marker("integration"):
        yield
        return
    settings.CACHES = LOCMEM_CACHE
    settings.TASKS_IN_THREADS = False  # eager tasks run in the request: what a test reads is there
    previous = celery_app.conf.task_always_eager
    celery_app.conf.task_always_eager = True
    yield
    celery_app.conf.task_always_eager = previous
    # Rate-limit counters (throttles, failed authentications) must not carry over to the next test.
    from django.core.cache import cache

    from vtt_site.cache import resilient_cache

    with contextlib.suppress(Exception):  # a test may have pointed the cache at a Redis that is down
        cache.clear()
    resilient_cache.reset()


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    """PBKDF2's deliberate slowness is for attackers, not for a suite that creates users per test."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _media_in_tmp(settings, tmp_path):
    """Every file of a test (uploads, fitted statistics) goes to its own temporary folder."""
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture
def make_user(db):
    def make(role: Role | None = None, **kwargs):
        return UserFactory(role=role, **kwargs)

    return make


@pytest.fixture
def users(make_user):
    """One user per role, named after it."""
    return {role: make_user(role, username=role.value.replace(" ", "-")) for role in Role}


@pytest.fixture
def api():
    """An API client; `api.as_user(user)` logs in with a session, like the browser."""

    class Client(APIClient):
        def as_user(self, user):
            self.force_authenticate(user=user)
            return self

    return Client()


@pytest.fixture
def token_client():
    """`token_client(secret)`: an API client that calls with that token (a system's, or a person's)."""

    def make(secret: str) -> APIClient:
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {secret}")
        return client

    return make


def run_task(task, *args):
    """Run a Celery task as the beat or a service queues it (eagerly in the unit tests) and return its
    result. The result is read without `.get()`: Celery refuses to join a result while it believes a task
    is running in the process ("never call result.get() within a task"), which another test's eager task
    run in a thread makes true under pytest-xdist, and the test then failed only in a parallel run."""
    result = task.apply(args=args)
    assert result.successful(), result.traceback
    return result.result


@contextlib.contextmanager
def proposals_later(monkeypatch, seconds: float, *, wake: bool):
    """Each stream's next question is proposed `seconds` after the answer commits, in another thread, as
    a worker would; `wake`: then the proposal wakes the answer that waits for it, as the task does
    (truthing.tasks.stream_propose), else the answer waits its whole bound and the page polls."""
    import threading

    from truthing import tasks
    from truthing.services.proposals import stream_propose
    from vtt_site.interactive import proposal_done

    timers = []

    def propose(stream_id):
        try:
            stream_propose(stream_id=stream_id)
        finally:
            if wake:
                proposal_done(stream_id)

    def later(stream_id):
        timer = threading.Timer(seconds, propose, args=[stream_id])
        timers.append(timer)
        timer.start()

    monkeypatch.setattr(tasks.stream_propose, "delay", later)
    yield
    for timer in timers:
        timer.join()


def import_scenes(collection, scenes, *, split=Split.TRAIN, mark_reviewed=True):
    payload = "".join(json.dumps(s) + "\n" for s in scenes).encode()
    job = import_create(
        collection=collection,
        format="jsonl",
        file=SimpleUploadedFile("s.jsonl", payload),
        split=split,
        mark_reviewed=mark_reviewed,
        start=False,
    )
    job = import_run(job_id=job.pk)
    assert job.status == "done", job.errors
    return job


def import_test_scenes(collection, scenes, *, mark_reviewed=True):
    """Test images with their pixels (uploaded first, as docs/guides/your-own-data.md says: a test takes
    only images with pixels) and their scene graphs."""
    scenes = list(scenes)
    scene_pictures_upload(collection=collection, scenes=scenes, split=Split.TEST)
    return import_scenes(collection, scenes, split=Split.TEST, mark_reviewed=mark_reviewed)


@pytest.fixture
def training_scenes():
    return list(generate_scenes(60, seed=41))


@pytest.fixture
def trained_collection(db, training_scenes):
    """60 reviewed training scenes (without pixels), 5 reviewed test scenes (with pixels) and 4 training
    scenes still in review."""
    collection = CollectionFactory()
    import_scenes(collection, training_scenes)
    import_test_scenes(collection, generate_scenes(5, seed=42, prefix="test"))
    import_scenes(collection, generate_scenes(4, seed=43, prefix="pending"), mark_reviewed=False)
    return collection


@pytest.fixture(autouse=True, scope="session")
def _record_error_codes():
    from vtt_site.api.errors import CODE_OBSERVERS

    CODE_OBSERVERS.append(SEEN_ERROR_CODES.add)
    yield
    CODE_OBSERVERS.remove(SEEN_ERROR_CODES.add)


def _record_operation_code(view, request, response) -> None:
    from vtt_site.api.operations import operation_of

    data = getattr(response, "data", None)
    if response.status_code < 400 or not isinstance(data, dict) or "code" not in data:
        return
    try:
        operation = operation_of(view, request.method)
    except Exception:  # a method the view does not take: answered before any operation
        return
    SEEN_OPERATION_CODES.add((operation.replace(".", "_"), str(data["code"])))


@pytest.fixture(autouse=True, scope="session")
def _record_operation_codes():
    """Every response of an API view passes through `finalize_response`, the refusals of its permission
    and throttles included."""
    original = APIView.finalize_response

    def finalize_response(self, request, response, *args, **kwargs):
        response = original(self, request, response, *args, **kwargs)
        _record_operation_code(self, request, response)
        return response

    APIView.finalize_response = finalize_response  # type: ignore[method-assign]
    yield
    APIView.finalize_response = original  # type: ignore[method-assign]


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """On xdist's controller: the codes a worker saw (sent by its `pytest_sessionfinish`)."""
    output = getattr(node, "workeroutput", {})
    SEEN_ERROR_CODES.update(output.get("seen_error_codes", []))
    SEEN_OPERATION_CODES.update(tuple(pair) for pair in output.get("seen_operation_codes", []))


def _codes_not_in_the_schema() -> list[str]:
    from tests.vtt_site.test_error_schema import operation_errors

    errors = operation_errors()
    return sorted(
        f"{operation}: {code}"
        for operation, code in SEEN_OPERATION_CODES
        if operation in errors and code not in errors[operation]
    )


def pytest_sessionfinish(session, exitstatus):
    """A response carried a code that docs/errors.md does not list, or that docs/openapi.yaml does not
    list for its operation: the run fails, whatever else passed. An xdist worker only hands its codes to
    the controller, which checks them all: a worker's own exit status does not reach the run's."""
    from tests.vtt_site.test_error_codes import listed_codes

    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput["seen_error_codes"] = sorted(SEEN_ERROR_CODES)
        workeroutput["seen_operation_codes"] = sorted(SEEN_OPERATION_CODES)
        return

    failures = []
    if unlisted := sorted(SEEN_ERROR_CODES - listed_codes()):
        failures.append(f"Error codes answered but not listed in docs/errors.md: {', '.join(unlisted)}")
    if unlisted := _codes_not_in_the_schema():
        failures.append(f"Error codes answered but not in their operation's schema: {'; '.join(unlisted)}")
    for failure in failures:
        session.config.get_terminal_writer().line(failure, red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
