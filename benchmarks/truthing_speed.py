"""Truthing speed with a real Celery worker on PostgreSQL and Redis (issue 8).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/vtt REDIS_URL=redis://127.0.0.1:6379/0 \
        .venv/bin/python -m benchmarks.truthing_speed [--training 2591] [--answers 200] [--automatic 1000] [--write]

1. Answer -> next question: an operator answers pending questions through the service (as the API
   does); the time is from the answer's commit until the next step is in the database (proposed by the
   worker: a task queued on commit, the stream resumed from its stored answers, the question
   proposed). The page shows it on its next poll (every 250 ms), which is not part of the figure.
2. Automatic truthing of `--automatic` annotated test images: the oracle's job, run by the worker; wall
   time and streams per second.

Everything runs in a scratch database (suffix `_truthing_benchmark`) dropped afterwards, with its own
Celery queue. Training scenes are imported with the import service and fitted in this process (not
part of the figures). `--write` puts the result in its section of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
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
from annotations.formats import jsonl_line  # noqa: E402
from annotations.models import MemberRole, Split  # noqa: E402
from annotations.services.collections import collection_create, membership_set  # noqa: E402
from annotations.services.imports import import_create, import_run  # noqa: E402
from annotations.services.vocabularies import vocabulary_install_default  # noqa: E402
from benchmarks.report import commit, machine, write_section  # noqa: E402
from demo.synthetic import generate_scenes  # noqa: E402
from engine import services as engine_services  # noqa: E402
from truthing.models import AutomaticTruthing, Stream, StreamState  # noqa: E402
from truthing.services import lifecycle  # noqa: E402
from truthing.services.queue import operator_next  # noqa: E402
from truthing.services.streams import step_answer  # noqa: E402
from vtt_site.celery import app as celery_app  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--training", type=int, default=2591)
    parser.add_argument("--answers", type=int, default=200)
    parser.add_argument("--automatic", type=int, default=1000)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    if not settings.REDIS_URL or connection.vendor != "postgresql":
        sys.exit("Needs DATABASE_URL (PostgreSQL) and REDIS_URL: the point is a real worker.")
    database = connection.settings_dict
    database["TEST"] = {**database.get("TEST", {}), "NAME": f"{database['NAME']}_truthing_benchmark"}
    scratch = connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    try:
        with (
            tempfile.TemporaryDirectory() as folder,
            override_settings(
                MEDIA_ROOT=Path(folder) / "media", VTT={**settings.VTT, "ENGINE_DIR": Path(folder) / "engine"}
            ),
        ):
            result = run(args, Path(folder), scratch)
    finally:
        connection.close()
        connection.creation.destroy_test_db(scratch, verbosity=0)
    report = render(result, args)
    print(report)
    if args.write:
        write_section(f"truthing-speed-{args.training}", report)


def import_scenes(collection, scenes, folder: Path, split: str, reviewed: bool) -> None:
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


def start_worker(folder: Path, database_name: str, queue: str) -> subprocess.Popen:
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{database_name}",
        "CELERY_QUEUE": queue,
        "VAR_DIR": str(folder / "var"),
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),
        "ENGINE_DIR": str(settings.VTT["ENGINE_DIR"]),
    }
    log = (folder / "worker.log").open("w")
    process = subprocess.Popen(
        [
            str(Path(sys.executable).parent / "celery"),
            "-A",
            "vtt_site",
            "worker",
            "--concurrency",
            "2",
            "--queues",
            queue,
            "--without-gossip",
            "--without-mingle",
            "--loglevel",
            "warning",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    time.sleep(6)  # ready (the worker logs at warning level only)
    return process


def wait_proposed(stream: Stream, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if Stream.objects.filter(pk=stream.pk).exclude(state=StreamState.PROPOSING).exists():
            return
        time.sleep(0.002)
    sys.exit(f"stream {stream.pk} still proposing after {timeout} s")


def run(args, folder: Path, database_name: str) -> dict:
    vocabulary, _ = vocabulary_install_default()
    collection = collection_create(name="truthing benchmark", vocabulary=vocabulary)
    started = time.perf_counter()
    import_scenes(collection, generate_scenes(args.training, seed=1), folder, Split.TRAIN, True)
    blind = max(20, args.answers // 10)
    import_scenes(collection, generate_scenes(blind, seed=3, prefix="blind"), folder, Split.TEST, False)
    import_scenes(
        collection, generate_scenes(args.automatic, seed=2, prefix="test"), folder, Split.TEST, True
    )
    statistics_row = engine_services.statistics_fit_start(user=None, collections=[collection])
    engine_services.statistics_fit_run(statistics_id=statistics_row.pk)
    statistics_row.refresh_from_db()
    setup = time.perf_counter() - started

    queue = f"truthing-bench-{uuid.uuid4().hex[:8]}"
    celery_app.conf.task_always_eager = False
    celery_app.conf.task_default_queue = queue
    celery_app.amqp.__dict__.pop("queues", None)
    worker = start_worker(folder, database_name, queue)
    try:
        operator = user_create_with_role(
            username="bench-operator", password=uuid.uuid4().hex, role=Role.OPERATOR
        )
        membership_set(collection=collection, user_id=operator.pk, role=MemberRole.OPERATOR)
        test_images = collection.images.filter(split=Split.TEST)
        blind_ids = list(test_images.filter(original_name__startswith="blind").values_list("pk", flat=True))
        with transaction.atomic():
            operator_test = lifecycle.test_create(
                name="operators", statistics=statistics_row, image_ids=blind_ids, seed=1
            )
            lifecycle.test_start(test=operator_test)
        latencies = answer_until(operator, args.answers)
        if not latencies:
            sys.exit("the operator got no work")

        auto_ids = list(test_images.filter(original_name__startswith="test").values_list("pk", flat=True))
        with transaction.atomic():
            auto_test = lifecycle.test_create(
                name="oracle", statistics=statistics_row, image_ids=auto_ids, seed=1
            )
            started = time.perf_counter()
            lifecycle.test_start(test=auto_test)
        jobs = AutomaticTruthing.objects.filter(test=auto_test)
        while jobs.exclude(status__in=["done", "failed"]).exists():
            time.sleep(0.2)
        automatic_seconds = time.perf_counter() - started
        if jobs.filter(status="failed").exists():
            sys.exit(f"automatic truthing failed: {[j.message for j in jobs]}")
    finally:
        worker.terminate()
        worker.wait(timeout=30)
    return {
        "setup": setup,
        "latencies": latencies,
        "automatic_seconds": automatic_seconds,
        "automatic_streams": sum(job.streams_total for job in jobs),
        "database": f"{connection.display_name} {connection.get_database_version()[0]}",
    }


def answer_until(operator, count: int) -> list[float]:
    rng = np.random.default_rng(5)
    latencies: list[float] = []
    stream = None
    while len(latencies) < count:
        if stream is None or stream.state == StreamState.ENDED:
            stream = operator_next(user=operator)
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
