"""Answer submission through the real stack, against a bare DRF view doing the same row lock, insert and
update, measured in the same run on the same gunicorn server; and a whole session of the demo test taken
by the Python client.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/vtt_eval .venv/bin/python -m benchmarks.answer_throughput \
        [--connections 32] [--seconds 15] [--workers 4] [--write]

Needs the published demo test (`manage.py demo_setup` then `manage.py run_baselines`, which builds it).
It registers fresh benchmark systems each run (owner `benchmark`), starts gunicorn on a free port with
the benchmark settings (no rate limit, no enrolment cap), and drives it with one asyncio process holding
`--connections` keep-alive connections, each answering its own session's questions in turn. Targets
(issue 9): the real endpoint at least 70% of the bare view's throughput, p95 under 50 ms at 32
connections.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "vtt_site.settings")
django.setup()

import httpx  # noqa: E402
from vtt_client import Client  # noqa: E402

from accounts.roles import Role  # noqa: E402
from accounts.services import user_create_with_role  # noqa: E402
from benchmarks.report import commit, machine, write_section  # noqa: E402
from evaluation.services.sessions import session_enrol  # noqa: E402
from evaluation.services.systems import system_create, system_token_create  # noqa: E402
from truthing.models import Test  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
DEMO_TEST = "Demo street test"


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


def sessions_for(test: Test, n: int, tag: str, enrol: bool = True) -> list[tuple[int | None, str]]:
    owner = user_create_with_role(username="benchmark", password=None, role=Role.VISION_SYSTEM_OWNER)
    out = []
    stamp = f"{time.time():.0f}"
    from django.test.utils import override_settings

    with override_settings(VTT={**django.conf.settings.VTT, "EVALUATION_MAX_SYSTEMS_PER_TEST": 10**6}):
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


async def drive(base: str, sessions, seconds: float, bare: bool) -> list[float]:
    latencies: list[float] = []
    deadline = time.monotonic() + seconds
    limits = httpx.Limits(max_connections=len(sessions), max_keepalive_connections=len(sessions))
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=30) as client:

        async def one(session_id: int, token: str) -> None:
            headers = {"Authorization": f"Token {token}"}
            position = None
            if not bare:
                current = (
                    await client.get(f"/api/v1/evaluation/sessions/{session_id}/question/", headers=headers)
                ).json()["current"]
                position = (current["stream"], current["step"])
            while time.monotonic() < deadline and (bare or position is not None):
                started = time.perf_counter()
                if bare:
                    response = await client.post(f"/bench/bare/{session_id}/", json={"answer": "yes"})
                else:
                    response = await client.post(
                        f"/api/v1/evaluation/sessions/{session_id}/answers/",
                        json={"stream": position[0], "step": position[1], "answer": "yes"},
                        headers=headers,
                    )
                latencies.append(time.perf_counter() - started)
                if response.status_code != 200:
                    raise SystemExit(f"{response.status_code}: {response.text[:200]}")
                if not bare:
                    nxt = response.json()["next"]
                    position = None if nxt is None else (nxt["stream"], nxt["step"])

        await asyncio.gather(*(one(s, t) for s, t in sessions))
    return latencies


def summary(latencies: list[float], seconds: float) -> dict:
    ordered = sorted(latencies)
    return {
        "answers": len(ordered),
        "rps": len(ordered) / seconds,
        "p50": statistics.median(ordered) * 1000,
        "p95": ordered[int(0.95 * (len(ordered) - 1))] * 1000,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--connections", type=int, default=32)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    test = Test.objects.filter(name=DEMO_TEST, state="published").first()
    if test is None:
        raise SystemExit("Build the demo test first: manage.py demo_setup && manage.py run_baselines")
    port = free_port()
    server = start_server(port, args.workers)
    base = f"http://127.0.0.1:{port}"
    try:
        bare_sessions = sessions_for(test, args.connections, "bare")
        real_sessions = sessions_for(test, args.connections, "real")
        asyncio.run(drive(base, real_sessions[:2], 1.0, bare=False))  # warm the workers' plan caches
        asyncio.run(drive(base, bare_sessions[:2], 1.0, bare=True))
        bare = summary(asyncio.run(drive(base, bare_sessions, args.seconds, bare=True)), args.seconds)
        real = summary(asyncio.run(drive(base, real_sessions, args.seconds, bare=False)), args.seconds)
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
        client_seconds = time.monotonic() - started
    finally:
        server.terminate()
        server.wait()
    ratio = real["rps"] / bare["rps"]
    body = f"""## Answer submission throughput

Command: `DATABASE_URL=… python -m benchmarks.answer_throughput --connections {args.connections} --seconds {args.seconds:g} --workers {args.workers} --write`
(commit {commit()}, {machine()}). gunicorn with {args.workers} sync workers on PostgreSQL; the load
generator (one asyncio process, {args.connections} keep-alive connections, each answering its own
session) runs on the same machine.

| endpoint | answers | answers/s | p50 ms | p95 ms |
|---|---|---|---|---|
| bare DRF view (row lock, insert, update) | {bare["answers"]} | {bare["rps"]:.0f} | {bare["p50"]:.1f} | {bare["p95"]:.1f} |
| real: token auth, role and scope checks, session checks, plan, answer, score on the last answer | {real["answers"]} | {real["rps"]:.0f} | {real["p50"]:.1f} | {real["p95"]:.1f} |

- The real endpoint reaches **{ratio:.0%}** of the bare view's throughput (target: at least 70%);
  p95 **{real["p95"]:.1f} ms** at {args.connections} connections (target: under 50 ms).

## A whole session of the demo test taken by the Python client

- **{client_seconds:.1f} s** for {questions} questions ({questions / client_seconds:.0f} questions/s),
  **{requests / questions:.3f} requests per question** ({requests} requests: one answer per question, which
  brings the next one, plus one image per stream and the enrolment), without a rate limit.
"""
    print(body)
    if args.write:
        write_section("answer-throughput", body)


if __name__ == "__main__":
    sys.exit(main())
