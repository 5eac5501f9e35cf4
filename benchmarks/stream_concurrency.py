"""Questions per second of `vtt take` at several concurrencies (issue 50, item 3; decision 0086), against
the stand-in OpenAI-compatible server of the runner's tests (tests/clients/chat_server.py) made as slow
as a model: every reply takes `--latency` seconds (300 ms), and it serves at most `--capacity` requests at
once (64), the rest waiting their turn. It runs in a process of its own, as a model server does.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/vtt_eval REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python -m benchmarks.stream_concurrency [--concurrency 1 4 16 32] [--seconds 40] [--write]

Needs the published demo street test (as benchmarks/answer_throughput does, REDIS_URL unset so that its
tasks run in the command: `manage.py demo_setup
--no-baselines` then `manage.py run_baselines --only always-yes`). The platform is served by gunicorn
with the benchmark settings (benchmarks/answer_throughput.start_server: no rate limit to speak of), and
with REDIS_URL a real dealer worker deals each session its streams; each concurrency gets a fresh
system and session, dealt before the clock starts, so that the run measures taking questions, not
dealing them. The demo test is set to open as many streams as the highest concurrency asks (a
benchmark database: a published test's number never changes otherwise). Each run is the runner's own
code (`vtt_client.runner.take`, the image drawn and sent as JPEG, the chat rebuilt from the server for
every question) for `--seconds` or to the session's end; questions per second are those answered while N
streams were in flight (see the report).
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
from dataclasses import dataclass, field
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


@dataclass
class Run:
    """One concurrency's run: when each answer came, and when the session's streams ran out."""

    concurrency: int
    streams: int  # the session's
    started: float
    deadline: float
    answered: list[float] = field(default_factory=list)
    ended: int = 0
    # When the session's streams ran out: the stream that ended with fewer than N streams left to take
    # after it. From then on the run is no longer at concurrency N (the demo session holds 1,344
    # questions in 40 streams, which concurrency 16 and more take in about 40 s).
    ran_out: float | None = None

    def answer_at(self, now: float, stream_ended: bool) -> None:
        self.answered.append(now)
        self.ended += stream_ended
        if self.ran_out is None and self.streams - self.ended < self.concurrency:
            self.ran_out = now

    @property
    def window_end(self) -> float:
        return min(self.deadline, self.ran_out) if self.ran_out is not None else self.deadline

    @property
    def in_window(self) -> int:
        return sum(1 for t in self.answered if t <= self.window_end)

    @property
    def speed(self) -> float:
        """Questions per second while N streams were in flight."""
        return self.in_window / (self.window_end - self.started)

    @property
    def whole(self) -> float:
        """Questions per second over the whole run, the session's tail included."""
        end = self.answered[-1] if self.ran_out is not None else self.deadline
        return sum(1 for t in self.answered if t <= self.deadline) / (end - self.started)


def one_run(base: str, token: str, test: Test, chat_url: str, concurrency: int, seconds: float) -> Run:
    """One session taken at `concurrency` for `seconds` (or to its end)."""
    stand_in = ChatServer()  # its model's name and key
    model = OpenAIChat(
        base_url=chat_url,
        model=stand_in.model,
        api_key=stand_in.api_key,
        timeout=30,
        policy=RetryPolicy(max_retries=3),
    )
    prompts, showing = load_prompts(None), Showing.of("both", blind=False, image_format="jpeg")
    lock = threading.Lock()
    with Client(base, token, progress=False) as client, tempfile.TemporaryDirectory() as logs:
        session = client.session(test.pk)
        log = RunLog(Path(logs), session.id)
        started = time.monotonic()
        run = Run(concurrency, test.test_images.count(), started, started + seconds)

        def one(question, history):
            if time.monotonic() >= run.deadline:
                raise Enough
            answered = take_one(session, model, question, history, prompts=prompts, showing=showing, log=log)
            with lock:
                run.answer_at(time.monotonic(), answered[0].stream_ended)
            return answered

        with open(os.devnull, "w") as quiet, contextlib.suppress(Enough):
            run_streams(session, one, concurrency=concurrency, model=model, progress=Progress(quiet))
    return run


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
    runs: dict[int, Run] = {}
    try:
        sessions = sessions_for(test, len(args.concurrency), "streams")
        wait_dealt(sessions)
        for concurrency, (_, token) in zip(args.concurrency, sessions, strict=True):
            run = runs[concurrency] = one_run(base, token, test, chat_url, concurrency, args.seconds)
            print(
                f"concurrency {concurrency}: {run.speed:.2f} questions/s over {run.window_end - run.started:.1f} s "
                f"({run.whole:.2f} with the session's tail)",
                file=sys.stderr,
            )
    finally:
        chat.terminate()
        server.terminate()
        server.wait()
        if dealer is not None:
            os.killpg(dealer.pid, signal.SIGTERM)
            dealer.wait()
    body = report(args, runs, load)
    print(body)
    if args.write:
        write_section("stream-concurrency", body)


def report(args: argparse.Namespace, runs: dict[int, Run], load: float) -> str:
    first = runs[min(runs)].speed
    rows = "\n".join(
        f"| {n} | {run.speed:.2f} | {run.window_end - run.started:.1f} s, {run.in_window} | "
        f"{run.whole:.2f} | {run.speed / first:.1f}x | {run.speed / first / n:.0%} | "
        f"{'-' if n > 16 else 'yes' if run.speed >= 0.8 * n * first else 'no'} |"
        for n, run in sorted(runs.items())
    )
    concurrency = " ".join(map(str, args.concurrency))
    return f"""## Several streams at once: `vtt take --concurrency N` (issue 50)

Command: `DATABASE_URL=… REDIS_URL=… python -m benchmarks.stream_concurrency --concurrency {concurrency} --seconds {args.seconds:g} --write`
(commit {commit()}, {machine()}, load average {load:.2f} at the start). The demo street test, a fresh
session per concurrency, dealt before the clock starts; the runner's own code (image drawn, JPEG, the
chat rebuilt from the server for every question) against the stand-in model server of the runner's tests (a process of its own)
with a fixed {1000 * args.latency:.0f} ms per reply, serving up to {args.capacity} requests at once; gunicorn with
{args.workers} sync workers; each concurrency runs {args.seconds:g} s or to the session's end.

The speed at N is counted while N streams are in flight: from the start to the stream that ended with
fewer than N of the session's streams left to take (or to the run's end). After it the session's last streams
finish at ever lower concurrency: the demo session is 1,344 questions in 40 streams, which concurrency
16 takes in about 40 s. "With the tail" counts every question to the last (or to the run's end).

| concurrency | questions/s | counted over | with the tail | speed-up | of N x concurrency 1 | at least 0.8 x N (up to 16) |
|---|---|---|---|---|---|---|
{rows}

Concurrency 1 is one question at a time: the model's {1000 * args.latency:.0f} ms plus the platform's round trips
(reading the stream's question and history, answering) and the runner's work (drawing the image).
"""


if __name__ == "__main__":
    main()
