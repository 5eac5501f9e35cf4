"""The operator's next question, from a key to the question on the page (issue 20 asks that it stay as it
was: 0.25 to 0.94 s after a key in the issue's walk under `make run`; issue 38, item 11, that its p95
be under 250 ms under `make run` and under 150 ms under `make serve` while 16 operators answer).

    .venv/bin/python -m benchmarks.operator_ui [--answers 60] [--long-job] [--write]
    .venv/bin/python -m benchmarks.operator_ui --serve [--operators 16] [--long-job] [--write]
        [--database-url postgres://postgres@127.0.0.1:5432/vtt_bench_operator_ui] [--redis-url redis://…/0]

The script makes a throwaway platform in a temporary folder: `migrate`, the default vocabulary, 60
reviewed synthetic training scenes fitted into statistics, a test of five rendered street pictures
truthed by operators, one operator. By default it serves it as `make run` does, with `manage.py
runserver` (benchmarks.annotator_ui's throwaway platform) on SQLite, each Celery task run in a thread of
the web process when its transaction commits (TASKS_IN_THREADS). With `--serve` it serves it as `make
serve` does (tests.serving: scripts/serve.sh under supervisord, gunicorn, the workers and the beat) on a
PostgreSQL database of its own (`--database-url`: created, and dropped afterwards; it refuses one that
exists) and Redis (`--redis-url`), with queues of its own whose keys it removes afterwards.

It drives Debian's Chromium on the operator's page: each answer is a key (Y on existence and uniqueness
questions, with a click on the picture first on every other uniqueness question, N elsewhere), pressed
once the question has settled (it takes no answer in its first QUESTION_SETTLE_MS), timed from the key
until the page shows the next question (or the stream's end; then "Take next" opens the next stream, not
timed). It counts the answers whose response did not carry the next question (the stream still
`proposing`: the page then asks again every 250 ms).

`--operators N` (with `--serve`): N simulated operators, benchmarks.http_operators', answer other
streams of the same test meanwhile (in a process of their own, over HTTP through the API as the page
does, thinking `--think` s on average), OPERATOR_IMAGES more test images each; their own figure (answer
sent -> next question received) is reported too. Second opinions and gold work are off (TRUTHING_CHECK_SHARE=0,
TRUTHING_GOLD_SHARE=0), since the simulated operators answer streams only.
`--long-job`: an import of LONG_JOB_SCENES scenes, queued through the API just before the first answer,
runs meanwhile: in a thread of the web process under `make run`, in the service's worker under `--serve`
(the report says whether it was still running at the last answer).

`--write` puts the figures in their section of docs/benchmarks.md (one per mode, with and without the
long job), with the load average before and after the run; the figures also go to benchmarks/out/, where
a `--long-job` run finds the last run without it to compare.
"""

from __future__ import annotations

import argparse
import io
import json
import multiprocessing
import os
import secrets
import sys
import tempfile
import time
import urllib.request
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit, urlunsplit

from benchmarks.annotator_ui import cell, logged_in_page, p95, platform_env, server
from tests.browser import CHROMIUM, CHROMIUM_ARGS
from tests.serving import forget_keys, start_make_serve, stop

if TYPE_CHECKING:
    from playwright.sync_api import ViewportSize

USERNAME = "bench-operator"
ADMIN = "bench-admin"
LONG_JOB_SCENES = 6000
OPERATOR_IMAGES = (
    12  # test images per simulated operator: streams (of a few questions each) for a minute or two
)
VIEWPORT: ViewportSize = {"width": 1400, "height": 900}
WORK = "document.querySelector('[data-testid=work]')"
NO_CHECKS = {"TRUTHING_CHECK_SHARE": "0", "TRUTHING_GOLD_SHARE": "0"}
TARGET_MS = {"run": 250, "serve": 150}  # issue 38, item 11: the p95 without a long job
LONG_JOB_RATIO = 1.5  # ... and with one, at most this times the figure without


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--answers", type=int, default=60, help="Answers to time.")
    parser.add_argument(
        "--long-job",
        nargs="?",
        const="import",
        choices=["import", "fit"],
        help="Time the answers while a long job runs: an import (the default) or a statistics fit.",
    )
    parser.add_argument("--serve", action="store_true", help="Serve as `make serve` does.")
    parser.add_argument("--operators", type=int, default=0, help="Simulated operators meanwhile (--serve).")
    parser.add_argument(
        "--think", type=float, default=1.0, help="A simulated operator's mean time to answer."
    )
    parser.add_argument("--database-url", default="postgres://postgres@127.0.0.1:5432/vtt_bench_operator_ui")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/0")
    parser.add_argument("--write", action="store_true", help="Write the result into docs/benchmarks.md.")
    args = parser.parse_args()
    if args.operators and not args.serve:
        parser.error("--operators needs --serve (the simulated operators need the service's workers)")
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="vtt-operator-bench-") as folder:
        result = (measure_served if args.serve else measure_run)(args, Path(folder))
    result["load"] = (load_before, os.getloadavg())
    long_job = {None: "", "import": "-long-job", "fit": "-long-job-fit"}[args.long_job]
    section = ("operator-ui-serve" if args.serve else "operator-ui") + long_job
    report = render(result, args, section)
    print(report)
    save(section, result)
    if args.write:
        from benchmarks.report import write_section

        write_section(section, report)


def command_line() -> str:
    return " ".join(["python -m benchmarks.operator_ui", *(a for a in sys.argv[1:] if a != "--write")])


def measure_run(args, folder: Path) -> dict:
    """As `make run` serves: runserver on SQLite, tasks in threads of the web process."""
    env = platform_env(folder) | {"TASKS_IN_THREADS": "1"}
    os.environ.update(env)
    password, long_job = setup(operators=0, fit_scenes=args.long_job == "fit")
    long_job["kind"] = args.long_job
    with server(env) as base_url:
        started = start_long_job(base_url, long_job) if args.long_job else None
        result = measure(base_url, password, args.answers)
        result["long_job"] = started and long_job_state(base_url, long_job, started)
    return result


def served_env(folder: Path, args) -> dict[str, str]:
    """The throwaway platform's settings for `make serve`: PostgreSQL, Redis, queues of its own."""
    queue = f"vtt-operator-bench-{uuid.uuid4().hex[:8]}"
    return platform_env(folder) | {
        "DATABASE_URL": args.database_url,
        "REDIS_URL": args.redis_url,
        "CELERY_QUEUE": queue,
        "CELERY_PROPOSAL_QUEUE": f"{queue}-proposals",
        "CELERY_DEAL_QUEUE": f"{queue}-deals",
        **NO_CHECKS,
    }


def measure_served(args, folder: Path) -> dict:
    """As `make serve` serves, with `--operators` simulated operators answering meanwhile."""
    env = served_env(folder, args)
    os.environ.update(env)
    try:
        with scratch_database(args.database_url):
            password, long_job = setup(operators=args.operators)
            base_url, process = start_make_serve({**os.environ, **env}, folder / "serve.log")
            try:
                wait_served(base_url, process, folder / "serve.log")
                with simulated_operators(base_url, long_job["operators"], args.think) as operators:
                    started = start_long_job(base_url, long_job) if args.long_job else None
                    began = time.monotonic()
                    result = measure(base_url, password, args.answers)
                    result["seconds"] = time.monotonic() - began
                    result["open_streams"] = open_streams()
                    result["long_job"] = started and long_job_state(base_url, long_job, started)
            finally:
                stop(process)
                keep_log(folder / "serve.log")
            result["operators"] = operators
    finally:
        forget_keys(args.redis_url, env["CELERY_QUEUE"])
    return result


def open_streams() -> int:
    """Streams still to truth at the browser's last answer: with none, the simulated operators had run out
    of work before it (a thread stops when the queue gives it nothing)."""
    from truthing.models import Stream, StreamState

    return Stream.objects.exclude(state=StreamState.ENDED).count()


def keep_log(log: Path) -> None:
    """The service's log, kept in benchmarks/out/ (the temporary folder goes): what a slow answer did."""
    from benchmarks.report import OUT

    OUT.mkdir(exist_ok=True)
    (OUT / "operator-ui-serve.log").write_bytes(log.read_bytes() if log.exists() else b"")


@contextmanager
def scratch_database(url: str):
    """Create the database `url` names (refusing one that exists: it may be someone's) and drop it after."""
    import psycopg

    parts = urlsplit(url)
    name = parts.path.lstrip("/")
    server_url = urlunsplit(parts._replace(path="/postgres"))
    with psycopg.connect(server_url, autocommit=True) as admin:
        if admin.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            sys.exit(f"The database {name} exists already; drop it or name another with --database-url.")
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield
    finally:
        from django.db import connections

        connections.close_all()
        with psycopg.connect(server_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def wait_served(base_url: str, process, log: Path, timeout: float = 180) -> None:
    """Until the web answers and every stream has its first question (the proposer is at work)."""
    from truthing.models import Stream, StreamState

    deadline = time.monotonic() + timeout
    while True:
        try:
            urllib.request.urlopen(f"{base_url}/healthz", timeout=2)
            if not Stream.objects.filter(state=StreamState.PROPOSING).exists():
                return
        except OSError:
            pass
        if time.monotonic() > deadline or process.poll() is not None:
            sys.exit(f"`make serve` did not come up:\n{log.read_text()[-3000:]}")
        time.sleep(0.5)


@contextmanager
def simulated_operators(base_url: str, tokens: list[str], think: float):
    """benchmarks.http_operators' operators, answering over HTTP in a process of their own (their threads
    do not share this process's interpreter lock with the browser's timing) until the block ends; the list
    it yields is filled then with their answer -> next question latencies (seconds)."""
    latencies: list[float] = []
    if not tokens:
        yield latencies
        return
    context = multiprocessing.get_context("spawn")
    stopping, results = context.Event(), context.Queue()
    child = context.Process(target=operators_answer, args=(base_url, tokens, think, stopping, results))
    child.start()
    try:
        yield latencies
    finally:
        stopping.set()
        latencies.extend(results.get(timeout=300))  # an operator waits at most GIVE_UP_SECONDS a question
        child.join(timeout=60)


def operator_names(count: int) -> list[str]:
    return [f"bench-simulated-{number}" for number in range(count)]


def operators_answer(base_url: str, tokens: list[str], think: float, stopping, results) -> None:
    """In the simulated operators' process: their loop until `stopping` is set."""
    from benchmarks.http_operators import operators_answer_over_http

    results.put(operators_answer_over_http(base_url, tokens, lambda: not stopping.is_set(), think))


def setup(operators: int, fit_scenes: bool = False) -> tuple[str, dict]:
    """Migrate, fit statistics on 60 training scenes and start a test of five pictured test images (and
    OPERATOR_IMAGES more for each simulated operator, who are made too); the operator's password, and
    what the long job needs (an admin's token, a collection of its own; `fit_scenes`: LONG_JOB_SCENES
    reviewed scenes imported into it, for the fit to read)."""
    import django

    django.setup()
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.core.management import call_command
    from django.db import connections

    from accounts.roles import Role
    from accounts.services import token_create, user_create_with_role
    from annotations.models import MemberRole, Split
    from annotations.services.collections import collection_create, membership_set
    from annotations.services.images import image_upload
    from annotations.services.vocabularies import vocabulary_install_default
    from datasets.services.creation import import_create
    from datasets.services.run import import_run
    from demo.synthetic.render import render_scene
    from demo.synthetic.scenes import generate_scenes
    from engine import services as engine_services
    from truthing.services import lifecycle

    call_command("migrate", verbosity=0, interactive=False)
    password = secrets.token_urlsafe(16)
    user = user_create_with_role(username=USERNAME, password=password, role=Role.OPERATOR)
    vocabulary, _ = vocabulary_install_default()
    collection = collection_create(name="Operator benchmark", vocabulary=vocabulary)
    membership_set(collection=collection, user_id=user.pk, role=MemberRole.OPERATOR)
    operator_tokens = []
    for name in operator_names(operators):
        simulated = user_create_with_role(
            username=name, password=secrets.token_urlsafe(16), role=Role.OPERATOR
        )
        membership_set(collection=collection, user_id=simulated.pk, role=MemberRole.OPERATOR)
        operator_tokens.append(token_create(user=simulated, name="simulated operator")[1])
    scenes = "".join(json.dumps(s) + "\n" for s in generate_scenes(60, seed=41)).encode()
    job = import_create(
        collection=collection,
        format="jsonl",
        file=SimpleUploadedFile("training.jsonl", scenes),
        mark_reviewed=True,
        start=False,
    )
    assert import_run(job_id=job.pk).status == "done"
    fit = engine_services.statistics_fit_start(user=None, collections=[collection])
    engine_services.statistics_fit_run(statistics_id=fit.pk)
    # Under TASKS_IN_THREADS the fit's own task may hold the job: this call then leaves it to it.
    deadline = time.monotonic() + 300
    while (fit := type(fit).objects.get(pk=fit.pk)).status != "ready":
        if time.monotonic() > deadline:
            sys.exit(f"The benchmark's statistics did not fit: {fit.status} {fit.message}")
        time.sleep(0.2)
    images = []
    for scene in generate_scenes(
        5 + OPERATOR_IMAGES * operators, seed=45, prefix="bench", width=960, height=640
    ):
        buffer = io.BytesIO()
        render_scene(scene).save(buffer, format="PNG")
        (image,) = image_upload(
            collection=collection, files=[SimpleUploadedFile(scene["image"], buffer.getvalue())]
        ).created
        image.split = Split.TEST
        image.save(update_fields=["split"])
        images.append(image)
    test = lifecycle.create_test(
        name="Operator benchmark",
        statistics=fit,
        image_ids=[i.pk for i in images],
        settings={"min_population": 5, "max_questions": 40},
        seed=7,
    )
    lifecycle.start_test(test=test)
    admin = user_create_with_role(username=ADMIN, password=secrets.token_urlsafe(16), role=Role.ADMIN)
    _, token = token_create(user=admin, name="long job")
    target = collection_create(name="Long job", vocabulary=vocabulary)
    if fit_scenes:
        lines = "".join(
            json.dumps(s) + "\n" for s in generate_scenes(LONG_JOB_SCENES, seed=43, prefix="long")
        )
        job = import_create(
            collection=target,
            format="jsonl",
            file=SimpleUploadedFile("long.jsonl", lines.encode()),
            mark_reviewed=True,
            start=False,
        )
        assert import_run(job_id=job.pk).status == "done"
    connections.close_all()
    return password, {"token": token, "collection": target.pk, "operators": operator_tokens}


def start_long_job(base_url: str, long_job: dict) -> float:
    """Queue an import of LONG_JOB_SCENES scenes (or, `fit`, a fit of the statistics on them, imported by
    the setup) through the API: it runs in a thread of the web process under `make run`, in the jobs
    worker under `make serve`."""
    import httpx

    from demo.synthetic.scenes import generate_scenes

    if long_job.get("kind") == "fit":
        response = httpx.post(
            f"{base_url}/api/v1/statistics/",
            headers={"Authorization": f"Token {long_job['token']}"},
            json={"collections": [long_job["collection"]]},
            timeout=120,
        )
        response.raise_for_status()
        long_job["id"] = response.json()["id"]
        return time.monotonic()

    scenes = "".join(json.dumps(s) + "\n" for s in generate_scenes(LONG_JOB_SCENES, seed=43, prefix="long"))
    response = httpx.post(
        f"{base_url}/api/v1/collections/{long_job['collection']}/imports/",
        headers={"Authorization": f"Token {long_job['token']}"},
        data={"format": "jsonl", "mark_reviewed": "true"},
        files={"file": ("long.jsonl", scenes.encode())},
        timeout=120,
    )
    response.raise_for_status()
    long_job["id"] = response.json()["id"]
    return time.monotonic()


def long_job_state(base_url: str, long_job: dict, started: float) -> str:
    import httpx

    fit = long_job.get("kind") == "fit"
    job = httpx.get(
        f"{base_url}/api/v1/{'statistics' if fit else 'imports'}/{long_job['id']}/",
        headers={"Authorization": f"Token {long_job['token']}"},
        timeout=30,
    ).json()
    if fit:
        return (
            f"a statistics fit on {LONG_JOB_SCENES:,} scenes {job['status']} at the last answer "
            f"({time.monotonic() - started:.0f} s after it was queued)"
        )
    return f"import of {LONG_JOB_SCENES:,} scenes {job['status']} at the last answer ({time.monotonic() - started:.0f} s after it was queued)"


def measure(base_url: str, password: str, answers: int) -> dict:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = logged_in_page(browser, base_url, USERNAME, password, VIEWPORT)
        times: list[float] = []  # milliseconds from key to page, plain answers and marked picks
        marked: list[float] = []
        picks = proposing = 0  # proposing: answers whose response did not carry the next question
        while len(times) + len(marked) < answers:
            page.goto(f"{base_url}/truthing/")
            page.get_by_test_id("take-next").click()
            page.wait_for_selector("body[data-ready=true]")
            while page.evaluate(f"{WORK}.dataset.state") == "pending" and len(times) + len(marked) < answers:
                step = page.evaluate(f"{WORK}.dataset.step")
                question = page.inner_text("[data-testid=question]")
                unique = page.evaluate(f"{WORK}.dataset.pick") == "true"
                if unique and picks % 2 == 0:
                    box = page.locator("svg[data-role=canvas]").bounding_box()
                    assert box is not None  # the canvas is drawn once the page is ready (data-ready)
                    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.7)
                picks += unique
                key = "y" if unique or question.startswith("Is there a") else "n"
                page.wait_for_selector(f"[data-testid=work][data-settled=true][data-step='{step}']")
                started = time.perf_counter()
                with page.expect_response(is_answer) as answered:
                    page.keyboard.press(key)
                page.wait_for_function(
                    f"s => {WORK}.dataset.state === 'ended' || ({WORK}.dataset.state === 'pending' && {WORK}.dataset.step !== s)",
                    arg=step,
                    polling="raf",
                )
                elapsed = (time.perf_counter() - started) * 1000
                (marked if unique and picks % 2 == 1 else times).append(elapsed)
                proposing += answered.value.json()["state"] == "proposing"
        version = browser.version
        browser.close()
    return {"plain": times, "marked": marked, "proposing": proposing, "browser": version}


def is_answer(response) -> bool:
    """The answer's POST (its response carries the next question, or says `proposing`)."""
    return response.request.method == "POST" and response.url.endswith("/answer/")


def save(section: str, result: dict) -> None:
    """The figures as JSON in benchmarks/out/ (a `--long-job` run compares itself with the last run
    without it)."""
    from benchmarks.report import OUT, commit

    OUT.mkdir(exist_ok=True)
    (OUT / f"{section}.json").write_text(json.dumps({**result, "commit": commit()}))


def baseline(section: str) -> dict | None:
    """The last run without the long job, from benchmarks/out/, if there is one."""
    from benchmarks.report import OUT

    path = OUT / f"{section.removesuffix('-fit').removesuffix('-long-job')}.json"
    return json.loads(path.read_text()) if path.exists() else None


def web_workers() -> int:
    """gunicorn's workers as scripts/serve.sh starts them: WEB_WORKERS, or 2 per core plus 1."""
    return int(os.environ.get("WEB_WORKERS") or 2 * (os.cpu_count() or 1) + 1)


def proposers() -> int:
    """The proposer's processes as scripts/serve.sh starts them: PROPOSER_CONCURRENCY, or 2."""
    return int(os.environ.get("PROPOSER_CONCURRENCY") or 2)


def served_how(result: dict, args) -> str:
    if not args.serve:
        return (
            "`manage.py runserver` on SQLite with each task in a thread of the web process as under "
            "`make run` (TASKS_IN_THREADS)"
        )
    operators = (
        f"{args.operators} simulated operators (benchmarks.http_operators', over HTTP, thinking {args.think:g} s on "
        "average) answering other streams of the same test meanwhile"
        if args.operators
        else "no other operator"
    )
    return (
        f"`make serve` (scripts/serve.sh under supervisord: gunicorn with {web_workers()} workers, the jobs worker at "
        f"niceness 10, the proposer with {proposers()} processes, the dealer and the beat) on PostgreSQL and Redis, second opinions and "
        f"gold work off, {operators}"
    )


def verdict(result: dict, args, section: str) -> str:
    """The issue's target for this run, met or not, with the figure it is judged on."""
    both = result["plain"] + result["marked"]
    mode = "serve" if args.serve else "run"
    if not args.long_job:
        target = TARGET_MS[mode]
        met = p95(both) < target
        return f"Target (issue 38, item 11): p95 under {target} ms: {p95(both):.0f} ms, **{'met' if met else 'not met'}**."
    base = baseline(section)
    if base is None:
        return "Target: within 1.5x of the p95 without the long job; no run without it in benchmarks/out/ to compare."
    before = p95(base["plain"] + base["marked"])
    ratio = p95(both) / before
    met = ratio <= LONG_JOB_RATIO
    return (
        f"Target (issue 38, item 11): p95 within {LONG_JOB_RATIO:g}x of the figure without the long job "
        f"({before:.0f} ms, commit {base['commit']}, {len(base['plain'] + base['marked'])} answers): "
        f"{p95(both):.0f} ms, {ratio:.2f}x, **{'met' if met else 'not met'}**."
    )


def operators_line(result: dict) -> str:
    latencies = [1000 * x for x in result.get("operators") or []]
    if not latencies:
        return ""
    median = sorted(latencies)[len(latencies) // 2]
    return (
        f"\nThe simulated operators gave {len(latencies)} answers during the browser's "
        f"{result['seconds']:.0f} s; from an answer sent to the next question received (over HTTP, as "
        f"the page): median {median:.0f} ms, p95 "
        f"{p95(latencies):.0f} ms, max {max(latencies):.0f} ms. Streams not yet ended at the browser's "
        f"last answer: {result['open_streams']} (with none left, the simulated operators had run out of "
        "work).\n"
    )


def render(result: dict, args, section: str) -> str:
    from benchmarks.report import commit, machine

    both = result["plain"] + result["marked"]
    (before, after) = result["load"]
    title = "under `make serve`" if args.serve else "under `make run`"
    job = " with a long job running" if args.long_job else ""
    return f"""## The operator's next question, key to page, {title}{job}

Command: `{command_line()}` (commit {commit()}, {machine()}, Chromium {result["browser"]} headless without
GPU, {served_how(result, args)}; {result["long_job"] or "no long job"}; viewport
{VIEWPORT["width"]}x{VIEWPORT["height"]}, 960x640 rendered streets). Load average (1, 5, 15 min) before the
run {before[0]:.2f}, {before[1]:.2f}, {before[2]:.2f}; after it {after[0]:.2f}, {after[1]:.2f}, {after[2]:.2f}
(other sessions share this machine). Medians, with the 95th percentile.

| what | time |
|---|---|
| key until the next question is on the page (every answer) | {cell(both)} |
| of which answers without a point | {cell(result["plain"])} |
| of which a yes to a uniqueness question carrying the operator's click | {cell(result["marked"]) if result["marked"] else "none asked"} |

Answers whose response did not carry the next question (the stream still `proposing`, so the page asked
again 250 ms later): {result["proposing"]} of {len(both)}.
{operators_line(result)}
{verdict(result, args, section)}

The answer is one POST whose response waits for the next question (the proposal task wakes it on commit:
vtt_site.wakeups, decision 0077); the page polls every 250 ms only when the engine took longer than
TRUTHING_ANSWER_WAIT_SECONDS."""


if __name__ == "__main__":
    main()
