"""The time and the actions to finish an image, with and without a model's suggestions (issue 39).

    .venv/bin/python -m benchmarks.annotator_ui --finish [--images 8] [--recall 0.8] [--box-error 0.08]
        [--attribute-accuracy 0.8] [--false-positives 1] [--write]

The script makes a throwaway platform (benchmarks.annotator_ui's: SQLite, `manage.py runserver`) with one
annotator and two collections of the same `--images` rendered demo street scenes (demo.synthetic): one
without a model, one whose images have a model's suggestions of a stated quality, stored as the model
server's answers are (`Prediction` rows):

- `--recall`: the share of the scene's objects that have a suggestion;
- `--box-error`: each edge of a suggested box is off by a normal error of this share of the box's width
  (left, right) or height (top, bottom);
- `--attribute-accuracy`: the chance that each exclusive group's value is the true one (else another
  value of the group; non-exclusive values are given as they are);
- `--false-positives`: suggestions per image on no object (a random box and type, lower scores).

A simulated annotator then finishes every image of both collections in Chromium, with the page's own
controls, knowing the scene's truth (its objects, boxes and attributes; relationships are left out of
both, since a model suggests none):

- without suggestions: draw mode (D), then per object a drag, the type's number key when the new box is
  not of its type, a click per exclusive group and per true non-exclusive value; Escape;
- with suggestions: per suggestion, best score first, accept it (its key) when it finds an object of its
  type (IoU at least 0.5) not yet found, and then fix what is wrong: a box whose IoU with the truth is
  under BOX_TOLERANCE is moved by its two corner handles (two drags), and each exclusive group with a
  wrong value, and each non-exclusive value that differs, is a click; reject it (its key) when it finds
  nothing; then draw the objects no suggestion found, as without;
- then Ctrl+S and Submit.

It counts the actions (a key, a click, a drag each count one) and times the page from "Annotate next" to
the submission's answer: that is the page's and the server's own time, a floor under a person's. A
person's time is estimated from the actions with the keystroke-level model's operator times (Card,
Moran and Newell): a key 0.28 s, pointing 1.1 s, a button press and release 0.2 s (so a click 1.3 s and
a drag 2.4 s), and a mental preparation 1.35 s before each object decided on (a suggestion or an
object drawn).
"""

from __future__ import annotations

import io
import os
import random
import secrets
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tests.browser import CHROMIUM, CHROMIUM_ARGS

if TYPE_CHECKING:
    from playwright.sync_api import ViewportSize

USERNAME = "bench-finisher"
BOX_TOLERANCE = 0.85  # an IoU under this is a box a careful annotator corrects
MATCH_IOU = 0.5
# The keystroke-level model's operator times, in seconds.
KEY, POINT, PRESS, MENTAL = 0.28, 1.1, 0.2, 1.35
VIEWPORT: ViewportSize = {"width": 1400, "height": 900}


@dataclass
class Finish:
    """One image finished: the page's time and the person's actions."""

    seconds: float = 0.0
    keys: int = 0
    clicks: int = 0
    drags: int = 0
    decisions: int = 0
    accepted: int = 0
    rejected: int = 0
    drawn: int = 0
    edited: int = 0
    log: list[str] = field(default_factory=list)

    @property
    def actions(self) -> int:
        return self.keys + self.clicks + self.drags

    @property
    def person_seconds(self) -> float:
        return (
            self.keys * KEY
            + self.clicks * (POINT + PRESS)
            + self.drags * (2 * POINT + PRESS)
            + self.decisions * MENTAL
        )


# --- the suggestions of a stated quality -----------------------------------------------------------------


def iou(a: list[float], b: list[float]) -> float:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    w = max(0.0, min(ax + aw, bx + bw) - max(ax, bx))
    h = max(0.0, min(ay + ah, by + bh) - max(ay, by))
    inter = w * h
    union = aw * ah + bw * bh - inter
    return inter / union if union > 0 else 0.0


def suggested(scene: dict, groups: dict[str, list[dict]], args, rng: random.Random) -> list[dict]:
    """A model's answer for the scene: boxes of its objects (`--recall` of them) with `--box-error`,
    attribute values right with `--attribute-accuracy`, and `--false-positives` boxes on nothing."""
    out = []
    width, height = scene["width"], scene["height"]
    for obj in scene["objects"]:
        if rng.random() >= args.recall:
            continue
        x, y, w, h = obj["bbox"]
        left, right = x + rng.gauss(0, args.box_error * w), x + w + rng.gauss(0, args.box_error * w)
        top, bottom = y + rng.gauss(0, args.box_error * h), y + h + rng.gauss(0, args.box_error * h)
        box = clipped([left, top, right - left, bottom - top], width, height)
        if box is None:
            continue
        out.append(
            {
                "type": obj["type"],
                "bbox": box,
                "attributes": noisy_attributes(obj, groups[obj["type"]], args.attribute_accuracy, rng),
                "score": round(rng.uniform(0.55, 0.99), 3),
            }
        )
    types = sorted(groups)
    for _ in range(args.false_positives):
        w, h = rng.uniform(20, 80), rng.uniform(30, 90)
        box = clipped([rng.uniform(0, width - w), rng.uniform(0, height - h), w, h], width, height)
        if box is not None and all(iou(box, o["bbox"]) < 0.1 for o in scene["objects"]):
            out.append(
                {
                    "type": rng.choice(types),
                    "bbox": box,
                    "attributes": [],
                    "score": round(rng.uniform(0.2, 0.6), 3),
                }
            )
    return out


def clipped(box: list[float], width: int, height: int) -> list[float] | None:
    x0, y0 = max(0.0, box[0]), max(0.0, box[1])
    x1, y1 = min(float(width), box[0] + box[2]), min(float(height), box[1] + box[3])
    if x1 - x0 < 2 or y1 - y0 < 2:
        return None
    return [round(x0, 1), round(y0, 1), round(x1 - x0, 1), round(y1 - y0, 1)]


def noisy_attributes(obj: dict, groups: list[dict], accuracy: float, rng: random.Random) -> list[str]:
    values = []
    for group in groups:
        held = [v for v in group["values"] if v in obj["attributes"]]
        if not group["exclusive"]:
            values.extend(held)
        elif held:
            values.append(
                held[0]
                if rng.random() < accuracy
                else rng.choice([v for v in group["values"] if v != held[0]])
            )
    return values


# --- the throwaway platform ---------------------------------------------------------------------------------


def setup(args) -> tuple[str, dict[str, Any]]:
    """Migrate; the annotator; the two collections of the same rendered scenes; the suggestions of the
    second one's images stored as a model server's answers are. Returns the password and, per
    collection name, its id and its scenes by image name."""
    import django

    django.setup()
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.core.management import call_command
    from django.db import connections

    from accounts.roles import Role
    from accounts.services import user_create_with_role
    from annotations.models import MemberRole, ModelBackend, ObjectType, Prediction
    from annotations.services.collections import collection_create, membership_set
    from annotations.services.images import image_upload
    from annotations.services.vocabularies import vocabulary_install_default
    from demo.synthetic.render import render_scene
    from demo.synthetic.scenes import generate_scenes

    call_command("migrate", verbosity=0, interactive=False)
    password = secrets.token_urlsafe(16)
    user = user_create_with_role(username=USERNAME, password=password, role=Role.ANNOTATOR)
    vocabulary, _ = vocabulary_install_default()
    groups = vocabulary_groups(vocabulary)
    scenes = [s for s in generate_scenes(args.images * 3, seed=args.seed) if s["objects"]][: args.images]
    pictures = {}
    for scene in scenes:
        buffer = io.BytesIO()
        render_scene(scene).save(buffer, format="PNG")
        pictures[scene["image"]] = buffer.getvalue()
    made: dict[str, Any] = {}
    rng = random.Random(args.seed)
    for name in ("without", "with"):
        collection = collection_create(name=f"Finishing, {name} suggestions", vocabulary=vocabulary)
        membership_set(collection=collection, user_id=user.pk, role=MemberRole.ANNOTATOR)
        images = image_upload(
            collection=collection,
            files=[SimpleUploadedFile(s["image"], pictures[s["image"]]) for s in scenes],
        ).created
        made[name] = {"collection": collection.pk, "scenes": {s["image"]: s for s in scenes}}
        if name == "with":
            ModelBackend.objects.create(
                collection=collection, url="http://model.invalid/", model_version="bench-1"
            )
            types = {t.name: t for t in ObjectType.objects.filter(vocabulary=vocabulary)}
            for image in images:
                for s in suggested(made[name]["scenes"][image.original_name], groups, args, rng):
                    Prediction.objects.create(
                        image=image,
                        model_version="bench-1",
                        object_type=types[s["type"]],
                        x=s["bbox"][0],
                        y=s["bbox"][1],
                        w=s["bbox"][2],
                        h=s["bbox"][3],
                        attributes=s["attributes"],
                        score=s["score"],
                    )
    connections.close_all()
    return password, made


def vocabulary_groups(vocabulary) -> dict[str, list[dict]]:
    """Per object type, its attribute groups as {name, exclusive, values}."""
    from annotations.selectors.vocabularies import core_vocabulary

    core = core_vocabulary(vocabulary)
    return {
        t.name: [{"name": g.name, "exclusive": g.exclusive, "values": list(g.values)} for g in t.groups]
        for t in core.types
    }


# --- the simulated annotator ----------------------------------------------------------------------------------


class Annotator:
    """Drives the annotator's page with its own controls, counting each key, click and drag."""

    def __init__(self, page, groups: dict[str, list[dict]], types: list[str]) -> None:
        self.page, self.groups, self.types = page, groups, types
        self.finish = Finish()

    def screen(self, x: float, y: float) -> tuple[float, float]:
        return tuple(
            self.page.evaluate(
                """([x, y]) => {
                    const p = new DOMPoint(x, y).matrixTransform(document.querySelector("svg[data-role=canvas]").getScreenCTM());
                    return [p.x, p.y];
                }""",
                [x, y],
            )
        )

    def key(self, key: str) -> None:
        self.page.keyboard.press(key)
        self.finish.keys += 1

    def click(self, locator) -> None:
        locator.click()
        self.finish.clicks += 1

    def drag(self, start: tuple[float, float], end: tuple[float, float]) -> None:
        mouse = self.page.mouse
        mouse.move(*self.screen(*start))
        mouse.down()
        mouse.move(*self.screen(*end), steps=4)
        mouse.up()
        self.finish.drags += 1

    def selected(self) -> dict:
        """The selected box as the page holds it: its type, box and attributes."""
        return self.page.evaluate(
            """() => {
                const r = document.querySelector('rect.box.selected');
                const form = document.querySelector('[data-role=attributes]');
                return {
                    key: r.dataset.key,
                    bbox: ['x','y','width','height'].map(a => +r.getAttribute(a)),
                    type: document.querySelector('[data-role=type]')?.value
                        ?? document.querySelector('select[name=type]')?.value,
                    attributes: [...form.querySelectorAll('input[data-value]:checked')].map(i => i.dataset.value),
                };
            }"""
        )

    def draw(self, obj: dict) -> None:
        """A new box for `obj` (draw mode on), then its type and attributes."""
        x, y, w, h = obj["bbox"]
        self.drag((x, y), (x + w, y + h))
        self.finish.drawn += 1
        self.finish.decisions += 1
        now = self.selected()
        if now["type"] != obj["type"]:
            self.key(str(self.types.index(obj["type"]) + 1))
        self.set_attributes(obj, [])

    def set_attributes(self, obj: dict, given: list[str]) -> int:
        """Click what differs from the truth (U when the truth's attributes are unknown: an object
        nobody could tell, such as one hidden behind another); the number of clicks and keys."""
        before = self.finish.clicks + self.finish.keys
        if obj.get("attributes_known") is False:
            self.key("u")
            return self.finish.clicks + self.finish.keys - before
        for group in self.groups[obj["type"]]:
            truth = [v for v in group["values"] if v in obj["attributes"]]
            shown = [v for v in group["values"] if v in given]
            if group["exclusive"]:
                if truth and shown != truth[:1]:
                    self.click(self.input(group["name"], truth[0]))
            else:
                for value in set(truth) ^ set(shown):
                    self.click(self.input(group["name"], value))
        return self.finish.clicks + self.finish.keys - before

    def input(self, group: str, value: str):
        return self.page.locator(f'[data-role=attributes] input[data-group="{group}"][data-value="{value}"]')

    def fix_box(self, shown: list[float], truth: list[float]) -> None:
        """Move the north-west and the south-east handles onto the truth's corners."""
        x, y, w, h = shown
        tx, ty, tw, th = truth
        self.drag((x, y), (tx, ty))
        self.drag((x + w, y + h), (tx + tw, ty + th))

    def picked(self) -> dict | None:
        """The suggestion Y would accept, as the page shows it: in the list (type, score, attributes) and
        on the image (its dashed box); None when none is waiting."""
        return self.page.evaluate(
            """() => {
                const item = document.querySelector('[data-role=suggestion-list] li.picked[data-suggestion]');
                if (!item) return null;
                const rect = document.querySelector(`rect.suggestion[data-suggestion="${item.dataset.suggestion}"]`);
                const name = item.querySelector('.name').textContent.trim();
                const summary = item.querySelector('.summary').textContent.trim();
                return {
                    id: item.dataset.suggestion,
                    type: name.replace(/ [0-9]+%$/, ''),
                    bbox: ['x','y','width','height'].map(a => +rect.getAttribute(a)),
                    attributes: summary === 'no attributes' ? [] : summary.split(', '),
                };
            }"""
        )

    def save_and_submit(self) -> None:
        self.key("Control+s")
        self.page.wait_for_selector("[data-testid=save-state]:text('All changes saved')")
        self.click(self.page.locator("[data-action=submit]"))
        try:
            self.page.wait_for_selector("[data-role=done]:not([hidden])", timeout=15_000)
        except Exception:
            self.page.screenshot(path="/tmp/finish-refused.png", full_page=True)
            raise RuntimeError(
                f"The image was not submitted: {self.page.locator('main').inner_text()[:1500]}"
            ) from None


def finish_without(annotator: Annotator, scene: dict) -> None:
    draw_all(annotator, scene["objects"])


def draw_all(annotator: Annotator, objects: list[dict]) -> None:
    """Draw mode on (a drag over another box then draws instead of moving it), the objects, draw mode off."""
    if not objects:
        return
    annotator.key("d")
    for obj in objects:
        annotator.draw(obj)
    annotator.key("Escape")


def review_suggestions(annotator: Annotator, scene: dict) -> None:
    """Each waiting suggestion, best first (the page picks it): accepted (Y) when it finds an object of
    its type not found yet, then corrected where it is wrong; rejected (X) when it finds none. Then the
    objects no suggestion found are drawn."""
    page, finish = annotator.page, annotator.finish
    page.wait_for_selector("body[data-suggestions]")
    left = list(scene["objects"])
    while (shown := annotator.picked()) is not None:
        finish.decisions += 1
        found = best_match(shown, left)
        if found is None:
            annotator.key("x")
            finish.rejected += 1
            page.wait_for_function(
                "id => !document.querySelector(`[data-role=suggestion-list] li[data-suggestion='${id}']`)",
                arg=shown["id"],
            )
            continue
        left.remove(found)
        annotator.key("y")
        finish.accepted += 1
        # Accepting saves; a person's next move comes well after the save's answer (pointing alone
        # takes a second), so the simulated one waits for it too.
        page.wait_for_selector("[data-testid=save-state]:text('All changes saved')")
        corrected = False
        if iou(shown["bbox"], found["bbox"]) < BOX_TOLERANCE:
            annotator.fix_box(shown["bbox"], found["bbox"])
            corrected = True
        if annotator.set_attributes(found, shown["attributes"]):
            corrected = True
        finish.edited += corrected
    draw_all(annotator, left)


def best_match(shown: dict, objects: list[dict]) -> dict | None:
    """The object of the suggestion's type that its box finds best (IoU at least MATCH_IOU), if any."""
    candidates = [
        (iou(shown["bbox"], o["bbox"]), i) for i, o in enumerate(objects) if o["type"] == shown["type"]
    ]
    score, at = max(candidates, default=(0.0, -1))
    return objects[at] if score >= MATCH_IOU else None


# --- the run ---------------------------------------------------------------------------------------------------


def run(args) -> dict:
    """Both collections' images finished in Chromium; per collection, the list of Finish records."""
    from benchmarks.annotator_ui import platform_env, server

    with tempfile.TemporaryDirectory(prefix="vtt-finish-bench-") as folder:
        env = platform_env(Path(folder)) | {"TASKS_IN_THREADS": "1"}
        os.environ.update(env)
        password, made = setup(args)
        groups = groups_of_default_vocabulary()
        with server(env) as base_url:
            result = drive(base_url, password, made, groups)
        result["stored"] = {name: stored_against_truth(made[name]) for name in made}
    result["scenes"] = list(made["without"]["scenes"].values())
    return result


def stored_against_truth(made: dict) -> dict[str, int]:
    """What the simulated annotator submitted, against each scene's truth: the objects stored, and those
    of the truth's type and attributes with a box of IoU at least BOX_TOLERANCE (each truth object
    matched once). A run whose annotator did not finish its images says so in the report."""
    from annotations.models import Image
    from annotations.selectors.annotation import image_annotation

    stored = matched = truth = 0
    for image in Image.objects.filter(collection_id=made["collection"]):
        objects = image_annotation(image=image)["objects"]
        scene = made["scenes"][image.original_name]
        truth += len(scene["objects"])
        stored += len(objects)
        free = list(objects)
        for obj in scene["objects"]:
            for candidate in free:
                if (
                    candidate["type"] == obj["type"]
                    and sorted(candidate["attributes"]) == sorted(obj["attributes"])
                    and candidate["attributes_known"] == obj.get("attributes_known", True)
                    and iou(candidate["bbox"], obj["bbox"]) >= BOX_TOLERANCE
                ):
                    free.remove(candidate)
                    matched += 1
                    break

    return {"truth": truth, "stored": stored, "matched": matched}


def groups_of_default_vocabulary() -> dict[str, list[dict]]:
    from annotations.models import Vocabulary

    return vocabulary_groups(Vocabulary.objects.get())


def drive(base_url: str, password: str, made: dict, groups: dict[str, list[dict]]) -> dict:
    from playwright.sync_api import sync_playwright

    from benchmarks.annotator_ui import logged_in_page

    types = list(groups)
    results: dict[str, Any] = {}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        page = logged_in_page(browser, base_url, USERNAME, password, VIEWPORT)
        for name in ("without", "with"):
            finished = []
            for _ in made[name]["scenes"]:
                began = time.perf_counter()
                page.goto(f"{base_url}/")
                page.locator(
                    f'[data-testid="collection-{made[name]["collection"]}"] [data-testid="annotate-next"]'
                ).click()
                page.wait_for_selector("body[data-ready=true]")
                scene = made[name]["scenes"][image_name(page)]
                annotator = Annotator(page, groups, types)
                if name == "with":
                    review_suggestions(annotator, scene)
                else:
                    finish_without(annotator, scene)
                annotator.save_and_submit()
                annotator.finish.seconds = time.perf_counter() - began
                finished.append(annotator.finish)
            results[name] = finished
        results["browser_version"] = browser.version
        browser.close()
    return results


def image_name(page) -> str:
    """The image's original name, as the page's data gives it."""
    return page.evaluate("JSON.parse(document.getElementById('page-data').textContent).image.name")


# --- the report ----------------------------------------------------------------------------------------------

COMMAND = ".venv/bin/python -m benchmarks.annotator_ui --finish --write"


def totals(finished: list[Finish]) -> dict[str, float]:
    n = len(finished) or 1
    return {
        "images": len(finished),
        "actions": sum(f.actions for f in finished) / n,
        "keys": sum(f.keys for f in finished) / n,
        "clicks": sum(f.clicks for f in finished) / n,
        "drags": sum(f.drags for f in finished) / n,
        "page": sum(f.seconds for f in finished) / n,
        "person": sum(f.person_seconds for f in finished) / n,
        "accepted": sum(f.accepted for f in finished),
        "edited": sum(f.edited for f in finished),
        "rejected": sum(f.rejected for f in finished),
        "drawn": sum(f.drawn for f in finished),
    }


def stored_line(counts: dict[str, int]) -> str:
    return f"{counts['matched']} of {counts['truth']} objects right ({counts['stored']} stored)"


def render(result: dict, args) -> str:
    from benchmarks.report import commit, machine

    without, with_ = totals(result["without"]), totals(result["with"])
    objects = sum(len(s["objects"]) for s in result["scenes"])

    def saved(key: str) -> str:
        return f"{100 * (1 - with_[key] / without[key]):.0f}%" if without[key] else "-"

    return f"""## Finishing an image, with and without a model's suggestions (issue 39)

Command: `{COMMAND} --images {args.images} --recall {args.recall:g} --box-error {args.box_error:g} --attribute-accuracy {args.attribute_accuracy:g} --false-positives {args.false_positives}` (commit {commit()}, {machine()}, Chromium {result["browser_version"]} headless without GPU, `manage.py runserver` on SQLite, viewport {VIEWPORT["width"]}x{VIEWPORT["height"]}).

The same {without["images"]} rendered demo street scenes (640x480, {objects} objects in all), finished
once in a collection without a model and once in one whose images carry suggestions of the stated
quality: {args.recall:.0%} of the objects suggested, each edge off by a normal error of
{args.box_error:.0%} of the box's size, each exclusive attribute right with probability
{args.attribute_accuracy:g}, and {args.false_positives} suggestion(s) per image on nothing. A simulated
annotator who knows each scene's truth finishes every image with the page's own keys, clicks and drags
(benchmarks/finish_images.py says how); relationships are left out of both.

| per image | without suggestions | with suggestions | saved |
|---|---|---|---|
| actions (keys + clicks + drags) | {without["actions"]:.1f} | {with_["actions"]:.1f} | {saved("actions")} |
| of which keys | {without["keys"]:.1f} | {with_["keys"]:.1f} | |
| of which clicks | {without["clicks"]:.1f} | {with_["clicks"]:.1f} | |
| of which drags | {without["drags"]:.1f} | {with_["drags"]:.1f} | |
| a person's time, estimated (keystroke-level model) | {without["person"]:.1f} s | {with_["person"]:.1f} s | {saved("person")} |
| the page's and server's own time ("Annotate next" to submitted) | {without["page"]:.2f} s | {with_["page"]:.2f} s | |

Submitted, against the truth (same type and attributes, box IoU at least {BOX_TOLERANCE}): without
suggestions {stored_line(result["stored"]["without"])}; with {stored_line(result["stored"]["with"])}.

With suggestions: {with_["accepted"]} accepted (of which {with_["edited"]} then corrected), {with_["rejected"]}
rejected, {with_["drawn"]} objects drawn that no suggestion found; without: {without["drawn"]} drawn.

A person's time is the keystroke-level model's (Card, Moran and Newell): a key {KEY} s, pointing {POINT} s, a
press and release {PRESS} s (a click {POINT + PRESS:.1f} s, a drag {2 * POINT + PRESS:.1f} s), and {MENTAL} s of
mental preparation per object decided on (a suggestion looked at, or an object drawn). It is an
estimate of an expert's time, not a measurement of people; the page's own time is measured, and is a
floor under anyone's."""
