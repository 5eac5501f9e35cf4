"""Where an operator's answer spends its time, in one process (issue 51, point 5: what bounds the next
question's p95 under `make serve`).

    .venv/bin/python -m benchmarks.answer_cost [--answers 200] [--write]
        [--database-url postgres://postgres@127.0.0.1:5432/vtt_bench_answer_cost]

The world of benchmarks.operator_ui (60 fitted training scenes, a test of pictured street images, one
operator) in a scratch PostgreSQL database (created, and dropped afterwards). The operator answers
`--answers` questions through the services, with the proposal task run in this process as soon as the
answer commits (no broker, no HTTP: what is left is the platform's own work). Each answer is timed whole
(the answer's write, then the proposal), and its parts: the proposal task, the bridge's proposal (the
engine with the stored history read into it), the engine's resume of that history and its proposal.
Also the process's CPU time and the number of SQL queries per answer.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections import defaultdict
from contextlib import contextmanager
from pathlib import Path

PARTS = (
    ("the proposal task", "truthing.services.proposals", "stream_propose"),
    ("the bridge's proposal (history read, engine)", "truthing.bridge", "propose"),
)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--answers", type=int, default=200)
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/vtt_bench_answer_cost")
    parser.add_argument("--write", action="store_true")
    args = parser.parse_args()
    from benchmarks.annotator_ui import platform_env
    from benchmarks.operator_ui import NO_CHECKS, scratch_database

    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="vtt-answer-cost-") as folder:
        env = platform_env(Path(folder)) | {"DATABASE_URL": args.database_url, **NO_CHECKS}
        os.environ.update(env)
        with scratch_database(args.database_url):
            result = measure(args.answers)
            from django.db import connections

            connections.close_all()  # the scratch database is dropped next
    result["load"] = (load_before, os.getloadavg())
    from benchmarks.report import publish

    publish("benchmarks.answer_cost", "answer-cost", lambda command: render(result, command), args.write)


def measure(answers: int) -> dict:
    from benchmarks.operator_ui import USERNAME, setup

    setup(operators=0)
    from django.contrib.auth import get_user_model
    from django.db import connection

    from engine.core.proposer import Stream as EngineStream
    from kernel.kinds import instantiation_kinds
    from truthing.models import Stream
    from truthing.services.queue import operator_next
    from truthing.services.streams import step_answer

    user = get_user_model().objects.get(username=USERNAME)
    instantiation = {kind.name for kind in instantiation_kinds()}
    parts: dict[str, list[float]] = defaultdict(list)
    queries = [0]

    def count(execute, sql, params, many, context):
        queries[0] += 1
        return execute(sql, params, many, context)

    whole: list[float] = []
    cpu: list[float] = []
    per_answer_queries: list[int] = []
    with timed_parts(parts, EngineStream), connection.execute_wrapper(count):
        while len(whole) < answers:
            work = operator_next(user=user)
            if work is None:
                break
            while len(whole) < answers:
                stream = Stream.objects.get(pk=work.pk)
                step = stream.steps.filter(answer="").order_by("index").first()
                if stream.state != "pending" or step is None:
                    break
                queries[0] = 0
                wall, process = time.perf_counter(), time.process_time()
                step_answer(
                    stream_id=stream.pk, user=user, index=step.index, answer=answer_for(step, instantiation)
                )
                whole.append(time.perf_counter() - wall)
                cpu.append(time.process_time() - process)
                per_answer_queries.append(queries[0])
    return {"whole": whole, "cpu": cpu, "queries": per_answer_queries, "parts": dict(parts)}


def answer_for(step, instantiation: set[str]) -> str:
    """Yes to instantiation questions (`instantiation`: their kinds' names; the stream goes on to the
    objects' attributes and relations), no to the others, as benchmarks.operator_ui's operator mostly
    answers."""
    return "yes" if step.question.get("kind") in instantiation else "no"


@contextmanager
def timed_parts(parts: dict[str, list[float]], engine_stream):
    """Each function of PARTS, and the engine's resume and proposal, timed on every call."""
    import importlib

    originals = []
    for label, module_name, name in PARTS:
        module = importlib.import_module(module_name)
        originals.append((module, name, getattr(module, name)))
        setattr(module, name, timer(parts[label], getattr(module, name)))
    resume, propose = engine_stream.__dict__["resume"], engine_stream.propose
    engine_stream.resume = classmethod(timer(parts["the engine: resume the stored history"], resume.__func__))
    engine_stream.propose = timer(parts["the engine: propose"], propose)
    try:
        yield
    finally:
        for module, name, original in originals:
            setattr(module, name, original)
        engine_stream.resume, engine_stream.propose = resume, propose


def timer(into: list[float], function):
    def timed(*args, **kwargs):
        started = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            into.append(time.perf_counter() - started)

    return timed


def figure(values: list[float], scale: float = 1000.0) -> str:
    if not values:
        return "none"
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))]
    return f"{statistics.median(values) * scale:.1f} ms (p95 {p95 * scale:.1f}, n={len(values)})"


def render(result: dict, command: str) -> str:
    from benchmarks.report import commit, machine

    (before, after) = result["load"]
    rows = [
        ("an answer, whole (the answer's write, then the proposal)", figure(result["whole"])),
        ("of which the process's CPU", figure(result["cpu"])),
        *((label, figure(values)) for label, values in result["parts"].items()),
    ]
    queries = result["queries"]
    lines = [
        "## Where an operator's answer spends its time, in one process (issue 51, point 5)",
        "",
        f"Command: `{command}` (commit {commit()}, {machine()}, PostgreSQL; load average "
        f"{before[0]:.2f} before, {after[0]:.2f} after). The world of benchmarks.operator_ui; each answer "
        "through the services, the proposal task run in this process when the answer commits (no broker, "
        "no HTTP). Medians, with the 95th percentile.",
        "",
        "| what | time |",
        "|---|---|",
        *(f"| {label} | {value} |" for label, value in rows),
        "",
        f"SQL queries per answer, the proposal's included: median {statistics.median(queries):.0f}, "
        f"max {max(queries)}.",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    main()
