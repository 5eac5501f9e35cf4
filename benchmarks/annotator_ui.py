"""How the annotator's page behaves with 100 boxes on one image (issue 3 asks that it stay responsive).

    .venv/bin/python -m benchmarks.annotator_ui [--steps 300] [--write]
    .venv/bin/python -m benchmarks.annotator_ui --finish [--images 8] [--recall 0.8] [--box-error 0.08] [--write]

The script makes a throwaway platform in a temporary folder (SQLite, `migrate`, one annotator, a
1280x800 synthetic street with 100 boxes and 20 relationships, leased to the annotator), serves it with
`manage.py runserver`, and drives Debian's Chromium (headless, through Playwright) on the annotator's
page. It measures:

- page ready: navigation start to the script's `vtt:ready` mark (boxes drawn, panel built, shortcuts
  live), and to the picture's load;
- a drag step: the mouse is pressed on a box and moved one step at a time. In the page, from the
  `pointermove` event's time stamp to the end of the page's handler (the box's new coordinates are
  written) and to the next animation frame (when they are painted); from outside, Playwright's
  mouse move until the box's attribute reads back the new position;
- select: a click on a box, from `pointerdown` to the end of the handlers (box, handles, form, list)
  and to the next frame; and from outside, the click until the page reports the box selected;
- save: Ctrl+S until the page says "All changes saved" (a PUT of the 100 boxes, validated and stored
  by the server in one transaction).

`--finish` measures something else: the time and the actions to finish images with and without a
model's suggestions of a stated quality (benchmarks.finish_images says how).

`--write` puts the figures in their section of docs/benchmarks.md. The database and the server are the
embedded defaults, so only the page and the local server are measured.
"""

from __future__ import annotations

import argparse
import io
import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from tests.browser import CHROMIUM, CHROMIUM_ARGS
from tests.serving import free_port

if TYPE_CHECKING:
    from playwright.sync_api import ViewportSize

ROOT = Path(__file__).resolve().parent.parent
WIDTH, HEIGHT = 1280, 800
VIEWPORT: ViewportSize = {"width": 1400, "height": 900}
USERNAME = "bench-annotator"
COMMAND = ".venv/bin/python -m benchmarks.annotator_ui --write"


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--steps", type=int, default=300, help="Drag steps to time.")
    parser.add_argument("--loads", type=int, default=15, help="Page loads to time.")
    parser.add_argument("--selects", type=int, default=40, help="Box selections to time.")
    parser.add_argument("--saves", type=int, default=15, help="Saves to time.")
    parser.add_argument("--write", action="store_true", help="Write the result into docs/benchmarks.md.")
    finish = parser.add_argument_group(
        "--finish: images finished with and without suggestions (benchmarks.finish_images)"
    )
    finish.add_argument("--finish", action="store_true", help="Time and count the actions to finish images.")
    finish.add_argument("--images", type=int, default=8, help="Rendered demo scenes to finish, in each arm.")
    finish.add_argument("--seed", type=int, default=5)
    finish.add_argument("--recall", type=float, default=0.8, help="Share of the objects suggested.")
    finish.add_argument(
        "--box-error", type=float, default=0.08, help="Error of each edge, share of the size."
    )
    finish.add_argument(
        "--attribute-accuracy", type=float, default=0.8, help="Chance an exclusive value is right."
    )
    finish.add_argument("--false-positives", type=int, default=1, help="Suggestions per image on nothing.")
    args = parser.parse_args()
    if args.finish:
        finish_images(args)
        return

    with tempfile.TemporaryDirectory(prefix="vtt-ui-bench-") as folder:
        env = platform_env(Path(folder))
        os.environ.update(env)  # this process sets up the data with the same settings as the server
        password, image_id = setup()
        with server(env) as base_url:
            result = measure(base_url, password, image_id, args)
    report = render(result, args)
    print(report)
    if args.write:
        from benchmarks.report import write_section

        write_section("annotator-ui", report)


def finish_images(args) -> None:
    from benchmarks import finish_images as finishing

    report = finishing.render(finishing.run(args), args)
    print(report)
    if args.write:
        from benchmarks.report import write_section

        # One section per quality of suggestions, so that runs at several qualities stand side by side.
        quality = f"{args.recall:g}-{args.box_error:g}-{args.attribute_accuracy:g}-{args.false_positives}"
        write_section(f"annotator-finish-{quality}", report)


# --- a throwaway platform -------------------------------------------------------------------------------


def platform_env(folder: Path) -> dict[str, str]:
    return {
        "DJANGO_SETTINGS_MODULE": "vtt_site.settings",
        "VAR_DIR": str(folder),
        "SQLITE_PATH": str(folder / "bench.sqlite3"),
        "MEDIA_ROOT": str(folder / "media"),
        "DATABASE_URL": "",
        "REDIS_URL": "",
        "DEBUG": "0",
        "SECRET_KEY": secrets.token_urlsafe(40),
        "LOG_LEVEL": "WARNING",
        "LEASE_MINUTES": "600",
    }


def setup() -> tuple[str, int]:
    """Migrate the scratch database and make the annotator, the collection and the image with 100 boxes."""
    import django

    django.setup()
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.core.management import call_command
    from django.db import connections

    from accounts.roles import Role
    from accounts.services import user_create_with_role
    from annotations.models import MemberRole
    from annotations.services.annotation import annotation_save
    from annotations.services.collections import collection_create, membership_set
    from annotations.services.images import image_upload
    from annotations.services.queues import annotation_next
    from annotations.services.vocabularies import vocabulary_install_default
    from demo.synthetic.render import render_scene

    call_command("migrate", verbosity=0, interactive=False)
    password = secrets.token_urlsafe(16)
    user = user_create_with_role(username=USERNAME, password=password, role=Role.ANNOTATOR)
    vocabulary, _ = vocabulary_install_default()
    collection = collection_create(name="UI benchmark", vocabulary=vocabulary)
    membership_set(collection=collection, user_id=user.pk, role=MemberRole.ANNOTATOR)
    picture = render_scene(
        {"image": "bench.png", "width": WIDTH, "height": HEIGHT, "objects": [], "relationships": []}
    )
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG")
    image_upload(collection=collection, files=[SimpleUploadedFile("bench.png", buffer.getvalue())])
    image = annotation_next(collection=collection, user=user)
    assert image is not None  # the image just uploaded is free to annotate
    annotation_save(image=image, user=user, document=hundred_boxes())
    connections.close_all()
    return password, image.pk


def grid_box(i: int) -> list[int]:
    row, column = divmod(i, 10)
    return [column * 126 + 8, row * 78 + 6, 110, 64]


def hundred_boxes() -> dict:
    """A 10 x 10 grid of people and vehicles with attributes, and 20 relationships between neighbours."""
    objects = []
    for i in range(100):
        person = i % 3 != 2
        objects.append(
            {
                "id": f"o{i}",
                "type": "person" if person else "vehicle",
                "bbox": grid_box(i),
                "attributes": ["female", "walking"] if person else ["car", "parked"],
                "attributes_known": i % 7 != 0,
            }
        )
        if i % 7 == 0:
            objects[-1]["attributes"] = []
    relationships = [
        {"subject": f"o{i}", "predicate": "closer than", "object": f"o{i + 1}"} for i in range(0, 100, 5)
    ]
    return {"objects": objects, "relationships": relationships}


@contextmanager
def server(env: dict[str, str]):
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
        cwd=ROOT,
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base_url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{base_url}/healthz", timeout=2)
                break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("The Django server did not start.") from None
                time.sleep(0.2)
        yield base_url
    finally:
        process.terminate()
        process.wait(timeout=20)


# --- measuring in the browser ---------------------------------------------------------------------------

# Installed in the page. A capturing listener on window runs before the page's own handlers and a
# bubbling one after them (the event bubbles up from the SVG), so together they time the page's work;
# the next animation frame is when the browser paints what they wrote. Event time stamps (when the
# input was created) and performance.now() share one clock.
PROBE = """(eventType) => {
    window.samples = [];
    let started = 0;
    window.addEventListener(eventType, () => { started = performance.now(); }, {capture: true});
    window.addEventListener(eventType, (e) => {
        const handled = performance.now();
        requestAnimationFrame(() => window.samples.push(
            {work: handled - started, handled: handled - e.timeStamp, frame: performance.now() - e.timeStamp}));
    });
}"""


def measure(base_url: str, password: str, image_id: int, args) -> dict:
    from playwright.sync_api import sync_playwright

    url = f"{base_url}/images/{image_id}/annotate/"
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = logged_in_page(browser, base_url, USERNAME, password, VIEWPORT)
        result = {
            "load": page_loads(page, url, args.loads),
            "drag": drag_steps(page, args.steps),
            "select": selections(page, args.selects),
            "save": saves(page, args.saves),
            "browser": browser.version,
        }
        browser.close()
    return result


def logged_in_page(browser, base_url: str, username: str, password: str, viewport: ViewportSize):
    """A new page of `browser`, logged in through the login form, on the home page."""
    page = browser.new_context(viewport=viewport).new_page()
    page.goto(f"{base_url}/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_url(f"{base_url}/")
    return page


def page_loads(page, url: str, count: int) -> dict:
    ready, picture = [], []
    page.goto(url)  # a first load warms the static files' and the image's caches, as for a working annotator
    page.wait_for_selector("body[data-ready=true][data-image-loaded=true]")
    for _ in range(count):
        page.goto(url)
        page.wait_for_selector("body[data-ready=true][data-image-loaded=true]")
        marks = page.evaluate(
            "['vtt:ready', 'vtt:image-loaded'].map((name) => performance.getEntriesByName(name)[0].startTime)"
        )
        ready.append(marks[0])
        picture.append(marks[1])
    assert page.locator("rect.box").count() == 100
    return {"ready": ready, "picture": picture}


def screen_point(page, x: float, y: float) -> tuple[float, float]:
    return tuple(
        page.evaluate(
            """([x, y]) => {
                const p = new DOMPoint(x, y).matrixTransform(document.querySelector("svg[data-role=canvas]").getScreenCTM());
                return [p.x, p.y];
            }""",
            [x, y],
        )
    )


def drag_steps(page, steps: int) -> dict:
    x, y, w, h = grid_box(44)
    sx, sy = screen_point(page, x + w / 2, y + h / 2)
    zoom = screen_point(page, 1, 0)[0] - screen_point(page, 0, 0)[0]  # screen pixels per image pixel
    page.mouse.move(sx, sy)
    page.mouse.down()
    key = page.evaluate("document.querySelector('rect.box.selected').dataset.key")
    page.evaluate(PROBE, "pointermove")
    outside = []
    for step in range(1, steps + 1):
        dx = (step % 40) - 20  # back and forth, 1 image pixel per step (more on screen when zoomed in)
        expected_x = x + dx
        started = time.perf_counter()
        page.mouse.move(sx + dx * zoom, sy)
        page.wait_for_function(
            f"Math.abs(document.querySelector('rect.box[data-key=\"{key}\"]').getAttribute('x') - {expected_x}) < 0.5",
            polling="raf",
        )
        outside.append((time.perf_counter() - started) * 1000)
    page.mouse.up()
    page.wait_for_timeout(100)
    return {**samples(page), "outside": outside}


def samples(page) -> dict[str, list[float]]:
    inside = page.evaluate("window.samples")
    return {name: [sample[name] for sample in inside] for name in ("work", "handled", "frame")}


def selections(page, count: int) -> dict:
    page.reload()
    page.wait_for_selector("body[data-ready=true]")
    page.evaluate(PROBE, "pointerdown")
    outside = []
    for i in range(count):
        index = (i * 37) % 100
        x, y, w, h = grid_box(index)
        point = screen_point(page, x + w / 2, y + h / 2)
        started = time.perf_counter()
        page.mouse.click(*point)
        page.wait_for_function(
            "(box) => document.querySelector('rect.box.selected')?.getAttribute('x') == box[0]"
            " && document.querySelector('rect.box.selected')?.getAttribute('y') == box[1]",
            arg=[x, y],
            polling="raf",
        )
        outside.append((time.perf_counter() - started) * 1000)
    page.wait_for_timeout(100)
    return {**samples(page), "outside": outside}


def saves(page, count: int) -> list[float]:
    state = page.locator("[data-testid=save-state]")
    times = []
    for i in range(count):
        page.keyboard.press("ArrowRight" if i % 2 == 0 else "ArrowLeft")  # a change to save
        assert state.inner_text() == "Unsaved changes"
        started = time.perf_counter()
        page.keyboard.press("Control+s")
        page.wait_for_selector("[data-testid=save-state]:text('All changes saved')")
        times.append((time.perf_counter() - started) * 1000)
    return times


# --- the report -----------------------------------------------------------------------------------------


def median(values: list[float]) -> float:
    return statistics.median(values)


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def cell(values: list[float]) -> str:
    return f"{median(values):.1f} ms (p95 {p95(values):.1f}, n={len(values)})"


def render(result: dict, args) -> str:
    from benchmarks.report import commit, machine

    load, drag, select = result["load"], result["drag"], result["select"]
    return f"""## The annotator's page with 100 boxes

Command: `{COMMAND}` (commit {commit()}, {machine()}, Chromium {result["browser"]} headless without GPU,
`manage.py runserver` on SQLite, viewport {VIEWPORT["width"]}x{VIEWPORT["height"]}, image {WIDTH}x{HEIGHT} with
100 boxes and 20 relationships). Medians, with the 95th percentile.

| what | time |
|---|---|
| page ready: navigation start to boxes drawn and the panel live | {cell(load["ready"])} |
| page ready including the picture (served by the authenticated file endpoint) | {cell(load["picture"])} |
| drag step: the page's handlers (box and handles written) | {cell(drag["work"])} |
| drag step: input event created to the box's coordinates written | {cell(drag["handled"])} |
| drag step: input event created to the next animation frame (painted) | {cell(drag["frame"])} |
| drag step, from Playwright: mouse move until the box reads back its new place | {cell(drag["outside"])} |
| select: the page's handlers (box, handles, form and list) | {cell(select["work"])} |
| select: input event created to the next animation frame | {cell(select["frame"])} |
| select, from Playwright: click until the page reports the box selected | {cell(select["outside"])} |
| save round trip: Ctrl+S until "All changes saved" (PUT of 100 boxes, validated, stored) | {cell(result["save"])} |

A drag step writes the dragged `<rect>` and the selection's outline and handles and reads nothing from
the layout, so by construction its cost does not depend on how many boxes there are. Chromium delivers pointer moves aligned
with animation frames, which is most of the time between the input event and the handlers; the
Playwright figures add the DevTools protocol's round trip and a polling frame."""


if __name__ == "__main__":
    main()
