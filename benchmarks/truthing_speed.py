"""Truthing speed with a real Celery worker on PostgreSQL and Redis (issue 8).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/vtt REDIS_URL=redis://127.0.0.1:6379/0 \
        .venv/bin/python -m benchmarks.truthing_speed [--training 2591] [--answers 200] [--automatic 1000] [--write]
    ... -m benchmarks.truthing_speed --operators 16 --seconds 60 [--layout service|shared] [--write]

1. Answer -> next question: an operator answers pending questions through the service (as the API
   does); the time is from the answer's commit until the next step is in the database (proposed by the
   worker: a task queued on commit, the stream resumed from its stored answers, the question
   proposed). The page shows it on its next poll (every 250 ms), which is not part of the figure.
2. Automatic truthing of `--automatic` annotated test images: the oracle's job, run by the worker; wall
   time and streams per second.

With `--operators N` it measures instead what issue 22 asks, in one run: N operators (threads, each
with its own database connection) answer for `--seconds`, each thinking `--think` seconds (uniform
between half and one and a half times) before each answer; first with nothing else running, then while
a long job runs (the automatic truthing of `--automatic` annotated images). The figure is the same
answer -> next question time. The workers are the service's own (`scripts/serve.sh worker` and
`scripts/serve.sh proposer`: `--layout service`), or one worker with two processes taking every queue,
as before issue 22 (`--layout shared`).

Everything runs in a scratch database (suffix `_truthing_benchmark`) dropped afterwards, with its own
Celery queue. Training scenes are imported with the import service and fitted in this process (not
part of the figures). `--write` puts the result in its section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vtt_site.settings")
django.setup()

import numpy as np  # noqa: E402
from django.conf import settings  # noqa: E402
from django.core.files import File  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.test.utils import override_settings  # noqa: E402

from accounts.roles import Role  # noqa: E402
from accounts.services import user_create_with_role  # noqa: E402
from annotations.models import MemberRole, Split  # noqa: E402
from annotations.services.collections import collection_create, membership_set  # noqa: E402
from annotations.services.vocabularies import vocabulary_install_default  # noqa: E402
from benchmarks.report import commit, machine, write_section  # noqa: E402
from datasets.formats import jsonl_line  # noqa: E402
from datasets.services.creation import import_create  # noqa: E402
from datasets.services.run import import_run  # noqa: E402
from demo.services import scene_pictures_upload  # noqa: E402
from demo.synthetic import generate_scenes  # noqa: E402
from engine import services as engine_services  # noqa: E402
from truthing.models import AutomaticTruthing, Stream, StreamState  # noqa: E402
from truthing.services import lifecycle  # noqa: E402
from truthing.services.queue import operator_next  # noqa: E402
from truthing.services.streams import step_answer  # noqa: E402
from vtt_site.celery import app as celery_app  # noqa: E402
from vtt_site.celery import queues_use  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--training", type=int, default=2591)
    parser.add_argument("--answers", type=int, default=200)
    parser.add_argument("--automatic", type=int, default=1000)
    parser.add_argument("--operators", type=int, default=0, help="operators answering at once (0: one)")
    parser.add_argument("--seconds", type=float, default=60.0, help="how long each phase lasts")
    parser.add_argument("--think", type=float, default=1.0, help="an operator's mean time to answer")
    parser.add_argument("--layout", choices=["service", "shared"], default="service")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    if not settings.REDIS_URL or connection.vendor != "postgresql":
        sys.exit("Needs DATABASE_URL (PostgreSQL) and REDIS_URL: the point is a real worker.")
    database = connection.settings_dict
    database["TEST"] = {**database.get("TEST", {}), "NAME": f"{database['NAME']}_truthing_benchmark"}
    scratch = connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    queue = f"truthing-bench-{uuid.uuid4().hex[:8]}"  # queues of its own, from the first task it sends
    celery_app.conf.task_always_eager = False
    queues_use(queue, f"{queue}-proposals")
    try:
        with (
            tempfile.TemporaryDirectory() as folder,
            override_settings(
                MEDIA_ROOT=Path(folder) / "media",
                **NO_CHECKS,
            ),
        ):
            result = (run_operators if args.operators else run)(args, Path(folder), scratch, queue)
    finally:
        connection.close()
        connection.creation.destroy_test_db(scratch, verbosity=0)
    report = (render_operators if args.operators else render)(result, args)
    print(report)
    if args.write:
        name = f"truthing-operators-{args.layout}" if args.operators else f"truthing-speed-{args.training}"
        write_section(name, report)


# Test images' pictures are uploaded this many at a time (an upload takes a bounded number of files).
PICTURES_PER_UPLOAD = 100


def import_scenes(collection, scenes, folder: Path, split: str, reviewed: bool) -> None:
    """Scene graphs through the import service; test images get their pixels first (drawings of their
    scenes), since a test takes only images with pixels."""
    scenes = list(scenes)
    if split == Split.TEST:
        for start in range(0, len(scenes), PICTURES_PER_UPLOAD):
            scene_pictures_upload(
                collection=collection, scenes=scenes[start : start + PICTURES_PER_UPLOAD], split=split
            )
    path = folder / f"{uuid.uuid4().hex}.jsonl"
    with path.open("w") as handle:
        handle.writelines(jsonl_line(scene) for scene in scenes)
    with path.open("rb") as handle:
        job = import_create(
            collection=collection,
            format="jsonl",
            file=File(handle, name=path.name),
            split=split,
            mark_reviewed=reviewed,
            start=False,
        )
    if import_run(job_id=job.pk).status != "done":
        sys.exit("the import failed")


# How long an operator waits for a next question before giving up (the phase's figure is then a bound).
WAIT_LIMIT = 120.0
# Operators only: no second opinions or gold work in their queue (what they answer is streams).
NO_CHECKS = {"TRUTHING_CHECK_SHARE": 0.0, "TRUTHING_GOLD_SHARE": 0.0}


def worker_env(folder: Path, database_name: str, queue: str) -> dict[str, str]:
    db = connection.settings_dict
    return {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{database_name}",
        "CELERY_QUEUE": queue,
        "CELERY_PROPOSAL_QUEUE": f"{queue}-proposals",
        "VAR_DIR": str(folder / "var"),
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),
        "BIN": str(Path(sys.executable).parent),
        **{name: str(value) for name, value in NO_CHECKS.items()},
    }


def start_worker(folder: Path, database_name: str, queue: str) -> subprocess.Popen:
    """One worker with two processes taking every queue (the layout before issue 22)."""
    env = worker_env(folder, database_name, queue)
    command = [
        str(Path(sys.executable).parent / "celery"),
        "-A",
        "vtt_site",
        "worker",
        "--concurrency",
        "2",
        "--queues",
        f"{queue},{queue}-proposals",
        "--without-gossip",
        "--without-mingle",
        "--loglevel",
        "info",
    ]
    return start_process(command, env, folder / "worker.log")


def start_process(command: list[str], env: dict[str, str], log_path: Path) -> subprocess.Popen:
    log = log_path.open("w")
    process = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    deadline = time.monotonic() + 60
    while "ready." not in log_path.read_text():
        if time.monotonic() > deadline or process.poll() is not None:
            sys.exit(f"the worker did not start:\n{log_path.read_text()[-2000:]}")
        time.sleep(0.2)
    return process


def start_workers(folder: Path, database_name: str, queue: str, layout: str) -> list[subprocess.Popen]:
    """The workers of `layout` (this process's tasks already go to their queues: `queues_use`)."""
    if layout == "shared":
        return [start_worker(folder, database_name, queue)]
    env = worker_env(folder, database_name, queue)
    return [
        start_process([str(ROOT / "scripts/serve.sh"), role], env, folder / f"{role}.log")
        for role in ("worker", "proposer")
    ]


def stop_workers(workers: list[subprocess.Popen]) -> None:
    """Stop them, and their running task: the scratch database is dropped next."""
    for worker in workers:
        os.killpg(worker.pid, signal.SIGKILL)
    for worker in workers:
        worker.wait(timeout=60)


def wait_proposed(stream: Stream, timeout: float = 60, poll: float = 0.002, give_up: bool = False) -> bool:
    """Until the stream has its next question (True); after `timeout`, False if `give_up`, else exit."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if Stream.objects.filter(pk=stream.pk).exclude(state=StreamState.PROPOSING).exists():
            return True
        time.sleep(poll)
    if give_up:
        return False
    sys.exit(f"stream {stream.pk} still proposing after {timeout} s")


def prepare(args, folder: Path, blind: int):
    """The collection (training, blind and annotated test images) and its fitted statistics, in this
    process; and how long that took."""
    vocabulary, _ = vocabulary_install_default()
    collection = collection_create(name="truthing benchmark", vocabulary=vocabulary)
    started = time.perf_counter()
    import_scenes(collection, generate_scenes(args.training, seed=1), folder, Split.TRAIN, True)
    import_scenes(collection, generate_scenes(blind, seed=3, prefix="blind"), folder, Split.TEST, False)
    import_scenes(
        collection, generate_scenes(args.automatic, seed=2, prefix="test"), folder, Split.TEST, True
    )
    statistics_row = engine_services.statistics_fit_start(user=None, collections=[collection])
    engine_services.statistics_fit_run(statistics_id=statistics_row.pk)
    statistics_row.refresh_from_db()
    return collection, statistics_row, time.perf_counter() - started


def a_test(name: str, statistics_row, image_ids: list[int]):
    with transaction.atomic():
        test = lifecycle.create_test(name=name, statistics=statistics_row, image_ids=image_ids, seed=1)
        lifecycle.start_test(test=test)
    return test


def run(args, folder: Path, database_name: str, queue: str) -> dict:
    collection, statistics_row, setup = prepare(args, folder, blind=max(20, args.answers // 10))
    workers = start_workers(folder, database_name, queue, "shared")
    try:
        operator = user_create_with_role(
            username="bench-operator", password=uuid.uuid4().hex, role=Role.OPERATOR
        )
        membership_set(collection=collection, user_id=operator.pk, role=MemberRole.OPERATOR)
        test_images = collection.images.filter(split=Split.TEST)
        blind_ids = list(test_images.filter(original_name__startswith="blind").values_list("pk", flat=True))
        a_test("operators", statistics_row, blind_ids)
        latencies = answer_until(operator, args.answers)
        if not latencies:
            sys.exit("the operator got no work")

        auto_ids = list(test_images.filter(original_name__startswith="test").values_list("pk", flat=True))
        with transaction.atomic():
            auto_test = lifecycle.create_test(
                name="oracle", statistics=statistics_row, image_ids=auto_ids, seed=1
            )
            started = time.perf_counter()
            lifecycle.start_test(test=auto_test)
        jobs = AutomaticTruthing.objects.filter(test=auto_test)
        while jobs.exclude(status__in=["done", "failed"]).exists():
            time.sleep(0.2)
        automatic_seconds = time.perf_counter() - started
        if jobs.filter(status="failed").exists():
            sys.exit(f"automatic truthing failed: {[j.message for j in jobs]}")
    finally:
        stop_workers(workers)
    return {
        "setup": setup,
        "latencies": latencies,
        "automatic_seconds": automatic_seconds,
        "automatic_streams": sum(job.streams_total for job in jobs),
        "database": f"{connection.display_name} {connection.get_database_version()[0]}",
    }


def next_stream(operator) -> Stream | None:
    """The operator's next stream, None when there is none: checks are turned off here (NO_CHECKS), and
    one would not be the streams this benchmark times."""
    work = operator_next(user=operator)
    return work if isinstance(work, Stream) else None


def answer_until(operator, count: int) -> list[float]:
    rng = np.random.default_rng(5)
    latencies: list[float] = []
    stream = None
    while len(latencies) < count:
        if stream is None or stream.state == StreamState.ENDED:
            stream = next_stream(operator)
            if stream is None:
                break
            wait_proposed(stream)
            stream.refresh_from_db()
            continue
        step = stream.steps.get(answer="")
        answer = "yes" if rng.random() < 0.45 else "no"
        with transaction.atomic():
            step_answer(stream_id=stream.pk, user=operator, index=step.index, answer=answer)
        committed = time.perf_counter()
        wait_proposed(stream)
        latencies.append(time.perf_counter() - committed)
        stream.refresh_from_db()
    return latencies


def run_operators(args, folder: Path, database_name: str, queue: str) -> dict:
    """Two phases of `--seconds` each, N operators answering: without, then with a long job running."""
    per_phase = args.operators * args.seconds / (args.think + 0.05)
    collection, statistics_row, setup = prepare(args, folder, blind=max(40, int(per_phase / 10)))
    operators = []
    for number in range(args.operators):
        user = user_create_with_role(
            username=f"operator-{number}", password=uuid.uuid4().hex, role=Role.OPERATOR
        )
        membership_set(collection=collection, user_id=user.pk, role=MemberRole.OPERATOR)
        operators.append(user)
    test_images = collection.images.filter(split=Split.TEST)
    blind_ids = list(test_images.filter(original_name__startswith="blind").values_list("pk", flat=True))
    auto_ids = list(test_images.filter(original_name__startswith="test").values_list("pk", flat=True))
    workers = start_workers(folder, database_name, queue, args.layout)
    try:
        operator_test = a_test("operators", statistics_row, blind_ids)
        first = Stream.objects.filter(test_image__test=operator_test, state=StreamState.PROPOSING)
        while first.exists():  # every stream's first question (a burst of proposals at the start)
            time.sleep(0.2)
        alone = operators_answer(operators, args.seconds, args.think, lambda: True)
        started = time.perf_counter()
        auto_test = a_test("oracle", statistics_row, auto_ids)
        jobs = AutomaticTruthing.objects.filter(test=auto_test)
        running = LongJobWatch(jobs)
        beside = operators_answer(operators, args.seconds, args.think, running.is_on)
        running.stop()
        ran = time.perf_counter() - started
        still_running = jobs.exclude(status__in=["done", "failed"]).exists()
    finally:
        stop_workers(workers)
    return {
        "setup": setup,
        "alone": alone,
        "beside": beside,
        "long_job": f"still running at the end of the phase ({ran:.0f} s after it started)"
        if still_running
        else f"finished {ran:.0f} s after it started, before the end of the phase",
        "automatic_images": len(auto_ids),
        "database": f"{connection.display_name} {connection.get_database_version()[0]}",
    }


class LongJobWatch:
    """Whether the automatic truthing is still running, asked from the operators' threads without a
    query each (one thread polls)."""

    def __init__(self, jobs) -> None:
        self.on, self.done = True, threading.Event()
        self.thread = threading.Thread(target=self.poll, args=(jobs,), daemon=True)
        self.thread.start()

    def poll(self, jobs) -> None:
        try:
            while not self.done.wait(0.2):
                self.on = jobs.exclude(status__in=["done", "failed"]).exists()
        finally:
            connection.close()

    def is_on(self) -> bool:
        return self.on

    def stop(self) -> None:
        self.done.set()
        self.thread.join()


def operators_answer(operators, seconds: float, think: float, counting) -> list[float]:
    """Every operator answers (after thinking) until `seconds` pass; the latencies of the answers given
    while `counting()` held (however long their proposal then took), merged."""
    deadline = time.monotonic() + seconds
    return operators_answer_while(operators, lambda: time.monotonic() < deadline, think, counting)


def operators_answer_while(operators, going, think: float, counting) -> list[float]:
    """Every operator answers (after thinking) while `going()` holds (benchmarks.operator_ui stops them
    when the browser's operator is done); the latencies counted as in `operators_answer`."""
    latencies: list[float] = []
    threads = [
        threading.Thread(target=operator_answers, args=(user, going, think, counting, latencies, n))
        for n, user in enumerate(operators)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies


def operator_answers(user, going, think: float, counting, latencies: list[float], seed: int) -> None:
    rng = np.random.default_rng(seed)
    try:
        stream = None
        while going():
            if stream is None or stream.state == StreamState.ENDED:
                stream = next_stream(user)
                if stream is None:
                    return  # no work left
                if not wait_proposed(stream, timeout=WAIT_LIMIT, poll=0.005, give_up=True):
                    return
                stream.refresh_from_db()
                continue
            time.sleep(think * rng.uniform(0.5, 1.5))
            step = stream.steps.get(answer="")
            with transaction.atomic():
                step_answer(
                    stream_id=stream.pk, user=user, index=step.index, answer=str(rng.choice(["yes", "no"]))
                )
            committed, counted = time.perf_counter(), counting()
            proposed = wait_proposed(stream, timeout=WAIT_LIMIT, poll=0.005, give_up=True)
            if counted:
                latencies.append(time.perf_counter() - committed)  # list.append is atomic
            if not proposed:
                return  # waited WAIT_LIMIT: counted as that (a lower bound), and this operator stops
            stream.refresh_from_db()
    finally:
        connection.close()


def percentiles(latencies: list[float]) -> dict[str, float]:
    ms = sorted(1000 * x for x in latencies)
    if not ms:
        return {"n": 0, "median": float("nan"), "p95": float("nan"), "max": float("nan")}
    return {
        "n": len(ms),
        "median": statistics.median(ms),
        "p95": ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))],
        "max": ms[-1],
    }


def render_operators(result: dict, args) -> str:
    alone, beside = percentiles(result["alone"]), percentiles(result["beside"])
    ratio = beside["p95"] / alone["p95"] if alone["p95"] else float("nan")
    met = beside["p95"] < 250 and ratio <= 1.5
    layout = {
        "service": "the service's workers: `scripts/serve.sh worker` (long jobs, 1 process, niceness 10, "
        f"giving way to pending proposals for up to {settings.LONG_JOB_GIVE_WAY_SECONDS:g} s at a time: "
        "decision 0051) and `scripts/serve.sh proposer` (proposals and sweeps, 1 process)",
        "shared": "one worker with 2 processes taking every queue (the layout before issue 22)",
    }[args.layout]
    return f"""## {args.operators} operators, with and without a long job ({args.layout} layout)

Command: `DATABASE_URL=… REDIS_URL=… python -m benchmarks.truthing_speed --operators {args.operators} --seconds {args.seconds:g} --think {args.think:g} --automatic {args.automatic} --training {args.training} --layout {args.layout}`
(commit {commit()}, {machine()}, {result["database"]}; {layout}).

{args.operators} operators answer for {args.seconds:g} s each phase, thinking {args.think:g} s on average before
each answer; the figure is answer -> next question in the database (the page polls every 250 ms on top).
The long job is the automatic truthing of {result["automatic_images"]:,} annotated images, {result["long_job"]};
the answers given while it ran are counted.

| phase | answers | median | p95 | max |
|---|---|---|---|---|
| nothing else running | {alone["n"]} | {alone["median"]:.0f} ms | **{alone["p95"]:.0f} ms** | {alone["max"]:.0f} ms |
| a long job running | {beside["n"]} | {beside["median"]:.0f} ms | **{beside["p95"]:.0f} ms** | {beside["max"]:.0f} ms |

An operator waits at most {WAIT_LIMIT:.0f} s for a question; an answer that waited that long counts as
{WAIT_LIMIT * 1000:.0f} ms (a lower bound) and that operator stops.

Target: p95 under 250 ms with the long job running, and within 1.5x of the figure without it:
{beside["p95"]:.0f} ms, {ratio:.2f}x: **{"met" if met else "not met"}**.
"""


def render(result: dict, args) -> str:
    ms = sorted(1000 * x for x in result["latencies"])
    p95 = ms[min(len(ms) - 1, round(0.95 * (len(ms) - 1)))] if ms else float("nan")
    target = 250 if args.training <= 10_000 else 500
    rate = result["automatic_streams"] / result["automatic_seconds"]
    return f"""## Truthing speed at {args.training:,} training images

Command: `DATABASE_URL=… REDIS_URL=… python -m benchmarks.truthing_speed --training {args.training} --answers {args.answers} --automatic {args.automatic}`
(commit {commit()}, {machine()}, {result["database"]}, one Celery worker with 2 processes).

- Answer -> next question in the database (task queued on commit, stream resumed from its answers,
  question proposed by the worker), over {len(ms)} answers: median **{statistics.median(ms):.0f} ms**, p95
  **{p95:.0f} ms** (max {ms[-1]:.0f} ms). Target: p95 under {target} ms. The page polls every 250 ms on top.
- Automatic truthing of {result["automatic_streams"]:,} annotated test images by the oracle's job: **{result["automatic_seconds"]:.1f} s**,
  {rate:.1f} streams per second. Target: the 1,000 under 120 s.
- Setting up (generating, importing and fitting the training set; not part of the figures): {result["setup"]:.0f} s.
"""


if __name__ == "__main__":
    main()
