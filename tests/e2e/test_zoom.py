"""Zoom and pan (js/zoom.js) in the annotator's and the reviewer's pages: a box drawn, moved or resized at
any zoom is stored in image pixels; the wheel, the keys, Space+drag and a pinch move the view and never
a box; handles and names keep their size on screen; on a phone no name covers another.

Where a test needs the image point under a screen point, it computes it from what the page shows (the
image's size, the SVG's place on screen, the zoom level) and not from the SVG's own screen matrix, which
is what the page itself uses: a page that forgot the zoom would agree with itself."""

from __future__ import annotations

import pytest

from annotations.models import Image
from annotations.selectors.annotation import image_annotation
from annotations.services.annotation import annotation_submit
from tests.e2e.conftest import hold_with_annotation, login, open_next, person, shot, upload_street

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTH, HEIGHT = 960, 640  # upload_street's image
COMPLETE = ("male", "adult", "standing still", "on sidewalk")


class View:
    """The stage as a person sees it: where the SVG is on screen, and what the viewBox shows."""

    def __init__(self, page) -> None:
        self.page = page
        self.svg = page.locator("svg[data-role=canvas]")

    def rect(self) -> dict:
        return self.svg.bounding_box()

    def centre(self) -> tuple[float, float]:
        r = self.rect()
        return r["x"] + r["width"] / 2, r["y"] + r["height"] / 2

    def fit_scale(self) -> float:
        r = self.rect()
        return min(r["width"] / WIDTH, r["height"] / HEIGHT)

    def level(self) -> float:
        """The zoom shown over the image (4 and a multiplication sign), as a number."""
        return float(self.page.get_by_test_id("zoom-level").inner_text().rstrip("\N{MULTIPLICATION SIGN}"))

    def view_box(self) -> list[float]:
        return [float(v) for v in self.svg.get_attribute("viewBox").split()]

    def image_point(self, x: float, y: float) -> tuple[float, float]:
        """The image point under screen point (x, y), from the viewBox and the SVG's size on screen."""
        r = self.rect()
        vx, vy, vw, vh = self.view_box()
        return vx + (x - r["x"]) * vw / r["width"], vy + (y - r["y"]) * vh / r["height"]

    def screen_size(self, selector: str) -> tuple[float, float]:
        """The element's geometry on screen, without its stroke (which keeps its own size)."""
        size = self.page.eval_on_selector(
            selector, "e => { const r = e.getBoundingClientRect(); return [r.width, r.height]; }"
        )
        return size[0], size[1]


def stored_boxes(image) -> list[list[float]]:
    return [o["bbox"] for o in image_annotation(image=Image.objects.get(pk=image.pk))["objects"]]


def save(page) -> None:
    page.keyboard.press("Control+s")
    page.wait_for_selector("[data-testid=save-state]:text('All changes saved')")


def drag(page, start, end, *, button="left") -> None:
    page.mouse.move(*start)
    page.mouse.down(button=button)
    page.mouse.move(*end, steps=8)
    page.mouse.up(button=button)


def near(actual, expected, tolerance: float = 1.0) -> bool:
    return all(abs(a - e) <= tolerance for a, e in zip(actual, expected, strict=True))


def zoom_to_four(page, view: View) -> None:
    for _ in range(4):  # 1 → 1.5 → 2 → 3 → 4
        page.keyboard.press("+")
    assert view.level() == 4


def test_a_box_drawn_moved_and_resized_at_four_times_is_stored_in_image_pixels(team, page):
    collection, members = team
    image = upload_street(collection)
    login(page, members["alice"])
    open_next(page, collection)
    view = View(page)
    assert view.level() == 1

    zoom_to_four(page, view)
    # Zoomed about the centre from the fitted image: the image's centre stays at the stage's centre,
    # and one image pixel is four times the fitted size on screen.
    cx, cy = view.centre()
    scale = 4 * view.fit_scale()

    def under(sx: float, sy: float) -> tuple[float, float]:
        return WIDTH / 2 + (sx - cx) / scale, HEIGHT / 2 + (sy - cy) / scale

    start, end = (cx - 150, cy - 100), (cx + 50, cy + 120)
    drag(page, start, end)
    (x0, y0), (x1, y1) = under(*start), under(*end)
    save(page)
    boxes = stored_boxes(image)
    assert len(boxes) == 1, boxes
    bbox = boxes[0]
    assert near(bbox, [x0, y0, x1 - x0, y1 - y0]), (bbox, [x0, y0, x1 - x0, y1 - y0])
    assert 45 <= bbox[2] <= 50  # 200 screen px at about 4.2 screen px per image px, not 200

    # Handles keep their size on screen (10 px), whatever the zoom.
    handle = view.screen_size("rect.handle.h-se")
    assert near(handle, (10, 10), 0.5), handle
    shot(page, "zoom-4x-drawn")

    # Move the box by 80 screen px right, then pull its bottom-right handle 40 px down and right.
    drag(page, (cx - 50, cy), (cx + 30, cy))
    save(page)
    [moved] = stored_boxes(image)
    assert near(moved, [bbox[0] + 80 / scale, bbox[1], bbox[2], bbox[3]]), moved
    corner = page.locator("rect.handle.h-se").bounding_box()
    grip = (corner["x"] + corner["width"] / 2, corner["y"] + corner["height"] / 2)
    drag(page, grip, (grip[0] + 40, grip[1] + 40))
    save(page)
    [resized] = stored_boxes(image)
    assert near(resized, [moved[0], moved[1], moved[2] + 40 / scale, moved[3] + 40 / scale]), resized

    page.get_by_test_id("zoom-fit").click()
    assert view.level() == 1
    handle_at_fit = view.screen_size("rect.handle.h-se")
    assert near(handle_at_fit, (10, 10), 0.5), handle_at_fit


def test_the_wheel_zooms_about_the_pointer_and_space_drag_middle_drag_and_arrows_pan(team, page):
    collection, members = team
    image = upload_street(collection)
    hold_with_annotation(collection, members["alice"], {"objects": [person(100, 120, 60, 180, id="a")]})
    login(page, members["alice"])
    open_next(page, collection)
    view = View(page)
    r = view.rect()

    # The wheel: the image point under the pointer stays under it.
    pointer = (r["x"] + r["width"] * 0.3, r["y"] + r["height"] * 0.4)
    before = view.image_point(*pointer)
    page.mouse.move(*pointer)
    page.mouse.wheel(0, -500)
    page.wait_for_function("Number(document.querySelector('svg[data-role=canvas]').dataset.zoom) > 2")
    assert near(view.image_point(*pointer), before, 0.5)
    assert view.level() != 1

    # Space held, then a drag: the view follows the pointer, and no box is drawn.
    vx, vy, vw, _ = view.view_box()
    scale = r["width"] / vw
    page.keyboard.down(" ")
    drag(page, view.centre(), (view.centre()[0] - 120, view.centre()[1] - 60))
    page.keyboard.up(" ")
    assert near(view.view_box()[:2], [vx + 120 / scale, vy + 60 / scale], 0.01)
    assert page.locator("rect.box").count() == 1

    # The middle button pans too.
    vx, vy = view.view_box()[:2]
    drag(page, view.centre(), (view.centre()[0] + 50, view.centre()[1]), button="middle")
    assert near(view.view_box()[:2], [vx - 50 / scale, vy], 0.01)
    assert page.locator("rect.box").count() == 1

    # With no box selected, an arrow pans a tenth of the view; with one selected, it moves the box.
    page.keyboard.press("Escape")
    vx = view.view_box()[0]
    page.keyboard.press("ArrowLeft")
    assert near([view.view_box()[0]], [vx - vw / 10], 0.01)
    page.keyboard.press("n")
    page.keyboard.press("ArrowLeft")
    assert near([view.view_box()[0]], [vx - vw / 10], 0.01)

    # A box drawn after the pans lands under the pointer.
    start, end = view.centre(), (view.centre()[0] + 100, view.centre()[1] + 100)
    (x0, y0), (x1, y1) = view.image_point(*start), view.image_point(*end)
    page.keyboard.press("Escape")
    drag(page, start, end)
    save(page)
    boxes = stored_boxes(image)
    assert boxes[0] == [99, 120, 60, 180]  # nudged 1 px left by the arrow, nothing else
    assert near(boxes[1], [x0, y0, x1 - x0, y1 - y0]), boxes[1]

    page.keyboard.press("0")
    assert view.level() == 1


def test_two_fingers_pinch_and_pan_and_never_draw(team, browser, live_server):
    collection, members = team
    upload_street(collection)
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": 390, "height": 844}, has_touch=True
    )
    try:
        page = context.new_page()
        login(page, members["alice"])
        open_next(page, collection)
        view = View(page)
        cx, cy = view.centre()
        before = view.image_point(cx, cy)
        touch = context.new_cdp_session(page)

        def fingers(kind: str, spread: float) -> None:
            points = [{"x": cx - spread, "y": cy, "id": 0}, {"x": cx + spread, "y": cy, "id": 1}]
            touch.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

        fingers("touchStart", 30)
        for spread in (45, 60, 75, 90):
            fingers("touchMove", spread)
        touch.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        # Three times the fingers' spread: three times the zoom, about their midpoint; no box drawn.
        assert view.level() == 3
        assert near(view.image_point(cx, cy), before, 0.5)
        assert page.locator("rect.box").count() == 0
        shot(page, "zoom-pinch-phone")
    finally:
        context.close()


def test_the_reviewer_zooms_and_corrects_a_box_in_image_pixels(team, new_page):
    collection, members = team
    upload_street(collection)
    image = hold_with_annotation(
        collection, members["alice"], {"objects": [person(400, 240, 40, 90, *COMPLETE)]}
    )
    annotation_submit(image=image, user=members["alice"])
    review = new_page()
    login(review, members["rita"])
    open_next(review, collection, "review-next")
    view = View(review)

    review.get_by_role("button", name="Zoom in").click()
    review.get_by_role("button", name="Zoom in").click()
    assert view.level() == 2
    review.keyboard.press("=")  # + without Shift
    assert view.level() == 3
    scale = 3 * view.fit_scale()
    # The box, 40 image px wide, is three times its fitted width on screen.
    assert abs(view.screen_size("rect.box")[0] - 40 * scale) < 0.5
    box = review.locator("rect.box").bounding_box()
    centre = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    drag(review, centre, (centre[0] - 60, centre[1] + 30))
    review.get_by_test_id("accept").click()
    review.get_by_test_id("done").wait_for()
    [bbox] = stored_boxes(image)
    assert near(bbox, [400 - 60 / scale, 240 + 30 / scale, 40, 90]), bbox
    shot(review, "zoom-review-3x")

    # Decided: the page edits nothing, and a drag pans.
    review.keyboard.press("-")
    assert view.level() == 2
    vx = view.view_box()[0]
    drag(review, view.centre(), (view.centre()[0] + 40, view.centre()[1]))
    assert view.view_box()[0] < vx
    assert stored_boxes(image) == [bbox]


def test_on_a_phone_no_name_covers_another_or_its_own_box(team, new_page, browser, live_server):
    collection, members = team
    upload_street(collection)
    # A crowd of people 20 by 45 px, close together: at 390 px their names cannot all fit.
    crowd = [person(200 + 24 * i, 300 + (i % 2) * 10, 20, 45, *COMPLETE, id=f"c{i}") for i in range(12)]
    image = hold_with_annotation(collection, members["alice"], {"objects": crowd})
    annotation_submit(image=image, user=members["alice"])
    context = browser.new_context(base_url=live_server.url, viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        login(page, members["rita"])
        page.goto(f"/images/{image.pk}/")
        page.wait_for_selector("body[data-ready=true]")
        view = View(page)
        shown_at_fit = assert_names_apart(page)
        assert 0 < shown_at_fit < 12
        hidden = page.get_by_test_id("crowded")
        assert hidden.inner_text() == f"{12 - shown_at_fit} names hidden: zoom in to see them"
        shot(page, "zoom-phone-fit")
        for _ in range(4):
            page.keyboard.press("+")
        assert view.level() == 4
        page.wait_for_timeout(100)  # the names are placed again on the next frame
        assert assert_names_apart(page) > shown_at_fit
        shot(page, "zoom-phone-4x")
    finally:
        context.close()


def assert_names_apart(page) -> int:
    """No two names drawn overlap, and no name covers the box it names; returns how many are drawn."""
    names = page.evaluate(
        """() => [...document.querySelectorAll("svg .decorations text.box-label:not(.crowded)")].map((t) => {
            const r = t.getBoundingClientRect();
            const b = document.querySelector(`rect.box[data-key="${t.dataset.key}"]`).getBoundingClientRect();
            return {name: t.textContent, r: [r.left, r.top, r.right, r.bottom], b: [b.left, b.top, b.right, b.bottom]};
        })"""
    )

    def overlap(a, b) -> bool:
        return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]

    for i, a in enumerate(names):
        assert not overlap(a["r"], a["b"]), f"{a['name']} covers its box"
        for b in names[i + 1 :]:
            assert not overlap(a["r"], b["r"]), f"{a['name']} covers {b['name']}"
    return len(names)
