"""The ranking check (issue 19): simulated systems that see worse and worse, run through the scoring of
real sessions on a published test's own plan, queued by the beat and kept for the test's card."""

from __future__ import annotations

import random

import pytest

from evaluation.models import RankingCheck
from evaluation.services import degradation
from tests.evaluation.conftest import build_test
from vtt_site.job_model import JobStatus

pytestmark = pytest.mark.django_db


def stream(rng: random.Random) -> list[tuple[str, str]]:
    """instantiations, then attributes of person 1 and a relationship once there are two persons."""
    steps = [("exist", rng.choice(["yes", "no"])), ("unique", "yes")]
    steps += [("attr", rng.choice(["yes", "no"])) for _ in range(4)]
    steps += [("unique", "yes"), ("rel", rng.choice(["yes", "no"])), ("exist", rng.choice(["yes", "no"]))]
    return steps


@pytest.fixture
def queued(monkeypatch):
    jobs: list[RankingCheck] = []
    monkeypatch.setattr(degradation, "job_enqueue", jobs.append)
    return jobs


def test_the_oracle_scores_one_and_a_system_missing_every_object_is_no_better_than_blind(queued):
    rng = random.Random(5)
    test = build_test([stream(rng) for _ in range(24)], name="ranked")
    build_test(name="not yet", state="truthing")

    assert degradation.ranking_checks_due_queue() == 1  # the frozen test only
    (check,) = queued
    assert check.test_id == test.pk and check.status == JobStatus.QUEUED

    check = degradation.ranking_check_run(job_id=check.pk)
    assert check.status == JobStatus.DONE, check.message
    report = check.report
    families = report["families"]
    for family in families.values():  # the oracle itself: every question right
        assert family["points"][0]["value"] == 1.0
    at_one = families["objects"]["points"][-1]
    assert at_one["x"] == 1.0
    assert at_one["value"] <= report["blind_prior"]["high"]
    assert at_one["successes"] == report["blind_prior"]["successes"]  # seeing nothing, it is the prior
    assert at_one["trials"] == report["blind_prior"]["trials"] == 24 * 9
    assert report["power"]["streams"] >= 2 and report["power"]["test_streams"] == 24

    # Current: nothing more to queue; another scoring version makes it stale and it is queued again.
    assert degradation.ranking_checks_due_queue() == 0
    RankingCheck.objects.filter(pk=check.pk).update(version="0.0")
    assert degradation.ranking_checks_due_queue() == 1
    check.refresh_from_db()
    assert check.status == JobStatus.QUEUED and check.report == {}


def test_a_check_of_a_test_that_is_no_longer_frozen_fails_with_a_message(queued):
    test = build_test(name="ranked")
    degradation.ranking_checks_due_queue()
    test.state = "truthing"
    test.save(update_fields=["state"])
    from truthing.published import plans_forget

    plans_forget()
    check = degradation.ranking_check_run(job_id=queued[0].pk)
    assert check.status == JobStatus.FAILED
    assert "not published" in check.message


def test_the_command_runs_the_check_and_prints_the_curves_or_refuses_an_unknown_test():
    from io import StringIO

    from django.core.management import CommandError, call_command

    test = build_test(name="ranked")
    with pytest.raises(CommandError, match="no published or archived test"):
        call_command("ranking_check", "--test", str(test.pk + 1000))
    assert not RankingCheck.objects.exists()
    out = StringIO()
    call_command("ranking_check", "--test", str(test.pk), stdout=out)
    printed = out.getvalue()
    assert printed.splitlines()[2].startswith("| 0.0 | 1.000 [")  # the oracle
    assert "Blind prior on the whole test: 0.364" in printed  # 4 of 11
    assert "| a right p falls at every step | \u2013 | \u2013 | \u2013 |" in printed  # every curve falls
    assert "| verdict | falls at every step | falls at every step | falls at every step |" in printed
    assert "Ranks vision: yes, every curve." in printed
    assert RankingCheck.objects.get(test=test).status == JobStatus.DONE


def test_the_api_gives_seeing_minus_blind_and_accuracy_by_reference(scored_world, users, api):
    from accounts.roles import Role

    annotator = api.as_user(users[Role.ANNOTATOR])
    board = annotator.get(f"/api/v1/evaluation/tests/{scored_world['published'].pk}/leaderboard/").json()
    assert board["test"]["blind_prior"]["successes"] == 4 and board["test"]["blind_prior"]["trials"] == 11
    for row in board["rows"]:  # every row answered yes everywhere: 7 right, the prior 4, paired
        smb = row["seeing_minus_blind"]
        assert smb["value"] == pytest.approx(3 / 11) and smb["questions"] == 11
        assert smb["low"] < smb["value"] < smb["high"]
        assert [(r["distance"], r["successes"], r["trials"]) for r in row["by_reference"]] == [
            ("1", 1, 2),
            ("3", 1, 1),
        ]
    scores = annotator.get(f"/api/v1/evaluation/systems/{scored_world['alpha'].pk}/scores/").json()
    assert {entry["test"]["name"]: entry["by_reference"][0]["distance"] for entry in scores["sessions"]} == {
        "street test": "1",
        "old test": "1",
    }


@pytest.mark.django_db(transaction=True)
def test_under_make_run_the_in_process_beat_checks_a_published_test(settings):
    """Issue 38, item 4: `make run` has no celery beat, so a test published from the web stayed "Not
    checked yet". Its web process now sends the periodic tasks from a thread (beat_in_process), and the
    ranking check runs there as every job does, in a thread of its own."""
    import threading
    import time

    from vtt_site.queueing import beat_in_process

    settings.TASKS_IN_THREADS = True
    settings.EVALUATION_DEADLINE_SWEEP_SECONDS = 0.2
    rng = random.Random(9)
    test = build_test([stream(rng) for _ in range(12)], name="published from the web")
    stop = threading.Event()
    beat_in_process(first_after=0.0, stop=stop)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            check = RankingCheck.objects.filter(test=test).first()
            if check is not None and check.status in (JobStatus.DONE, JobStatus.FAILED):
                break
            time.sleep(0.2)
    finally:
        stop.set()
    assert check is not None and check.status == JobStatus.DONE, check and check.message


def test_the_web_process_of_make_run_starts_the_in_process_beat(tmp_path):
    """vtt_site.wsgi, as `make run` serves it (TASKS_IN_THREADS, no Redis), starts the beat's thread, and
    keeps Celery's line per successful task out of the terminal."""
    import os
    import subprocess
    import sys

    env = {
        **os.environ,
        "TASKS_IN_THREADS": "1",
        "REDIS_URL": "",
        "DATABASE_URL": "",
        "SQLITE_PATH": str(tmp_path / "db.sqlite3"),
    }
    code = (
        "import logging, threading, vtt_site.wsgi; print(sorted(t.name for t in threading.enumerate()));"
        "print('trace level', logging.getLogger('celery.app.trace').level)"
    )
    shown = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0, shown.stderr[-2000:]
    assert "beat-in-process" in shown.stdout, shown.stdout
    # Its tasks' "succeeded" lines (every 15 s) stay out of the newcomer's terminal; failures do not.
    assert "trace level 30" in shown.stdout, shown.stdout
