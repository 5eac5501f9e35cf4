"""Where an answer's time goes, without a server: the benchmark's WSGI application (the platform's URLs
plus the bare view) called in this process, the way gunicorn calls it, answer after answer of one
session; CPU time per answer of the real endpoint and of the bare view, and a cProfile of the real one.

    DATABASE_URL=… REDIS_URL=… .venv/bin/python -m benchmarks.answer_profile [--answers 2000] [--top 40]

Needs the demo test, like benchmarks/answer_throughput.py. The figures are process CPU time, which a
busy machine changes much less than wall time: use them to compare two versions of the code.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import io
import json
import os
import pstats
import sys
import time
from collections.abc import Callable

os.environ["DJANGO_SETTINGS_MODULE"] = "benchmarks.bench_settings"
os.environ.setdefault("API_RATE_TOKEN", "100000000/min")
os.environ.setdefault("LOG_LEVEL", "WARNING")

import django

django.setup()

from benchmarks.answer_throughput import DEMO_TEST, positions, sessions_for  # noqa: E402
from benchmarks.bench_wsgi import application  # noqa: E402
from truthing.models import Test  # noqa: E402


def post(path: str, body: bytes, token: str | None) -> tuple[str, bytes]:
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": path,
        "SCRIPT_NAME": "",
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(body)),
        "HTTP_HOST": "127.0.0.1",
        "wsgi.input": io.BytesIO(body),
        "wsgi.url_scheme": "http",
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        "wsgi.version": (1, 0),
    }
    if token:
        environ["HTTP_AUTHORIZATION"] = f"Token {token}"
    status: list[str] = []

    def start_response(
        line: str, headers: list[tuple[str, str]], exc_info: object = None
    ) -> Callable[[bytes], object]:
        status.append(line)
        return io.BytesIO().write  # WSGI's write(), which Django never calls

    chunks = application(environ, start_response)
    content = b"".join(chunks)
    getattr(chunks, "close", lambda: None)()
    return status[0], content


def answer_loop(session_id: int, token: str, stream: int, step: int, n: int) -> None:
    for _ in range(n):
        body = json.dumps({"stream": stream, "step": step, "answer": "yes"}).encode()
        status, content = post(f"/api/v1/evaluation/sessions/{session_id}/answers/", body, token)
        if not status.startswith("200"):
            raise SystemExit(f"{status}: {content[:300]!r}")
        nxt = json.loads(content)["next"]
        if nxt is None:  # no stream left to open in this one's place: another open stream (decision 0085)
            _, _, stream, step = positions([(session_id, token)])[0]
        else:
            stream, step = nxt["stream"], nxt["step"]


def bare_loop(session_id: int, n: int) -> None:
    for _ in range(n):
        status, content = post(f"/bench/bare/{session_id}/", b'{"answer":"yes"}', None)
        if not status.startswith("200"):
            raise SystemExit(f"{status}: {content[:300]!r}")


def timed(run: Callable[[int], object], n: int) -> float:
    started = time.process_time()
    run(n)
    return 1000 * (time.process_time() - started) / n


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--answers", type=int, default=1000)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument(
        "--dump", help="Also write the profile here (pstats format, for snakeviz and the like)."
    )
    args = parser.parse_args()
    test = Test.objects.filter(name=DEMO_TEST, state="published").first()
    if test is None:
        raise SystemExit("Build the demo test first: manage.py demo_setup && manage.py run_baselines")
    warm, timed_real, profiled, bare_session = positions(sessions_for(test, 4, "profile"))
    n = args.answers // 2
    # Many systems take the same test: the steps a session reaches were shown to others before (the
    # plan and the kept question bodies are warm), as the first session here makes them.
    answer_loop(*warm, n + 20)
    bare_id = bare_session[0]
    bare_loop(bare_id, 20)
    # In turns, the least of five: other work on the machine only ever adds to a round's time.
    bare, real, position = float("inf"), float("inf"), timed_real
    for _ in range(5):
        bare = min(bare, timed(lambda k: bare_loop(bare_id, k), n // 5))
        real = min(real, timed(functools.partial(answer_loop, *position), n // 5))
        position = positions([position[:2]])[0]
    bare_profiler = cProfile.Profile(time.process_time)
    bare_profiler.runcall(bare_loop, bare_id, n)
    profiler = cProfile.Profile(time.process_time)  # CPU, not waiting for PostgreSQL or Redis
    profiler.runcall(answer_loop, *profiled, n)
    if args.dump:
        profiler.dump_stats(args.dump)
    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(args.top)
    print(out.getvalue())
    print(f"CPU per answer in this process: bare view {bare:.2f} ms, real endpoint {real:.2f} ms "
          f"(the least of five turns of {n // 5} answers; PostgreSQL's share is not counted)")  # fmt: skip
    # Unlike time, the number of Python function calls does not depend on what else the machine does.
    calls = {name: _total_calls(p) / n for name, p in (("bare", bare_profiler), ("real", profiler))}
    print(
        f"Python function calls per answer: bare view {calls['bare']:.0f}, real endpoint {calls['real']:.0f}"
    )


def _total_calls(profiler: cProfile.Profile) -> int:
    # typeshed's pstats.Stats leaves out total_calls, which Stats.__init__ sets (and print_stats prints).
    return pstats.Stats(profiler).total_calls  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
