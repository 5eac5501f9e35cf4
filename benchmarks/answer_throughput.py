"""Answer submission through the real stack, against a bare DRF view doing the same row lock, insert and
update, measured in the same run on the same gunicorn server; and a whole session of the demo test taken
by the Python client.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/vtt_eval REDIS_URL=redis://127.0.0.1:6379/0 \
        .venv/bin/python -m benchmarks.answer_throughput [--connections 32] [--seconds 15] [--rounds 2] \
        [--workers 2] [--write]

Needs the published demo street test of 40 images (`manage.py demo_setup` then `manage.py run_baselines
--only always-yes`, which builds it, with the same DATABASE_URL and VAR_DIR and no REDIS_URL: with one,
the fits and truthing wait for a worker) and wrk
(`make wrk` installs Debian's package). It registers fresh benchmark
systems each run (owner `benchmark`); with REDIS_URL it starts a real dealer worker
(`scripts/serve.sh dealer`) and waits until every session's own streams are dealt (each session is dealt
fresh streams, issue 18: without a dealer they would wait for good); it starts gunicorn on a free port with the benchmark settings (no
rate limit to speak of, no enrolment cap; Redis for the throttle counters and the broker when REDIS_URL
is set, as in production), and drives it with wrk (benchmarks/answer_wrk.lua): `--connections` threads
of one keep-alive connection each, each answering its own session's questions in turn. The bare view
and the real endpoint (each answer with its p_yes) take turns, `--rounds` times, so that a machine whose load changes during the run
weighs on both alike. Beside throughput and latency it reports the CPU time each answer costs the
gunicorn workers, their PostgreSQL backends and wrk, which a busy machine changes far less than
throughput. Targets (issue 9): the real endpoint at least 70% of the bare view's throughput, p95 under
50 ms at 32 connections.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vtt_site.settings")
django.setup()

import httpx  # noqa: E402
from django.db import connection  # noqa: E402
from vtt_client import Client  # noqa: E402

from accounts.roles import Role  # noqa: E402
from accounts.services import user_create_with_role  # noqa: E402
from benchmarks.report import commit, machine, write_section  # noqa: E402
from benchmarks.truthing_speed import start_process  # noqa: E402
from evaluation.models import Session  # noqa: E402
from evaluation.selectors.plans import plan_of  # noqa: E402
from evaluation.selectors.streams import open_streams_of  # noqa: E402
from evaluation.services.sessions import session_enrol  # noqa: E402
from evaluation.services.systems import system_create, system_token_create  # noqa: E402
from truthing.models import Deal, Test  # noqa: E402
from vtt_site.job_model import JobStatus  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEMO_TEST = "Demo street test"
WRK_SCRIPT = Path(__file__).resolve().parent / "answer_wrk.lua"
TICKS = os.sysconf("SC_CLK_TCK")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int, workers: int) -> subprocess.Popen:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "benchmarks.bench_settings",
        "API_RATE_TOKEN": "100000000/min",
        "EVALUATION_MAX_SYSTEMS_PER_TEST": "100000",
        "LOG_LEVEL": "WARNING",
        # Each worker keeps its PostgreSQL backend for the whole run, so that the backends' CPU can be read.
        "DB_CONN_MAX_AGE": "3600",
    }
    server = subprocess.Popen(
        [str(ROOT / ".venv/bin/gunicorn"), "benchmarks.bench_wsgi:application", "--bind", f"127.0.0.1:{port}",
         "--workers", str(workers), "--log-level", "warning"],
        cwd=ROOT, env=env,
    )  # fmt: skip
    for _ in range(100):
        try:
            httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1)
            return server
        except httpx.HTTPError:
            time.sleep(0.2)
    server.terminate()
    raise SystemExit("gunicorn did not start")


def start_dealer() -> subprocess.Popen | None:
    """A real dealer worker (`scripts/serve.sh dealer`) on this database and Redis, when REDIS_URL is set:
    every session is dealt its own streams, and with a broker no enrolment deals them in-process."""
    if not os.environ.get("REDIS_URL"):
        return None
    log = Path(tempfile.mkdtemp()) / "dealer.log"
    return start_process([str(ROOT / "scripts/serve.sh"), "dealer"], dict(os.environ), log)


def wait_dealt(sessions: list[tuple[int | None, str]]) -> float:
    """Until every session's deal is done (the run measures answering, not dealing); the seconds waited."""
    started = time.monotonic()
    deals = list(Session.objects.filter(pk__in=[s for s, _ in sessions]).values_list("deal_id", flat=True))
    while Deal.objects.filter(pk__in=deals).exclude(status=JobStatus.DONE).exists():
        if Deal.objects.filter(pk__in=deals, status=JobStatus.FAILED).exists():
            raise SystemExit("a deal failed")
        time.sleep(0.5)
    return time.monotonic() - started


def sessions_for(test: Test, n: int, tag: str, enrol: bool = True) -> list[tuple[int | None, str]]:
    owner = user_create_with_role(username="benchmark", password=None, role=Role.VISION_SYSTEM_OWNER)
    out = []
    stamp = f"{time.time():.0f}"
    from django.test.utils import override_settings

    with override_settings(EVALUATION_MAX_SYSTEMS_PER_TEST=10**6, TOKENS_MAX_PER_USER=10**6):
        for i in range(n):
            system = system_create(owner=owner, name=f"bench {tag} {stamp} {i}")
            session = session_enrol(system=system, test_id=test.pk) if enrol else None
            out.append(
                (
                    session.pk if session else None,
                    system_token_create(system=system, name=f"bench {stamp} {tag} {i}")[1],
                )
            )
    return out


def wrk_path() -> str:
    path = shutil.which("wrk")
    if path is None:
        raise SystemExit(
            "wrk is not installed. `make wrk` installs Debian's package (apt-get install -y wrk); the "
            "benchmark installs nothing by itself."
        )
    return path


def positions(sessions: list[tuple[int | None, str]], streams: int = 1) -> list[tuple[int, str, int, int]]:
    """Where the wrk threads start: `streams` threads per session, each at the current (stream, step)
    of an open stream of its own (decision 0085; fewer when fewer are open)."""
    out: list[tuple[int, str, int, int]] = []
    for session_id, token in sessions:
        assert session_id is not None
        session = Session.objects.get(pk=session_id)
        plan = plan_of(session)  # the session's own dealt streams
        opened = open_streams_of(session, plan).current_steps(plan)[:streams]
        out.extend((session_id, token, step.stream_pos, step.step_pos) for step in opened)
        if not opened:  # over: its thread finds it so
            out.append((session_id, token, 0, 0))
    return out


def cpu_seconds(pids: list[int]) -> float:
    """User and system CPU time of these processes so far (processes gone since count as nothing)."""
    total = 0
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15 of stat)
    return total / TICKS


def server_processes(server: subprocess.Popen) -> tuple[list[int], list[int]]:
    """The gunicorn workers, and the PostgreSQL backends of this database (the workers keep theirs open:
    CONN_MAX_AGE), so that the CPU each answer costs them can be told apart from wrk's."""
    children = Path(f"/proc/{server.pid}/task/{server.pid}/children").read_text().split()
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        backends = sorted(row[0] for row in cursor.fetchall())
    return [int(pid) for pid in children], backends


@dataclass
class Run:
    answers: int = 0
    seconds: float = 0.0
    p50: float = 0.0  # ms
    p95: float = 0.0
    p99: float = 0.0
    gunicorn_cpu: float = 0.0  # s
    postgres_cpu: float = 0.0
    wrk_cpu: float = 0.0

    @property
    def rps(self) -> float:
        return self.answers / self.seconds

    def per_answer(self, cpu: float) -> float:
        return 1000 * cpu / self.answers  # ms


def drive(base: str, server, sessions, seconds: float, *, bare: bool, streams: int = 1) -> Run:
    """One wrk run: a thread (and a connection) per open stream of each session, `streams` a session
    (the bare view answers its session in as many threads: the same row locked by as many)."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as handle:
        rows = positions(sessions, streams)
        for row in rows:
            handle.write(" ".join(map(str, row)) + "\n")
    env = {**os.environ, "VTT_SESSIONS": handle.name, "VTT_MODE": "bare" if bare else "real"}
    n = len(rows)
    workers, backends = server_processes(server)
    before = (cpu_seconds(workers), cpu_seconds(backends), resource.getrusage(resource.RUSAGE_CHILDREN))
    done = subprocess.run(
        [wrk_path(), "-t", str(n), "-c", str(n), "-d", f"{seconds:g}s", "--timeout", "10s", "-s",
         str(WRK_SCRIPT), base],
        env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    os.unlink(handle.name)
    # A backend that came or went during the run (a worker reconnected) makes its CPU unknowable.
    same_backends = server_processes(server)[1] == backends
    lines = done.stdout.splitlines()
    error = next((line for line in lines if line.startswith("VTT-ERROR ")), None)
    result = next((line for line in lines if line.startswith("VTT-RESULT ")), None)
    if done.returncode != 0 or result is None:
        raise SystemExit(f"wrk failed ({done.returncode}): {done.stderr or done.stdout}")
    figures = json.loads(result.split(" ", 1)[1])
    if error or figures["socket_errors"]:
        raise SystemExit(
            f"{figures['errors']} failed requests, {figures['socket_errors']} socket errors: {error}"
        )
    if figures["exhausted"]:
        raise SystemExit("A session ran out of questions during the run: run fewer --seconds.")
    return Run(
        answers=figures["answers"],
        seconds=figures["duration_us"] / 1e6,
        p50=figures["p50_us"] / 1000,
        p95=figures["p95_us"] / 1000,
        p99=figures["p99_us"] / 1000,
        gunicorn_cpu=cpu_seconds(workers) - before[0],
        postgres_cpu=cpu_seconds(backends) - before[1] if same_backends else float("nan"),
        wrk_cpu=(after.ru_utime + after.ru_stime) - (before[2].ru_utime + before[2].ru_stime),
    )


def client_session(base: str, test: Test) -> tuple[float, int, int]:
    """A whole session of the test taken by the Python client: seconds, questions, requests."""
    token = sessions_for(test, 1, "client", enrol=False)[0][1]
    started = time.monotonic()
    with Client(base, token, progress=False) as client:
        session = client.session(test.pk)
        questions = 0
        for question in session.questions():
            question.image_bytes()
            session.answer(question, True)
            questions += 1
        requests = client.requests
    return time.monotonic() - started, questions, requests


def row(name: str, run: Run) -> str:
    return (
        f"| {name} | {run.answers} | {run.rps:.0f} | {run.p50:.1f} | {run.p95:.1f} | "
        f"{run.per_answer(run.gunicorn_cpu):.2f} | {run.per_answer(run.postgres_cpu):.2f} | "
        f"{run.per_answer(run.wrk_cpu):.2f} |"
    )


def section(args: argparse.Namespace, runs: list[tuple[Run, Run]], load: float, client) -> str:
    """The section of docs/benchmarks.md, from the rounds measured."""
    bare_total = sum(b.answers for b, _ in runs) / sum(b.seconds for b, _ in runs)
    real_total = sum(r.answers for _, r in runs) / sum(r.seconds for _, r in runs)
    worst_p95 = max(r.p95 for _, r in runs)
    bare_cpu, real_cpu = (
        sum(1000 * (x.gunicorn_cpu + x.postgres_cpu + x.wrk_cpu) for x in side) / sum(x.answers for x in side)
        for side in ([b for b, _ in runs], [r for _, r in runs])
    )
    rows = "\n".join(
        f"{row(f'bare, round {i + 1}', b)}\n{row(f'real, round {i + 1}', r)}" for i, (b, r) in enumerate(runs)
    )
    body = f"""## Answer submission throughput

Command: `DATABASE_URL=… REDIS_URL=… python -m benchmarks.answer_throughput --connections {args.connections} --streams {args.streams} --seconds {args.seconds:g} --rounds {args.rounds} --workers {args.workers} --write`
(commit {commit()}, {machine()}, load average {load:.2f} at the start). gunicorn with {args.workers} sync
workers on PostgreSQL{" and Redis" if os.environ.get("REDIS_URL") else ""}; wrk on the same machine, {args.connections} threads of one connection each, each
answering one open stream of a session, {args.streams} streams of each session at once; the bare view and the real endpoint take turns, {args.seconds:g} s each.

| endpoint | answers | answers/s | p50 ms | p95 ms | gunicorn CPU ms/answer | PostgreSQL CPU ms/answer | wrk CPU ms/answer |
|---|---|---|---|---|---|---|---|
{rows}

The bare view is a DRF view that locks the session row, inserts the answer and updates the session; the
real endpoint adds token authentication, the role and scope checks, the rate limit, the session checks
(access, state, deadline, current step), the plan and the next question, and scoring on the last answer.

- The real endpoint reaches **{real_total / bare_total:.0%}** of the bare view's throughput over the
  rounds ({real_total:.0f} against {bare_total:.0f} answers/s; target: at least 75%, issue 50); p95 at most
  **{worst_p95:.1f} ms** at {args.connections} connections (target: under 50 ms).
- CPU per answer, all rounds (gunicorn + PostgreSQL + wrk): bare view **{bare_cpu:.2f} ms**, real endpoint
  **{real_cpu:.2f} ms**; their ratio ({bare_cpu / real_cpu:.0%}) is the throughput ratio a CPU-bound machine
  gives, and it moves much less than throughput when other work shares the machine.

What limits these figures. Everything runs on the same {os.cpu_count()} cores: the gunicorn workers,
PostgreSQL, Redis and wrk (wrk costs a few percent of an answer's CPU: its column above), and the
machine may be busy with other work (the load average above). The server
is CPU-bound, so throughput is about the cores' time divided by the CPU an answer costs, and latency is
queueing: by Little's law the p95 target at {args.connections} connections needs
{args.connections / 0.05:.0f} answers/s, that is at most {1000 * (os.cpu_count() or 1) / (args.connections / 0.05):.1f} ms of CPU per answer on
{os.cpu_count()} cores with nothing else running. The bare view alone costs {bare_cpu:.2f} ms here (a
sync worker accepts a connection, parses the request, runs Django's middleware and DRF, locks, inserts,
updates and commits), so on this machine the p95 target is out of reach for the bare view as much as
for the real one; it needs more cores, or the load generator and PostgreSQL on other machines.

What answering costs, and what was done about it (issue 9; measured with `benchmarks/answer_profile`,
which profiles the same WSGI application in-process; Python function calls per answer do not depend on
the machine's load): the real endpoint made 14,340 calls per answer against the bare view's 3,129, and
now makes about 3,800. Where they went, and what replaced them:
- DRF's serializers rebuilt the next question, its labels and the answer (a deep copy of every field,
  a fifth of the CPU): each step is now serialized once per plan through the same serializers and kept
  (`evaluation/api/questions.py`); a response adds only the session's image URL.
- The token with its user, then the user's groups: two queries compiled by the ORM on every request (a
  quarter of the CPU); now one hand-written query per process (`vtt_site/sql.py`, decision 0033).
- The locked session with its access check and its test's deadline: a queryset with a subquery compiled
  on every answer; now one hand-written query, the same lock, check and deadline.
- The rate limit: DRF's throttle read and wrote the list of every request's time in the last minute (the
  longer the higher the limit), and Django's Redis cache made a new client object for every call; now two
  counters per token in sliding windows, one Redis script per request, and one client per pool.
- URL resolution tried every other app's patterns before evaluation's; evaluation's now come first.
- Since every session is dealt streams of its own (issue 18), a step is shown to one session only, so the
  kept serializer output was built on nearly every answer: the kept bodies are now plain values in the
  serializers' shape (issue 36; a test holds them equal), which took the endpoint from 54% to 63% of the
  bare view on this machine.
- Issue 50 (decision 0087), with open streams in use: the input serializer was built for every answer
  (its fields deep-copied: a tenth of the CPU), and the ORM compiled the answer's insert and the
  session's update every time (a quarter). A plainly given answer is now read without the serializer
  (anything else still goes through it, with its messages; a test holds the two equal), and the insert
  and update are SQL written once per process (`evaluation/services/answer_rows.py`, `vtt_site.sql`).
  In-process CPU per answer (`answer_profile`, least of five turns): before, bare view 1.39 ms and real
  endpoint 2.21 ms; after, 1.43 ms and 1.43 ms; Python calls per answer 3,614 then 2,476 (the bare
  view's 3,376).
Where the rest goes (the profile of the real endpoint after issue 50, shares of its in-process CPU):
Django's middleware about a tenth; authentication about a fifth (the token query, and the Redis read of
the failed-attempt counter that must precede it); the rate limit and the permission about a tenth (one
Redis script); in the service, the locked session with its access check and deadline about a tenth, the
insert and the update about a sixth, the plan and the open streams a few percent; then the response.
On PostgreSQL's side the real endpoint costs more than the bare view (the column above): the token
query, and the lock taken through a join with the access check and the deadline's subquery, which the
bare view's `select_for_update().get()` does not make. Next steps, not taken: server-side prepared
statements for the hand-written queries (Django turns them off; not measured), and one Redis script for
the failed-attempt counter and the rate limit together (it would tie authentication to the throttle).
"""
    if client is not None:
        seconds, questions, requests = client
        body += f"""
## A whole session of the demo test taken by the Python client

- **{seconds:.1f} s** for {questions} questions ({questions / seconds:.0f} questions/s),
  **{requests / questions:.3f} requests per question** ({requests} requests: one answer per question, which
  brings the next one, plus one image per stream and the enrolment, and a read of the open streams
  when a finished stream has none left to open in its place), one question at a time, without a rate
  limit.
"""
    return body


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument(
        "--streams",
        type=int,
        default=1,
        help="Open streams answered at once in each session (a connection each): --connections / "
        "--streams sessions, their test opening at least that many (decision 0085).",
    )
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--rounds", type=int, default=2)
    # As `make serve` runs it (WEB_WORKERS); on 2 cores shared with PostgreSQL, Redis and wrk, more sync
    # workers only add context switches (4 gave the real endpoint a few points less of the bare view's).
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--skip-client", action="store_true", help="Leave out the Python client's session.")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    wrk_path()
    test = Test.objects.filter(name=DEMO_TEST, state="published").first()
    if test is None:
        raise SystemExit("Build the demo test first: manage.py demo_setup && manage.py run_baselines")
    load = os.getloadavg()[0]
    port = free_port()
    server = start_server(port, args.workers)
    dealer = start_dealer()
    base = f"http://127.0.0.1:{port}"
    runs: list[tuple[Run, Run]] = []
    try:
        per = max(1, args.connections // args.streams)
        bare_sessions = sessions_for(test, per, "bare")
        real_sessions = sessions_for(test, per, "real")
        warm_sessions = sessions_for(test, args.workers * 2, "warm")
        dealt = wait_dealt(bare_sessions + real_sessions + warm_sessions)
        print(
            f"{len(bare_sessions + real_sessions + warm_sessions)} sessions dealt in {dealt:.0f} s",
            file=sys.stderr,
        )
        # Every worker loads the sessions' plans (and warms its connection) before anything is measured:
        # each session is dealt streams of its own, so each has a plan of its own to load, which the
        # warm sessions' plans no longer stand for (the first round paid for 32 plan loads per worker).
        drive(base, server, warm_sessions, 2, bare=False, streams=args.streams)
        drive(base, server, real_sessions, 2, bare=False, streams=args.streams)
        drive(base, server, bare_sessions[: args.workers * 2], 1, bare=True, streams=args.streams)
        for _ in range(args.rounds):
            bare = drive(base, server, bare_sessions, args.seconds, bare=True, streams=args.streams)
            real = drive(base, server, real_sessions, args.seconds, bare=False, streams=args.streams)
            runs.append((bare, real))
            print(f"bare {bare}\nreal {real}", file=sys.stderr)
        client = None if args.skip_client else client_session(base, test)
    finally:
        server.terminate()
        server.wait()
        if dealer is not None:
            os.killpg(dealer.pid, signal.SIGTERM)
            dealer.wait()
    body = section(args, runs, load, client)
    print(body)
    if args.write:
        write_section("answer-throughput", body)


if __name__ == "__main__":
    main()
