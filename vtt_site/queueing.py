"""Tasks named once (issue 35): each app declares its Celery tasks in `<app>/queues.py`, and everything
that names a task reads the declaration.

A declaration (`TaskName`) says the task's name, which is the dotted path of the function that runs it
(`"evaluation.tasks.score_session"`: a reader at a queuing line knows where to look), which of the three
queues it runs on, and for a periodic task how often the beat sends it. The task's decorator in
`<app>/tasks.py` takes its name from it (`@shared_task(name=SCORE_SESSION.name)`); a service queues it
with `SCORE_SESSION.send(...)`, so a services module never imports a tasks module (which imports the
services); a job's model names its task (`task = FIT_STATISTICS`). The routes and the beat's schedule
are made from the declarations of every installed app (`task_routes`, `beat_schedule`): the settings
module names no task.
"""

from __future__ import annotations

import importlib
import logging
import threading
import time
from dataclasses import dataclass
from enum import StrEnum
from types import ModuleType
from typing import Any

from celery import current_app
from django.conf import settings
from django.db import connections as db_connections

logger = logging.getLogger(__name__)


class Queue(StrEnum):
    """The three queues, each with workers of its own (decisions 0041 and 0053): the long jobs; what an
    operator or the service waits for (the next question of a stream and the beat's sweeps); the deals a
    vision system waits for before its session can be taken."""

    LONG = "long"
    INTERACTIVE = "interactive"
    DEALS = "deals"


@dataclass(frozen=True)
class TaskName:
    name: str  # the dotted path of the function that runs it
    queue: Queue = Queue.LONG
    # A periodic task: its entry in the beat's schedule, and the setting that holds its period in seconds
    # (a sweep that waited a whole period is dropped: a busy worker must not pile sweeps up).
    beat: str | None = None
    every: str | None = None

    def send(self, *args: Any, what: str, countdown: float | None = None) -> bool:
        """Queue the task with `args`; whether it reached the broker (`task_queue`)."""
        return task_queue(self.name, *args, what=what, countdown=countdown)


def declarations() -> list[TaskName]:
    """Every task the installed apps declare, in the order of INSTALLED_APPS."""
    found = []
    for module in _queues_modules():
        found += [value for value in vars(module).values() if isinstance(value, TaskName)]
    return found


def _queues_modules() -> list[ModuleType]:
    """Each installed app's `queues.py`, and the site's own (vtt_site is the project, not an app)."""
    modules = []
    for app in ["vtt_site", *settings.INSTALLED_APPS]:
        try:
            modules.append(importlib.import_module(f"{app}.queues"))
        except ModuleNotFoundError as exc:
            if exc.name != f"{app}.queues":
                raise
    return modules


def queue_names(default: str, interactive: str, deals: str) -> dict[Queue, str]:
    return {Queue.LONG: default, Queue.INTERACTIVE: interactive, Queue.DEALS: deals}


def task_routes(names: dict[Queue, str]) -> dict[str, dict[str, str]]:
    """Celery's routes: every task not on the default queue, to its queue."""
    return {task.name: {"queue": names[task.queue]} for task in declarations() if task.queue != Queue.LONG}


def beat_schedule() -> dict[str, dict[str, Any]]:
    """Celery's beat schedule: every periodic task, every `every` seconds, dropped if it waited that long."""
    schedule = {}
    for task in declarations():
        if task.beat is not None and task.every is not None:
            seconds = getattr(settings, task.every)
            schedule[task.beat] = {"task": task.name, "schedule": seconds, "options": {"expires": seconds}}
    return schedule


def beat_in_process(*, first_after: float = 5.0, stop: threading.Event | None = None) -> threading.Thread:
    """`make run` has no `celery beat`: a daemon thread of the web process sends every periodic task of
    `beat_schedule()` on its period, as the beat does under `make serve`, so that what the beat looks
    after happens there too (issue 38, item 4: a test published from the web was never ranking-checked,
    and its deadline sweeps never ran). The first round goes `first_after` seconds after the start; each
    task runs in a thread of its own (TASKS_IN_THREADS). `stop` ends the loop (tests)."""
    schedule = beat_schedule()
    stop = stop or threading.Event()

    def loop() -> None:
        due = dict.fromkeys(schedule, time.monotonic() + first_after)
        while not stop.is_set():
            now = time.monotonic()
            for beat, entry in schedule.items():
                if now >= due[beat]:
                    task_queue(entry["task"], what=f"the periodic task {beat}")
                    due[beat] = now + entry["schedule"]
            stop.wait(max(0.05, min(due.values(), default=now + 60) - time.monotonic()))

    thread = threading.Thread(target=loop, name="beat-in-process", daemon=True)
    thread.start()
    return thread


def tasks_in_process() -> bool:
    """Whether a task sent now runs in this process (eager: no REDIS_URL, `make run`, most tests)
    rather than in a worker."""
    return bool(current_app.conf.task_always_eager)


def task_queue(name: str, *args: Any, what: str, countdown: float | None = None) -> bool:
    """Queue the Celery task `name` with `args` and say whether it reached the broker (eager mode runs
    it here). What `TaskName.send` does: by name, so that a services module never imports a tasks
    module (which imports the services: a circle). Never raises: with the broker down, what the
    caller just stored stays stored, and the caller's sweeper or beat queues the task again later."""
    app = current_app  # vtt_site.celery's, made current when vtt_site is imported

    def send() -> None:
        if name not in app.tasks:
            app.loader.import_default_modules()  # the apps' tasks modules, in a process that is no worker
        task = app.tasks[name]
        if app.conf.task_always_eager and settings.TASKS_IN_THREADS:
            _run_in_thread(task, args, what, countdown)
        elif countdown is None:
            task.delay(*args)
        else:
            task.apply_async(args, countdown=countdown)

    try:
        send()
    except Exception as exc:  # the broker is down (kombu's OperationalError), or any other reason
        logger.warning("Could not queue %s (%s); it will be queued again later.", what, exc)
        return False
    return True


def _run_in_thread(task: Any, args: tuple[Any, ...], what: str, countdown: float | None = None) -> None:
    """Run an eager task in a daemon thread with its own database connection: the request that queued
    it (on commit) answers at once, and the page shows the job's progress as the task writes it. A
    countdown (a job sent again after losing the database) is waited out in the thread."""

    def run() -> None:
        try:
            if countdown:
                time.sleep(countdown)
            task.apply(args=args)
        except Exception:
            logger.exception("The task running %s failed", what)
        finally:
            db_connections.close_all()  # this thread's connections

    threading.Thread(target=run, name=f"task-{task.name}", daemon=True).start()
