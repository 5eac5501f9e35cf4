"""Questions per second of `vtt take` at several concurrencies (issue 50, item 3; decision 0086), against
the stand-in OpenAI-compatible server of the runner's tests (tests/clients/chat_server.py) made as slow
as a model: every reply takes `--latency` seconds (300 ms), and it serves at most `--capacity` requests at
once (64), the rest waiting their turn. It runs in a process of its own, as a model server does.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/vtt_eval REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python -m benchmarks.stream_concurrency [--concurrency 1 4 16 32] [--seconds 40] [--write]

Needs the published demo street test (as benchmarks/answer_throughput does: `manage.py demo_setup
--no-baselines` then `manage.py run_baselines --only always-yes`). The platform is served by gunicorn
with the benchmark settings (benchmarks/answer_throughput.start_server: no rate limit to speak of), and
with REDIS_URL a real dealer worker deals each session its streams; each concurrency gets a fresh
system and session, dealt before the clock starts, so that the run measures taking questions, not
dealing them. The demo test is set to open as many streams as the highest concurrency asks (a
benchmark database: a published test's number never changes otherwise). Each run is the runner's own
code (`vtt_client.runner.take`, the image drawn and sent as JPEG, the chat rebuilt from the server for
every question) for `--seconds`, then stopped; questions per second are those answered in that time.
Target: at least 0.8 x N times concurrency 1's speed, up to 16.
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from vtt_client import Client
from vtt_client.runner.conversation import Showing
from vtt_client.runner.log import Progress, RunLog
from vtt_client.runner.model import RetryPolicy
from vtt_client.runner.openai_chat import OpenAIChat
from vtt_client.runner.prompts import load_prompts
from vtt_client.runner.streams import run_streams
from vtt_client.runner.take import take_one

from benchmarks.answer_throughput import (
    DEMO_TEST,
    free_port,
    sessions_for,
    start_dealer,
    start_server,
    wait_dealt,
)
from benchmarks.report import commit, machine, write_section
from tests.clients.chat_server import ChatServer
from truthing.models import Test


class Enough(Exception):
    """The run's time is up: every worker stops after the question it is on."""


def serve_chat(latency: float, capacity: int, ready: Any) -> None:
    """The stand-in model server, in a process of its own (as a model server is): sharing the runner's
    process, it shared its interpreter lock, and the two together were what limited the run."""
    chat = ChatServer(latency=latency, capacity=capacity).start()
    ready.put(chat.url)
    threading.Event().wait()


def start_chat(latency: float, capacity: int) -> tuple[Any, str]:
    context = multiprocessing.get_context("fork")
    ready = context.Queue()
    process = context.Process(target=serve_chat, args=(latency, capacity, ready), daemon=True)
    process.start()
    return process, ready.get(timeout=30)


def one_run(base: str, token: str, test_id: int, chat_url: str, concurrency: int, seconds: float) -> float:
    """Questions per second of one session taken at `concurrency` for `seconds`."""
    stand_in = ChatServer()  # its model's name and key
    model = OpenAIChat(
        base_url=chat_url,
        model=stand_in.model,
        api_key=stand_in.api_key,
        timeout=30,
        policy=RetryPolicy(max_retries=3),
    )
    prompts, showing = load_prompts(None), Showing.of("both", blind=False, image_format="jpeg")
    times: list[float] = []
    lock = threading.Lock()
    with Client(base, token, progress=False) as client, tempfile.TemporaryDirectory() as logs:
        session = client.session(test_id)
        log = RunLog(Path(logs), session.id)
        started = time.monotonic()
        deadline = started + seconds

        def one(question, history):
            if time.monotonic() >= deadline:
                raise Enough
            answered = take_one(session, model, question, history, prompts=prompts, showing=showing, log=log)
            with lock:
                times.append(time.monotonic())
            return answered

        with open(os.devnull, "w") as quiet, contextlib.suppress(Enough):
            run_streams(session, one, concurrency=concurrency, model=model, progress=Progress(quiet))
    return sum(1 for t in times if t <= deadline) / seconds


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 4, 16, 32])
    parser.add_argument("--seconds", type=float, default=40)
    parser.add_argument("--latency", type=float, default=0.3)
    parser.add_argument("--capacity", type=int, default=64)
    # As `make serve` runs it (scripts/serve.sh: 2 x cores + 1 sync workers). Two gave 32 questions/s at
    # concurrency 16 and at 32 on this machine: each question is two requests (the stream's question, the
    # answer), and two sync workers were the limit.
    parser.add_argument("--workers", type=int, default=2 * (os.cpu_count() or 1) + 1)
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    test = Test.objects.filter(name=DEMO_TEST, state="published").first()
    if test is None:
        raise SystemExit("Build the demo test first: manage.py demo_setup && manage.py run_baselines")
    Test.objects.filter(pk=test.pk).update(open_streams=max(args.concurrency))
    load = os.getloadavg()[0]
    chat, chat_url = start_chat(args.latency, args.capacity)
    port = free_port()
    server = start_server(port, args.workers)
    dealer = start_dealer()
    base = f"http://127.0.0.1:{port}"
    speeds: dict[int, float] = {}
    try:
        sessions = sessions_for(test, len(args.concurrency), "streams")
        wait_dealt(sessions)
        for concurrency, (_, token) in zip(args.concurrency, sessions, strict=True):
            speeds[concurrency] = one_run(base, token, test.pk, chat_url, concurrency, args.seconds)
            print(f"concurrency {concurrency}: {speeds[concurrency]:.2f} questions/s", file=sys.stderr)
    finally:
        chat.terminate()
        server.terminate()
        server.wait()
        if dealer is not None:
            os.killpg(dealer.pid, signal.SIGTERM)
            dealer.wait()
    body = report(args, speeds, load)
    print(body)
    if args.write:
        write_section("stream-concurrency", body)


def report(args: argparse.Namespace, speeds: dict[int, float], load: float) -> str:
    first = speeds[min(speeds)]
    rows = "\n".join(
        f"| {n} | {speed:.2f} | {speed / first:.1f}x | {speed / first / n:.0%} | "
        f"{'-' if n > 16 else 'yes' if speed >= 0.8 * n * first else 'no'} |"
        for n, speed in sorted(speeds.items())
    )
    concurrency = " ".join(map(str, args.concurrency))
    return f"""## Several streams at once: `vtt take --concurrency N` (issue 50)

Command: `DATABASE_URL=… REDIS_URL=… python -m benchmarks.stream_concurrency --concurrency {concurrency} --seconds {args.seconds:g} --write`
(commit {commit()}, {machine()}, load average {load:.2f} at the start). The demo street test, a fresh
session per concurrency, dealt before the clock starts; the runner's own code (image drawn, JPEG, the
chat rebuilt from the server for every question) against the stand-in model server of the runner's tests (a process of its own)
with a fixed {1000 * args.latency:.0f} ms per reply, serving up to {args.capacity} requests at once; gunicorn with
{args.workers} sync workers; each concurrency runs {args.seconds:g} s.

| concurrency | questions/s | speed-up | of N x concurrency 1 | at least 0.8 x N (up to 16) |
|---|---|---|---|---|
{rows}

Concurrency 1 is one question at a time: the model's {1000 * args.latency:.0f} ms plus the platform's round trips
(reading the stream's question and history, answering) and the runner's work (drawing the image). What
limits the higher concurrencies is the machine, not the model server: the runner (drawing and encoding
every image, a thread per stream), the platform (two requests per question) and the stand-in server
(parsing every request) share its {os.cpu_count()} cores with whatever else runs (the load average above),
and a busier machine gives less at 16 and 32.
"""


if __name__ == "__main__":
    main()
