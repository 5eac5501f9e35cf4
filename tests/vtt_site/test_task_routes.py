"""Tasks are named once (vtt_site.queueing): every declared task exists under its name, which is the
path of the function that runs it; the routes and the beat's schedule name real tasks; and no module
queues a task or names one in a decorator by a string of its own."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

from django.conf import settings

from vtt_site.celery import app
from vtt_site.queueing import Queue, beat_schedule, declarations

ROOT = Path(__file__).resolve().parents[2]
APPS = ("accounts", "annotations", "datasets", "engine", "truthing", "evaluation", "frontend", "vtt_site")


def test_every_declared_task_runs_under_its_name_the_path_of_its_function():
    app.loader.import_default_modules()
    declared = declarations()
    assert len(declared) == len({task.name for task in declared}) >= 14
    for task in declared:
        module, _, function = task.name.rpartition(".")
        assert getattr(importlib.import_module(module), function).name == task.name
    assert {name for name in app.tasks if not name.startswith("celery.")} == {task.name for task in declared}


def test_the_routes_and_the_schedule_are_made_from_the_declarations():
    routes = app.conf.task_routes
    scheduled = {entry["task"] for entry in app.conf.beat_schedule.values()}
    assert app.conf.beat_schedule == beat_schedule()
    assert scheduled == {task.name for task in declarations() if task.beat}
    # Every sweep goes with the proposals, and the deals to their own queue: never behind a long job.
    queue_of = {name: route["queue"] for name, route in routes.items()}
    assert {queue_of[name] for name in scheduled} == {settings.CELERY_PROPOSAL_QUEUE}
    assert queue_of["truthing.tasks.stream_propose"] == settings.CELERY_PROPOSAL_QUEUE
    assert queue_of["truthing.tasks.deal_run"] == settings.CELERY_DEAL_QUEUE
    assert all(task.name not in routes for task in declarations() if task.queue == Queue.LONG)
    assert app.conf.beat_schedule["sessions-expire"]["schedule"] == settings.EVALUATION_DEADLINE_SWEEP_SECONDS
    # The site's own sweep too (vtt_site is the project, not an installed app: it was once left out).
    assert set(app.conf.beat_schedule) == {
        "jobs-sweep",
        "streams-sweep",
        "sessions-expire",
        "sessions-score-missing",
        "ranking-checks",
    }
    assert (
        len({settings.CELERY_TASK_DEFAULT_QUEUE, settings.CELERY_PROPOSAL_QUEUE, settings.CELERY_DEAL_QUEUE})
        == 3
    )


def test_no_task_is_named_by_a_string_outside_its_declaration():
    """A task's name appears once, in its app's queues.py: decorators and senders use the declaration."""
    names = {task.name for task in declarations()}
    found = []
    for app_name in APPS:
        for path in sorted((ROOT / app_name).rglob("*.py")):
            if path.name == "queues.py" or "/migrations/" in path.as_posix():
                continue
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Constant) and node.value in names:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value}")
    assert found == []


def test_queues_chosen_before_the_app_is_configured_are_kept():
    """A process that picks its queues first thing (a benchmark, before any task is sent) must route to
    them: the app's own configuration, done on its first read of a setting, once put the settings'
    routes back (the deals went where the benchmark's dealer never looked)."""
    import os
    import subprocess
    import sys

    code = (
        "import django; django.setup()\n"
        "from vtt_site.celery import app, queues_use\n"
        "queues_use('bench', 'bench-proposals', 'bench-deals')\n"
        "app.loader.import_default_modules()\n"
        "print(app.amqp.router.route({}, 'truthing.tasks.deal_run', (1,), {})['queue'].name)\n"
    )
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "vtt_site.settings"}
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, cwd=ROOT)
    assert result.stdout.strip().splitlines()[-1] == "bench-deals", result.stderr[-2000:]
