"""A long job under `make run`'s layout (issue 46, item 1): SQLite, every task in a thread of the web
process, the periodic sweeps sent from a thread of that process (`beat_in_process`), no heartbeats.

A job that ran longer than `JOB_STALE_SECONDS` there was taken for one whose worker died: the sweeper
queued it again, a second thread took it over, three times, and it failed saying its worker had been
killed. The process below is that layout, with the periods shortened so that the job runs for several
of them (`_read_and_write` made slow), and reports what happened to the job.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Runs in a process of its own, as the web server of `make run` would (vtt_site.wsgi starts the
# in-process beat); the job is queued as a page queues it, on commit, into a thread.
LAYOUT = r"""
import json, sys, threading, time

import django

django.setup()
from django.core.management import call_command

call_command("migrate", verbosity=0)

from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction

from datasets.models import ImportJob
from datasets.services import creation, run
from demo.synthetic.scenes import generate_scenes
from tests.factories import CollectionFactory

runs = []
slow_work = run._read_and_write


def slow(job):
    runs.append(threading.current_thread().name)
    time.sleep(float(sys.argv[1]))
    return slow_work(job)


run._read_and_write = slow
import vtt_site.wsgi  # noqa: E402,F401  (the in-process beat, as under `make run`)

collection = CollectionFactory()
payload = "".join(json.dumps(s) + "\n" for s in generate_scenes(3, seed=7)).encode()
with transaction.atomic():
    job = creation.import_create(
        collection=collection, format="jsonl", file=SimpleUploadedFile("s.jsonl", payload),
        mark_reviewed=True, start=True, created_by=None,
    )
deadline = time.monotonic() + 90
while time.monotonic() < deadline:
    job.refresh_from_db()
    if job.status in ("done", "failed"):
        break
    time.sleep(0.2)
time.sleep(2)  # a takeover queued at the very end would start a second run by now
job.refresh_from_db()
print(json.dumps({"status": job.status, "attempts": job.attempts, "message": job.message, "runs": len(runs)}))
"""


@pytest.mark.slow
def test_a_job_longer_than_the_staleness_period_finishes_once_under_make_runs_layout(tmp_path):
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("DATABASE_URL", "REDIS_URL", "DJANGO_SETTINGS_MODULE")
    } | {
        "DJANGO_SETTINGS_MODULE": "vtt_site.settings",
        "SQLITE_PATH": str(tmp_path / "vtt.sqlite3"),
        "VAR_DIR": str(tmp_path),
        "MEDIA_ROOT": str(tmp_path / "media"),
        "TASKS_IN_THREADS": "1",
        "JOB_HEARTBEAT_SECONDS": "0.5",
        "JOB_STALE_SECONDS": "1",
        "JOB_SWEEP_SECONDS": "0.5",
    }
    done = subprocess.run(
        [sys.executable, "-c", LAYOUT, "8"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=150
    )
    assert done.returncode == 0, done.stderr[-3000:]
    outcome = json.loads(done.stdout.strip().splitlines()[-1])
    # Eight seconds of work against a one-second staleness period swept every half second: one run.
    assert outcome == {"status": "done", "attempts": 1, "message": outcome["message"], "runs": 1}, outcome
