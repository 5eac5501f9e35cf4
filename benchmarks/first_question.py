"""How soon a new session gets its first question, and what dealing one stream costs (issue 36, point 7).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/vtt REDIS_URL=redis://127.0.0.1:6379/0 \
        .venv/bin/python -m benchmarks.first_question [--images 40] [--earlier 30] [--enrolments 5] \
        [--training 2591] [--copied-earlier] [--write]

A published oracle-truthed test of `--images` test images (demo street scenes) is built in a scratch
database (suffix `_first_question`, dropped afterwards): training scenes imported and fitted, the test
truthed by the oracle in this process (no second opinions: nothing waits for an operator) and published. Then `--earlier` sessions of other owners are
enrolled and dealt by a real dealer worker (`scripts/serve.sh dealer`, on queues of its own), one after
another, so that the new deals' exposure reads as many earlier streams as a busy test has; with
`--copied-earlier` those earlier sessions are instead written directly, each a deal whose streams are
copies of the test's own streams (at 1,000 images, thirty real deals would take hours; what a new deal
reads of them is the same rows: the steps of the latest dealt streams of each image).

Then `--enrolments` new sessions enrol one at a time, each once the dealer is idle; for each, the time
from the enrolment's commit until `GET .../question/` (the API, in this process) first answers 200, and
once its deal is done, the deal's seconds per stream. Target: the first question within 2 s of
enrolment, at 40 and at 1,000 test images. `--write` puts the result in its section of
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vtt_site.settings")
django.setup()

from django.conf import settings  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.test.utils import override_settings  # noqa: E402
from rest_framework.test import APIClient  # noqa: E402

from accounts.roles import Role  # noqa: E402
from accounts.services import user_create_with_role  # noqa: E402
from annotations.models import Split  # noqa: E402
from annotations.services.collections import collection_create  # noqa: E402
from annotations.services.vocabularies import vocabulary_install_default  # noqa: E402
from benchmarks.report import commit, machine, write_section  # noqa: E402
from benchmarks.truthing_speed import NO_CHECKS, import_scenes, start_process, stop_workers, worker_env  # noqa: E402
from demo.synthetic import generate_scenes  # noqa: E402
from engine import services as engine_services  # noqa: E402
from evaluation.services.sessions import session_enrol  # noqa: E402
from evaluation.services.systems import system_create, system_token_create  # noqa: E402
from truthing.models import AutomaticTruthing, Deal, DealtStream, Step, Stream  # noqa: E402
from truthing.services import lifecycle  # noqa: E402
from truthing.services.automatic import automatic_truthing_run  # noqa: E402
from vtt_site.celery import app as celery_app  # noqa: E402
from vtt_site.celery import queues_use  # noqa: E402
from vtt_site.job_model import JobStatus  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEAL_LIMIT = 7200.0  # seconds a deal may take before the run gives up


def main() -> None:
    parser = published_test_arguments(__doc__, images=40)
    parser.add_argument("--enrolments", type=int, default=5)
    parser.add_argument("--copied-earlier", action="store_true", help="write the earlier deals as copies")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    result = in_scratch_database("first_question", lambda folder, name, queue: run(args, folder, name, queue))
    report = render(result, args)
    print(report)
    if args.write:
        write_section(f"first-question-{args.images}", report)


def published_test_arguments(description: str | None, *, images: int) -> argparse.ArgumentParser:
    """The options of the published test and its earlier sessions (`published_test`)."""
    parser = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--images", type=int, default=images)
    parser.add_argument("--earlier", type=int, default=30)
    parser.add_argument("--training", type=int, default=2591)
    return parser


def in_scratch_database(suffix: str, work: Callable[[Path, str, str], dict]) -> dict:
    """`work(folder, database name, queue)` on a scratch database (the configured one's name with
    `suffix`, dropped afterwards) and a temporary folder, this process's tasks sent to queues of their
    own (`queue`, `queue-proposals`, `queue-deals`) for the workers it starts."""
    if not settings.REDIS_URL or connection.vendor != "postgresql":
        sys.exit("Needs DATABASE_URL (PostgreSQL) and REDIS_URL: the point is real dealer workers.")
    database = connection.settings_dict
    database["TEST"] = {**database.get("TEST", {}), "NAME": f"{database['NAME']}_{suffix}"}
    scratch = connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    queue = f"{suffix.replace('_', '-')}-{uuid.uuid4().hex[:8]}"
    celery_app.conf.task_always_eager = False
    queues_use(queue, f"{queue}-proposals", f"{queue}-deals")
    try:
        with (
            tempfile.TemporaryDirectory() as folder,
            override_settings(MEDIA_ROOT=Path(folder) / "media", **NO_CHECKS),
        ):
            return work(Path(folder), scratch, queue)
    finally:
        connection.close()
        connection.creation.destroy_test_db(scratch, verbosity=0)


def run(args, folder: Path, database_name: str, queue: str) -> dict:
    started = time.perf_counter()
    test = published_test(args, folder)
    setup = time.perf_counter() - started
    print(f"published a test of {args.images} images in {setup:.0f} s", file=sys.stderr)
    env = {**worker_env(folder, database_name, queue), "CELERY_DEAL_QUEUE": f"{queue}-deals"}
    dealer = start_process([str(ROOT / "scripts/serve.sh"), "dealer"], env, folder / "dealer.log")
    try:
        started = time.perf_counter()
        if args.copied_earlier:
            copy_earlier_deals(test, args.earlier)
        else:
            for n in range(args.earlier):
                enrol_and_time(test, f"earlier-{n}")
        earlier_seconds = time.perf_counter() - started
        print(f"{args.earlier} earlier sessions in {earlier_seconds:.0f} s", file=sys.stderr)
        timings = [enrol_and_time(test, f"new-{n}") for n in range(args.enrolments)]
    finally:
        stop_workers([dealer])
    return {
        "setup": setup,
        "earlier_seconds": earlier_seconds,
        "timings": timings,
        "streams": test.test_images.count(),
        "database": f"{connection.display_name} {connection.get_database_version()[0]}",
    }


def published_test(args, folder: Path):
    """The collection, its fit and the test truthed by the oracle in this process, published."""
    vocabulary, _ = vocabulary_install_default()
    collection = collection_create(name="first question", vocabulary=vocabulary)
    import_scenes(collection, generate_scenes(args.training, seed=1), folder, Split.TRAIN, True)
    import_scenes(collection, generate_scenes(args.images, seed=2, prefix="test"), folder, Split.TEST, True)
    statistics_row = engine_services.statistics_fit_start(user=None, collections=[collection])
    engine_services.statistics_fit_run(statistics_id=statistics_row.pk)
    statistics_row.refresh_from_db()
    image_ids = list(collection.images.filter(split=Split.TEST).values_list("pk", flat=True))
    with transaction.atomic():
        test = lifecycle.create_test(name="oracle", statistics=statistics_row, image_ids=image_ids, seed=1)
        lifecycle.start_test(test=test)
    for job in AutomaticTruthing.objects.filter(test=test):
        if automatic_truthing_run(job_id=job.pk).status != "done":
            sys.exit("the automatic truthing failed")
    return lifecycle.publish_test(test=test)


def copy_earlier_deals(test, count: int) -> None:
    """`count` done deals whose streams are copies of the test's own streams (with their steps)."""
    own = list(Stream.objects.filter(test_image__test=test).order_by("test_image__position"))
    steps = {s.pk: list(Step.objects.filter(stream=s).order_by("index")) for s in own}
    owner = user_create_with_role(username="earlier", password=None, role=Role.VISION_SYSTEM_OWNER)
    for n in range(count):
        with transaction.atomic():
            deal = Deal.objects.create(
                test=test, owner=owner, seed=n, status=JobStatus.DONE, streams_total=len(own), progress=1.0
            )
            copies = Stream.objects.bulk_create(
                Stream(test_image_id=s.test_image_id, deal=deal, state=s.state, number=0) for s in own
            )
            Step.objects.bulk_create(
                Step(**{**_fields(step), "stream_id": copy.pk})
                for original, copy in zip(own, copies, strict=True)
                for step in steps[original.pk]
            )
            DealtStream.objects.bulk_create(
                DealtStream(deal=deal, position=i, test_image_id=c.test_image_id, stream=c)
                for i, c in enumerate(copies)
            )


def _fields(step: Step) -> dict:
    return {
        f.attname: getattr(step, f.attname)
        for f in Step._meta.concrete_fields
        if f.attname not in ("id", "stream_id")
    }


def enrol_and_time(test, name: str) -> dict:
    """Enrol a new system of a new owner, wait for its first question over the API, then for its deal
    to be done: the seconds to the first question and per stream dealt."""
    owner = user_create_with_role(username=name, password=None, role=Role.VISION_SYSTEM_OWNER)
    system = system_create(owner=owner, name=name)
    client = APIClient(SERVER_NAME="localhost")
    client.credentials(HTTP_AUTHORIZATION=f"Token {system_token_create(system=system, name='run')[1]}")
    with transaction.atomic():
        session = session_enrol(system=system, test_id=test.pk)
    enrolled = time.perf_counter()  # the deal's job is queued on this commit
    url = f"/api/v1/evaluation/sessions/{session.pk}/question/"
    while (status := client.get(url).status_code) != 200:
        if status != 409 or time.perf_counter() - enrolled > DEAL_LIMIT:
            sys.exit(f"no first question: {status} {time.perf_counter() - enrolled:.0f} s after enrolment")
        time.sleep(0.01)
    first = time.perf_counter() - enrolled
    assert session.deal_id is not None  # every session of an oracle-truthed test is dealt
    deal = Deal.objects.get(pk=session.deal_id)
    while deal.status not in (JobStatus.DONE, JobStatus.FAILED):
        time.sleep(0.05)
        deal.refresh_from_db()
    if deal.status == JobStatus.FAILED:
        sys.exit(f"a deal failed: {deal.message}")
    assert deal.started_at is not None and deal.finished_at is not None
    dealing = (deal.finished_at - deal.started_at).total_seconds()
    return {
        "first": first,
        "queued": (deal.started_at - deal.created_at).total_seconds(),
        "per_stream": dealing / max(deal.streams_total, 1),
        "deal": dealing,
    }


def render(result: dict, args) -> str:
    timings = result["timings"]
    firsts = [t["first"] for t in timings]
    per_stream = [t["per_stream"] for t in timings]
    earlier = (
        f"{args.earlier} earlier sessions written as copies of the test's own streams"
        if args.copied_earlier
        else f"{args.earlier} earlier sessions dealt by the dealer first ({result['earlier_seconds']:.0f} s)"
    )
    command = (
        f"python -m benchmarks.first_question --images {args.images} --earlier {args.earlier} "
        f"--enrolments {args.enrolments} --training {args.training}"
        + (" --copied-earlier" if args.copied_earlier else "")
    )
    rows = "\n".join(
        f"| {i + 1} | {t['first']:.2f} | {t['queued']:.2f} | {t['per_stream'] * 1000:.0f} | {t['deal']:.1f} |"
        for i, t in enumerate(timings)
    )
    verdict = "met" if max(firsts) <= 2.0 else "NOT met"
    return f"""## The first question of a new session: {result["streams"]:,} test images (issue 36, point 7)

Command: `{command}` at commit {commit()}, {machine()}, {result["database"]}, a real dealer
worker (`scripts/serve.sh dealer`, one process). A published test of {result["streams"]} oracle-truthed
images; {earlier}. Each new session enrols once the dealer is idle.

| enrolment | first question (s after enrolment) | deal queued (s) | per stream (ms) | whole deal (s) |
|---|---|---|---|---|
{rows}

First question: median {statistics.median(firsts):.2f} s, at most {max(firsts):.2f} s (target 2 s: {verdict}).
Dealing one stream: median {statistics.median(per_stream) * 1000:.0f} ms. Set-up (import, fit, truthing)
{result["setup"]:.0f} s, not part of the figures.
"""


if __name__ == "__main__":
    main()
