"""An image with 100 boxes: it loads, one box among them is selected, moved and deleted, a drag writes
to the dragged box alone, and saving stores the 99 that are left."""

from __future__ import annotations

import pytest

from annotations.models import Image
from annotations.selectors.annotation import image_annotation
from tests.e2e.conftest import Canvas, hold_with_annotation, login, open_next, person, upload_street

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def grid_box(row: int, column: int) -> list[int]:
    return [column * 95 + 5, row * 62 + 5, 80, 50]


def centre(row: int, column: int) -> tuple[int, int]:
    x, y, w, h = grid_box(row, column)
    return x + w // 2, y + h // 2


def test_a_hundred_boxes_select_move_delete_and_save(team, page):
    collection, members = team
    upload_street(collection, size=(960, 640))
    objects = [person(*grid_box(r, c), id=f"b{r}{c}") for r in range(10) for c in range(10)]
    image = hold_with_annotation(collection, members["alice"], {"objects": objects})
    login(page, members["alice"])
    open_next(page, collection)
    canvas = Canvas(page)
    assert canvas.count() == 100
    assert page.locator("[data-testid=objects] li").count() == 100

    # Select box (4, 6) by clicking it, then drag it down by 7 pixels, watching what the page writes.
    canvas.click(*centre(4, 6))
    moved = canvas.selected_key()
    assert canvas.box(moved) == grid_box(4, 6)
    page.evaluate(
        """() => {
            window.touched = new Set();
            window.observer = new MutationObserver((records) => records.forEach((r) => window.touched.add(r.target)));
            window.observer.observe(document.querySelector("svg g.boxes"), {attributes: true, childList: true, subtree: true});
        }"""
    )
    page.mouse.move(*canvas.screen(*centre(4, 6)))
    page.mouse.down()
    page.mouse.move(*canvas.screen(centre(4, 6)[0], centre(4, 6)[1] + 7), steps=10)
    page.mouse.up()
    touched = page.evaluate("() => [...window.touched].map((e) => e.dataset?.key ?? e.tagName)")
    assert set(touched) == {moved}, "a drag must write to the dragged box only"
    assert canvas.box(moved) == [grid_box(4, 6)[0], grid_box(4, 6)[1] + 7, 80, 50]

    # Another box goes with the Delete key.
    canvas.click(*centre(8, 2))
    assert canvas.selected_key() != moved
    page.keyboard.press("Delete")
    assert canvas.count() == 99

    page.keyboard.press("Control+s")
    page.wait_for_selector("[data-testid=save-state]:text('All changes saved')")
    stored = [o["bbox"] for o in image_annotation(image=Image.objects.get(pk=image.pk))["objects"]]
    assert len(stored) == 99
    assert grid_box(8, 2) not in stored
    assert stored[46] == [grid_box(4, 6)[0], grid_box(4, 6)[1] + 7, 80, 50]  # box 47 keeps its place
