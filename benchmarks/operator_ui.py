"""The operator's next question, from a key to the question on the page (issue 20 asks that it stay as it
was: 0.25 to 0.94 s after a key in the issue's walk under `make run`).

    .venv/bin/python -m benchmarks.operator_ui [--answers 60] [--long-job] [--write]

The script makes a throwaway platform in a temporary folder, as `make run` does (SQLite, each Celery
task run in a thread of the web process when its transaction commits, TASKS_IN_THREADS): `migrate`, the
default vocabulary, 60 reviewed synthetic training scenes fitted into statistics, a test of five rendered
street pictures truthed by operators, one operator. It serves it with `manage.py runserver`
(benchmarks.annotator_ui's throwaway platform) and drives Debian's Chromium on the operator's page: each
answer is a key (Y on existence and uniqueness questions, with a click on the picture first on every
other uniqueness question, N elsewhere), pressed once the question has settled (it takes no answer in
its first QUESTION_SETTLE_MS), timed from the key until the page shows the next question (or the
stream's end; then "Take next" opens the next stream, not timed). `--long-job`: an import of
LONG_JOB_SCENES scenes, queued through the API just before the first answer, runs in a thread of the
same web process meanwhile (the report says whether it was still running at the last answer).
`--write` puts the figures in their section of docs/benchmarks.md (`--long-job`: its own section).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import secrets
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarks.annotator_ui import cell, platform_env, server
from tests.browser import CHROMIUM, CHROMIUM_ARGS

if TYPE_CHECKING:
    from playwright.sync_api import ViewportSize

USERNAME = "bench-operator"
ADMIN = "bench-admin"
LONG_JOB_SCENES = 6000
VIEWPORT: ViewportSize = {"width": 1400, "height": 900}
COMMAND = ".venv/bin/python -m benchmarks.operator_ui --write"
WORK = "document.querySelector('[data-testid=work]')"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--answers", type=int, default=60, help="Answers to time.")
    parser.add_argument("--long-job", action="store_true", help="Time the answers while an import runs.")
    parser.add_argument("--write", action="store_true", help="Write the result into docs/benchmarks.md.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="vtt-operator-bench-") as folder:
        env = platform_env(Path(folder)) | {"TASKS_IN_THREADS": "1"}  # as `make run` serves
        os.environ.update(env)
        password, long_job = setup()
        with server(env) as base_url:
            started = start_long_job(base_url, long_job) if args.long_job else None
            result = measure(base_url, password, args.answers)
            result["long_job"] = started and long_job_state(base_url, long_job, started)
    report = render(result)
    print(report)
    if args.write:
        from benchmarks.report import write_section

        write_section("operator-ui-long-job" if args.long_job else "operator-ui", report)


def setup() -> tuple[str, dict]:
    """Migrate, fit statistics on 60 training scenes and start a test of five pictured test images; the
    operator's password, and what the long job needs (an admin's token, a collection of its own)."""
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
    from annotations.services.imports import import_create, import_run
    from annotations.services.vocabularies import vocabulary_install_default
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
    fit.refresh_from_db()
    images = []
    for scene in generate_scenes(5, seed=45, prefix="bench", width=960, height=640):
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
    connections.close_all()
    return password, {"token": token, "collection": target.pk}


def start_long_job(base_url: str, long_job: dict) -> float:
    """Queue an import of LONG_JOB_SCENES scenes through the API: it runs in a thread of the server."""
    import httpx

    from demo.synthetic.scenes import generate_scenes

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

    job = httpx.get(
        f"{base_url}/api/v1/imports/{long_job['id']}/",
        headers={"Authorization": f"Token {long_job['token']}"},
        timeout=30,
    ).json()
    return f"import of {LONG_JOB_SCENES:,} scenes {job['status']} at the last answer ({time.monotonic() - started:.0f} s after it was queued)"


def measure(base_url: str, password: str, answers: int) -> dict:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = browser.new_context(viewport=VIEWPORT).new_page()
        page.goto(f"{base_url}/login/")
        page.fill("input[name=username]", USERNAME)
        page.fill("input[name=password]", password)
        page.click("button[type=submit]")
        page.wait_for_url(f"{base_url}/")
        times: list[float] = []  # milliseconds from key to page, plain answers and marked picks
        marked: list[float] = []
        picks = 0
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
                page.keyboard.press(key)
                page.wait_for_function(
                    f"s => {WORK}.dataset.state === 'ended' || ({WORK}.dataset.state === 'pending' && {WORK}.dataset.step !== s)",
                    arg=step,
                    polling="raf",
                )
                elapsed = (time.perf_counter() - started) * 1000
                (marked if unique and picks % 2 == 1 else times).append(elapsed)
        version = browser.version
        browser.close()
    return {"plain": times, "marked": marked, "browser": version}


def render(result: dict) -> str:
    from benchmarks.report import commit, machine

    both = result["plain"] + result["marked"]
    return f"""## The operator's next question, key to page

Command: `{COMMAND}` (commit {commit()}, {machine()}, Chromium {result["browser"]} headless without GPU,
`manage.py runserver` on SQLite with each task in a thread of the web process as under `make run`
(TASKS_IN_THREADS), {result["long_job"] or "nothing else running"}, viewport
{VIEWPORT["width"]}x{VIEWPORT["height"]}, five 960x640 rendered streets). Medians, with the 95th percentile.

| what | time |
|---|---|
| key until the next question is on the page (every answer) | {cell(both)} |
| of which answers without a point | {cell(result["plain"])} |
| of which a yes to a uniqueness question carrying the operator's click | {cell(result["marked"]) if result["marked"] else "none asked"} |

The answer is one POST whose response waits for the next question (the proposal runs in a thread on
commit and wakes it: vtt_site.wakeups, decision 0077); the page polls every 250 ms only when the engine
took longer than TRUTHING_ANSWER_WAIT_SECONDS."""


if __name__ == "__main__":
    main()
