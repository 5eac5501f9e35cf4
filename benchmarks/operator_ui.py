"""The operator's next question, from a key to the question on the page (issue 20 asks that it stay as it
was: 0.25 to 0.94 s after a key in the issue's walk under `make run`).

    .venv/bin/python -m benchmarks.operator_ui [--answers 60] [--write]

The script makes a throwaway platform in a temporary folder, as `make run` does (SQLite, Celery tasks run
in-process when the answer commits): `migrate`, the default vocabulary, 60 reviewed synthetic training
scenes fitted into statistics, a test of five rendered street pictures truthed by operators, one operator.
It serves it with `manage.py runserver` (benchmarks.annotator_ui's throwaway platform) and drives
Debian's Chromium on the operator's page: each answer is a key (Y on existence and uniqueness questions,
with a click on the picture first on every other uniqueness question, N elsewhere), timed from the key
until the page shows the next question (or the stream's end; then "Take next" opens the next stream,
not timed). `--write` puts the figures in their section of docs/benchmarks.md.
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
VIEWPORT: ViewportSize = {"width": 1400, "height": 900}
COMMAND = ".venv/bin/python -m benchmarks.operator_ui --write"
WORK = "document.querySelector('[data-testid=work]')"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--answers", type=int, default=60, help="Answers to time.")
    parser.add_argument("--write", action="store_true", help="Write the result into docs/benchmarks.md.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="vtt-operator-bench-") as folder:
        env = platform_env(Path(folder))
        os.environ.update(env)
        password = setup()
        with server(env) as base_url:
            result = measure(base_url, password, args.answers)
    report = render(result)
    print(report)
    if args.write:
        from benchmarks.report import write_section

        write_section("operator-ui", report)


def setup() -> str:
    """Migrate, fit statistics on 60 training scenes and start a test of five pictured test images."""
    import django

    django.setup()
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.core.management import call_command
    from django.db import connections

    from accounts.roles import Role
    from accounts.services import user_create_with_role
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
    connections.close_all()
    return password


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
`manage.py runserver` on SQLite with tasks run in-process as under `make run`, viewport
{VIEWPORT["width"]}x{VIEWPORT["height"]}, five 960x640 rendered streets). Medians, with the 95th percentile.

| what | time |
|---|---|
| key until the next question is on the page (every answer) | {cell(both)} |
| of which answers without a point | {cell(result["plain"])} |
| of which a yes to a uniqueness question carrying the operator's click | {cell(result["marked"]) if result["marked"] else "none asked"} |

The answer is one POST whose response is the next question (the proposal runs in-process on commit);
the page polls every 250 ms only when the engine is still at work."""


if __name__ == "__main__":
    main()
