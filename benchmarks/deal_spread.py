"""A deal spread over dealer processes (issue 51, point 2): the wall time of one session's deal with 1
and with 2 dealer processes, on PostgreSQL.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/vtt REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python -m benchmarks.deal_spread [--images 1000] [--earlier 30] [--training 2591] \\
        [--dealers 1,2] [--rounds 1] [--write]

A published oracle-truthed test of `--images` test images is built in a scratch database (suffix
`_deal_spread`, dropped afterwards) as benchmarks.first_question builds it, with `--earlier` earlier
sessions written as copies of the test's own streams (what a new deal's exposure reads). Then, for each
round and each count n of `--dealers`, a real dealer worker is started as the service starts it
(`scripts/serve.sh dealer` with DEALER_CONCURRENCY=n processes and TRUTHING_DEALERS=n), one new session
enrols, and the deal is timed from the enrolment's commit until its job is done; the worker is stopped.
Also: when its first stream could be asked (the deal's plan has one), and the CPU seconds of the dealer
processes. Target: with 2 processes at most 0.6 of the time with 1 (on 2 cores). The figure is only as
good as the machine is quiet: the load average before and after is reported. `--write` puts the result
in its section of docs/benchmarks.md.
"""

from __future__ import annotations

import os
import re
import statistics
import sys
import time
from pathlib import Path

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vtt_site.settings")
django.setup()

import psutil  # noqa: E402
from django.db import connection, transaction  # noqa: E402

from accounts.roles import Role  # noqa: E402
from accounts.services import user_create_with_role  # noqa: E402
from benchmarks.first_question import (  # noqa: E402
    DEAL_LIMIT,
    ROOT,
    copy_earlier_deals,
    in_scratch_database,
    published_test,
    published_test_arguments,
)
from benchmarks.report import commit, machine, write_section  # noqa: E402
from benchmarks.truthing_speed import start_process, stop_workers, worker_env  # noqa: E402
from evaluation.services.sessions import session_enrol  # noqa: E402
from evaluation.services.systems import system_create  # noqa: E402
from truthing.models import Deal, DealtStream  # noqa: E402
from vtt_site.job_model import JobStatus  # noqa: E402

TARGET = 0.6
# A helper's task returns how many streams it wrote; the worker logs it.
HELPED = re.compile(r"truthing\.tasks\.deal_help\[[^\]]+\] succeeded in [0-9.e-]+s: (\d+)")


def main() -> None:
    parser = published_test_arguments(__doc__, images=1000)
    parser.add_argument("--dealers", default="1,2", help="dealer process counts, in the order run")
    parser.add_argument("--rounds", type=int, default=1, help="each count this many times, interleaved")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    args.counts = [int(n) for n in args.dealers.split(",")]
    result = in_scratch_database("deal_spread", lambda folder, name, queue: run(args, folder, name, queue))
    report = render(result, args)
    print(report)
    if args.write:
        write_section("deal-spread", report)


def run(args, folder: Path, database_name: str, queue: str) -> dict:
    started = time.perf_counter()
    test = published_test(args, folder)
    copy_earlier_deals(test, args.earlier)
    setup = time.perf_counter() - started
    print(f"published a test of {args.images} images in {setup:.0f} s", file=sys.stderr)
    env = {**worker_env(folder, database_name, queue), "CELERY_DEAL_QUEUE": f"{queue}-deals"}
    load_before = os.getloadavg()
    deals = []
    for round_ in range(args.rounds):
        for count in args.counts:
            deals.append({"dealers": count, **timed_deal(test, env, folder, count, f"r{round_}-d{count}")})
            print(f"{count} dealers: {deals[-1]['seconds']:.1f} s", file=sys.stderr)
    return {
        "setup": setup,
        "deals": deals,
        "load": (load_before, os.getloadavg()),
        "database": f"{connection.display_name} {connection.get_database_version()[0]}",
    }


def timed_deal(test, env: dict[str, str], folder: Path, count: int, name: str) -> dict:
    """Start a dealer worker of `count` processes, enrol one session, time its deal, stop the worker."""
    env = {**env, "DEALER_CONCURRENCY": str(count), "TRUTHING_DEALERS": str(count)}
    log = folder / f"dealer-{name}.log"
    dealer = start_process([str(ROOT / "scripts/serve.sh"), "dealer"], env, log)
    try:
        owner = user_create_with_role(username=name, password=None, role=Role.VISION_SYSTEM_OWNER)
        system = system_create(owner=owner, name=name)
        with transaction.atomic():
            session = session_enrol(system=system, test_id=test.pk)
        enrolled = time.perf_counter()
        first = None
        assert session.deal_id is not None  # every session of an oracle-truthed test is dealt
        deal = Deal.objects.get(pk=session.deal_id)
        while deal.status not in (JobStatus.DONE, JobStatus.FAILED):
            if (
                first is None
                and DealtStream.objects.filter(deal=deal, position=0, stream__isnull=False).exists()
            ):
                first = time.perf_counter() - enrolled
            if time.perf_counter() - enrolled > DEAL_LIMIT:
                sys.exit(f"the deal took more than {DEAL_LIMIT:.0f} s")
            time.sleep(0.05)
            deal.refresh_from_db()
        seconds = time.perf_counter() - enrolled
        cpu = dealer_cpu(dealer.pid)
    finally:
        stop_workers([dealer])
    if deal.status == JobStatus.FAILED:
        sys.exit(f"a deal failed: {deal.message}")
    helped = sum(int(n) for n in HELPED.findall(log.read_text()))
    return {
        "seconds": seconds,
        "first": first or seconds,
        "streams": deal.streams_total,
        "cpu": cpu,
        "helped": helped,
    }


def dealer_cpu(pid: int) -> tuple[float, float]:
    """The CPU seconds (user and system) of the dealer worker's processes so far: all of them, and the
    busiest one's (on cores nothing else needs, the deal takes about as long as that one)."""
    processes = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
    seconds = [sum(p.cpu_times()[:2]) for p in processes]
    return sum(seconds), max(seconds)


def render(result: dict, args) -> str:
    deals = result["deals"]
    by_count = {n: [d["seconds"] for d in deals if d["dealers"] == n] for n in args.counts}
    rows = "\n".join(
        f"| {d['dealers']} | {d['streams']} | {d['seconds']:.1f} | {d['seconds'] / d['streams'] * 1000:.0f} "
        f"| {d['first']:.2f} | {d['helped']} | {d['cpu'][0]:.0f} | {d['cpu'][1]:.0f} |"
        for d in deals
    )
    command = (
        f"python -m benchmarks.deal_spread --images {args.images} --earlier {args.earlier} "
        f"--training {args.training} --dealers {args.dealers} --rounds {args.rounds}"
    )
    (before, after) = result["load"]
    verdict = ""
    if 1 in by_count and 2 in by_count:
        ratio = statistics.median(by_count[2]) / statistics.median(by_count[1])
        met = "met" if ratio <= TARGET else "NOT met"
        verdict = (
            f"With 2 dealer processes the deal took {ratio:.2f} of its time with 1 (target {TARGET}: {met})."
        )
    return f"""## A deal spread over dealer processes: {deals[0]["streams"]:,} test images (issue 51, point 2)

Command: `{command}` at commit {commit()}, {machine()}, {result["database"]}; load average
{before[0]:.1f} / {before[1]:.1f} / {before[2]:.1f} before the deals, {after[0]:.1f} / {after[1]:.1f} /
{after[2]:.1f} after them. A published test of {deals[0]["streams"]} oracle-truthed images, {args.earlier}
earlier sessions written as copies of the test's own streams; for each deal a real dealer worker
(`scripts/serve.sh dealer`) with n processes and `TRUTHING_DEALERS=n`, one session enrolled, timed from
the enrolment's commit until the deal's job is done.

| dealer processes | streams | whole deal (s) | per stream (ms) | first stream (s) | written by helpers | dealer CPU (s) | busiest process CPU (s) |
|---|---|---|---|---|---|---|---|
{rows}

{verdict} Set-up (import, fit, truthing) {result["setup"]:.0f} s, not part of the figures.
"""


if __name__ == "__main__":
    main()
