"""Issue 22, item 6: a database blip is a 503 that says to retry, not a 500. During a 3.2 s PostgreSQL
restart, clients got 14 answers of 500 (`server_error`, and Django's HTML page for web pages).

The interruption is real and touches nothing but this test: the server ends this test's own connection
(`pg_terminate_backend` of its backend, from a second connection), as a restart or a failover would.
The tests commit (`transactional_db`), since a connection that dies takes its transaction with it."""

from __future__ import annotations

import json

import psycopg
import pytest
from django.core.files.base import ContentFile
from django.db import connection
from django.test import Client

from accounts.roles import Role
from accounts.services import token_create
from annotations.models import Image
from datasets.services.creation import import_create
from demo.synthetic.scenes import generate_scenes
from tests.factories import CollectionFactory
from vtt_site.database import DATABASE_UNAVAILABLE

pytestmark = pytest.mark.django_db(transaction=True)


def cut_the_connection() -> None:
    """End this process's connection from the server's side, as a restart does."""
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL")
    connection.ensure_connection()
    pid = connection.connection.info.backend_pid
    db = connection.settings_dict
    with psycopg.connect(
        host=db["HOST"] or "127.0.0.1",
        port=db["PORT"] or 5432,
        user=db["USER"],
        password=db["PASSWORD"] or None,
        dbname=db["NAME"],
        autocommit=True,
    ) as other:
        assert other.execute("SELECT pg_terminate_backend(%s)", [pid]).fetchone() == (True,)


@pytest.fixture
def reconnect_after():
    yield
    connection.close()  # the test client keeps Django from closing the dead connection itself


def test_the_api_answers_503_with_retry_after_when_the_database_goes_away(api, make_user, reconnect_after):
    _, secret = token_create(user=make_user(Role.ANNOTATOR), name="ci")
    cut_the_connection()
    response = api.get("/api/v1/me/", HTTP_AUTHORIZATION=f"Token {secret}")
    assert response.status_code == 503
    assert response.json() == {"code": "service_unavailable", "message": DATABASE_UNAVAILABLE, "fields": {}}
    assert int(response["Retry-After"]) > 0
    connection.close()
    assert api.get("/api/v1/me/", HTTP_AUTHORIZATION=f"Token {secret}").status_code == 200


def test_a_web_page_says_try_again_in_a_moment(make_user, reconnect_after):
    browser = Client(raise_request_exception=False)  # as a server would: no exception reaches the client
    browser.force_login(make_user(Role.ANNOTATOR))
    cut_the_connection()
    response = browser.get("/")
    assert response.status_code == 503
    assert int(response["Retry-After"]) > 0
    page = response.content.decode()
    assert "Try again in a moment" in page
    assert "Server Error" not in page


def test_a_job_that_loses_the_database_is_queued_again_and_runs_once(monkeypatch, reconnect_after):
    """The first run's connection is cut as the work starts: the job is given back without counting
    the attempt, and runs again (tasks run in-process here) to the end."""
    from datasets.services import run

    collection = CollectionFactory()
    scenes = "".join(json.dumps(s) + "\n" for s in generate_scenes(5, seed=71)).encode()
    job = import_create(
        collection=collection, format="jsonl", file=ContentFile(scenes, name="s.jsonl"), start=False
    )
    real_run, runs = run._run, []

    def run_losing_the_database_once(job):
        runs.append(job.attempts)
        if len(runs) == 1:
            cut_the_connection()
        real_run(job)

    monkeypatch.setattr(run, "_run", run_losing_the_database_once)
    run.import_run(job_id=job.pk)
    job.refresh_from_db()
    assert (job.status, job.attempts, runs) == ("done", 1, [1, 1]), job.message
    assert Image.objects.filter(collection=collection).count() == 5
