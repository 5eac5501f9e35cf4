"""Browser tests: Playwright drives Debian's Chromium against pytest-django's live server.

The browser is never downloaded (`executable_path` is the system's Chromium). The live server runs in a
thread of the test process and shares its database, so what a test writes through the services is
committed first (`transactional_db`) and what the browser saves is read back through the selectors.
"""

from __future__ import annotations

import io
import os
import re

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from playwright.sync_api import Page, sync_playwright

from accounts.roles import Role
from annotations.models import Image, MemberRole
from annotations.services.annotation import annotation_save
from annotations.services.images import image_upload
from annotations.services.queues import annotation_next
from demo.synthetic.render import render_scene
from tests.browser import CHROMIUM, CHROMIUM_ARGS
from tests.evaluation.conftest import scored_world  # noqa: F401 (the evaluation pages' tests use it)
from tests.factories import PASSWORD, CollectionFactory, MembershipFactory, UserFactory
from tests.truthing.conftest import (  # noqa: F401 (the truthing pages' tests use these fixtures)
    annotated_test_images,
    make_test,
    no_checks_unless_asked,
    operators,
    statistics,
    unannotated_test_images,
)

# Playwright's sync API runs an event loop in this thread; Django refuses ORM calls from a thread with a
# running loop unless told that this is deliberate.
os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"


@pytest.fixture(scope="session")
def browser():
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"Browser tests need Debian's Chromium at {CHROMIUM} (`make chromium` installs it).")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def new_page(browser, live_server):
    """`new_page()`: a page in a fresh browser context (its own cookies: one per user); `new_page(**PHONE)`
    one on a phone's touch screen. A script error on any page fails the test."""
    contexts, errors = [], []

    def make(**options) -> Page:
        defaults = {"base_url": live_server.url, "viewport": {"width": 1400, "height": 900}}
        context = browser.new_context(**(defaults | options))
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(10_000)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda msg: errors.append(msg.text) if _unexpected(msg) else None)
        return page

    yield make
    for context in contexts:
        context.close()
    assert not errors, f"Errors in the browser: {errors}"


# A phone held upright, its browser's bars taken off the screen's 844 px.
PHONE = {"viewport": {"width": 390, "height": 664}, "has_touch": True, "is_mobile": True}


def _unexpected(message) -> bool:
    """Console errors, except the browser's note on a refused request: the tests provoke 4xx answers."""
    expected = re.match(r"Failed to load resource: the server responded with a status of 4\d\d", message.text)
    return message.type == "error" and not expected


@pytest.fixture
def page(new_page) -> Page:
    return new_page()


def login(page: Page, user) -> None:
    page.goto("/login/")
    page.fill("input[name=username]", user.username)
    page.fill("input[name=password]", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url("**/")
    assert page.get_by_text(f"Welcome, {user.username}").is_visible()


@pytest.fixture
def team(transactional_db):
    """A collection with an annotator, a second annotator and a reviewer as members."""
    collection = CollectionFactory(name="Street scenes")
    members = {}
    for name, role, member_role in [
        ("alice", Role.ANNOTATOR, MemberRole.ANNOTATOR),
        ("anton", Role.ANNOTATOR, MemberRole.ANNOTATOR),
        ("rita", Role.REVIEWER, MemberRole.REVIEWER),
    ]:
        members[name] = UserFactory(username=name, role=role)
        MembershipFactory(collection=collection, user=members[name], role=member_role)
    return collection, members


def upload_street(collection, name: str = "street-001.png", size=(960, 640), uploaded_by=None) -> Image:
    """A real PNG (a synthetic street) uploaded through the service, as the upload form does."""
    picture = render_scene(
        {"image": name, "width": size[0], "height": size[1], "objects": [], "relationships": []}
    )
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG")
    result = image_upload(
        collection=collection, files=[SimpleUploadedFile(name, buffer.getvalue())], uploaded_by=uploaded_by
    )
    assert result.created, result.rejected
    return result.created[0]


class Canvas:
    """The annotation SVG, addressed in image pixels (what the API stores), whatever its zoom."""

    def __init__(self, page: Page) -> None:
        self.page = page

    def screen(self, x: float, y: float) -> tuple[float, float]:
        return tuple(
            self.page.evaluate(
                """([x, y]) => {
                    const svg = document.querySelector("svg[data-role=canvas]");
                    const p = new DOMPoint(x, y).matrixTransform(svg.getScreenCTM());
                    return [p.x, p.y];
                }""",
                [x, y],
            )
        )

    def drag(self, start: tuple[float, float], end: tuple[float, float], steps: int = 8) -> None:
        mouse = self.page.mouse
        mouse.move(*self.screen(*start))
        mouse.down()
        mouse.move(*self.screen(*end), steps=steps)
        mouse.up()

    def click(self, x: float, y: float) -> None:
        self.page.mouse.click(*self.screen(x, y))

    def touch_drag(self, start: tuple[float, float], end: tuple[float, float], steps: int = 8) -> None:
        """One finger on a touch screen (a page of `new_page(**PHONE)`): Playwright only taps, so the
        touches go through the DevTools protocol, as a phone's would, scrolling what the page lets scroll."""
        cdp = self.page.context.new_cdp_session(self.page)
        (x0, y0), (x1, y1) = self.screen(*start), self.screen(*end)
        points = [(x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps) for i in range(steps + 1)]
        for kind, (x, y) in [("touchStart", points[0])] + [("touchMove", p) for p in points[1:]]:
            cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": [{"x": x, "y": y}]})
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        cdp.detach()

    def box(self, key: str) -> list[float]:
        return self.page.eval_on_selector(
            f'rect.box[data-key="{key}"]', "r => ['x','y','width','height'].map(a => +r.getAttribute(a))"
        )

    def selected_key(self) -> str | None:
        return self.page.evaluate("document.querySelector('rect.box.selected')?.dataset.key ?? null")

    def count(self) -> int:
        return self.page.locator("rect.box").count()


def open_next(page: Page, collection, action: str = "annotate-next") -> None:
    """From the home page: "Annotate next" (or "Review next") of the collection, then wait for the page."""
    page.goto("/")
    page.locator(f'[data-testid="collection-{collection.pk}"] [data-testid="{action}"]').click()
    page.wait_for_selector("body[data-ready=true]")


def hold_with_annotation(collection, user, document: dict) -> Image:
    """Take the next image for `user` and save `document` as its annotation, through the services."""
    image = annotation_next(collection=collection, user=user)
    assert image is not None
    annotation_save(image=image, user=user, document=document)
    return image


def box(type: str, x: float, y: float, w: float, h: float, *attributes: str, id: str | None = None) -> dict:
    """An object of an annotation document, its attributes known."""
    return {
        "id": id or f"{type[0]}{x}-{y}",
        "type": type,
        "bbox": [x, y, w, h],
        "attributes": list(attributes),
        "attributes_known": True,
    }


def person(x: float, y: float, w: float, h: float, *attributes: str, id: str | None = None) -> dict:
    return box("person", x, y, w, h, *attributes, id=id)


def answer_key(page: Page, key: str) -> None:
    """Press an operator's answer key once the pending question has settled: a question takes no answer
    in its first moments on screen (frontend.views.truthing.QUESTION_SETTLE_MS)."""
    page.wait_for_selector("[data-testid=work][data-settled=true]")
    page.keyboard.press(key)


def shot(page: Page, name: str) -> None:
    """A screenshot for a person to look at, when VTT_SCREENSHOTS names a folder (never in CI's way)."""
    folder = os.environ.get("VTT_SCREENSHOTS")
    if folder:
        os.makedirs(folder, exist_ok=True)
        page.screenshot(path=os.path.join(folder, f"{name}.png"), full_page=True)
