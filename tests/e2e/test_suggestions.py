"""A model's suggestions on the annotator's page and in the review (decision 0078), with the keys: Y
accepts (the box is saved, then edited and saved again: edited, worked out by the server), X rejects,
J / K go through them, Shift+Y accepts every one from a score; when the model server is unavailable the
page says so and still saves; the review shows which boxes came from which model version, and edits."""

from __future__ import annotations

import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from playwright.sync_api import Page

from annotations.models import Image, ObjectAnnotation, Prediction
from annotations.services.annotation import annotation_submit
from annotations.services.images import image_upload
from demo.synthetic.render import render_scene
from tests.e2e.conftest import Canvas, login, open_next, shot
from tests.factories import PredictionFactory, model_backend

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WALKER = ["male", "adult", "walking", "on sidewalk"]
STANDING = ["female", "adult", "standing still", "on sidewalk"]
CAR = ["car", "dark-colored", "parked", "two"]
# A demo-like street (640x480) and what a model proposed for it, best score first: the order J walks.
SUGGESTED = [
    ("walker", "person", [80, 200, 24, 60], WALKER, 0.96),
    ("to edit", "person", [200, 210, 22, 55], STANDING, 0.93),
    ("wrong", "vehicle", [330, 300, 40, 30], CAR, 0.91),
    ("crowd a", "person", [420, 205, 22, 58], WALKER, 0.86),
    ("crowd b", "person", [470, 208, 22, 56], STANDING, 0.82),
    ("unsure", "vehicle", [520, 330, 110, 60], CAR, 0.41),
]


def street_with_suggestions(collection) -> tuple[Image, dict[str, Prediction]]:
    scene = {
        "image": "street-suggested.png",
        "width": 640,
        "height": 480,
        "objects": [
            {"id": name, "type": kind, "bbox": bbox, "attributes": attributes}
            for name, kind, bbox, attributes, _ in SUGGESTED
        ],
        "relationships": [],
    }
    buffer = io.BytesIO()
    render_scene(scene).save(buffer, format="PNG")
    upload = image_upload(
        collection=collection, files=[SimpleUploadedFile(scene["image"], buffer.getvalue())]
    )
    image = upload.created[0]
    model_backend(collection)
    predictions = {
        name: PredictionFactory(image=image, type=kind, bbox=bbox, attributes=attributes, score=score)
        for name, kind, bbox, attributes, score in SUGGESTED
    }
    return image, predictions


def open_with_suggestions(page: Page, collection, user) -> None:
    """The annotator's page of the next image, once its suggestions are on it."""
    login(page, user)
    open_next(page, collection)
    page.wait_for_selector("body[data-suggestions=ready]")


def wait_saved(page: Page) -> None:
    page.wait_for_selector("[data-testid=save-state]:text('All changes saved')")


def picked(page: Page) -> int:
    return int(page.get_attribute("[data-testid=suggestion-list] li.picked", "data-suggestion"))


def test_accept_edit_reject_and_accept_above_a_score_with_keys(team, new_page):
    collection, members = team
    image, p = street_with_suggestions(collection)
    page = new_page()
    open_with_suggestions(page, collection, members["alice"])
    assert page.get_by_test_id("suggestion-source").inner_text() == "from model v3"
    assert page.locator("rect.suggestion").count() == 6  # dashed boxes, none a box of the annotation yet
    assert Canvas(page).count() == 0
    labels = page.locator("text.suggestion-label").all_text_contents()
    assert "person 96% · male, adult, walking, on sidewalk" in labels
    assert "J" in page.get_by_test_id("suggestion-keys").inner_text()
    page.wait_for_selector("body[data-image-loaded=true]")
    shot(page, "suggestions-1400")
    page.set_viewport_size({"width": 390, "height": 844})
    shot(page, "suggestions-390")
    page.set_viewport_size({"width": 1400, "height": 900})
    page.keyboard.press("+")
    page.keyboard.press("+")
    assert page.locator("text.suggestion-label").count() >= 1  # names keep their size at any zoom
    shot(page, "suggestions-zoomed")
    page.keyboard.press("0")

    # J and K walk the list; the first (best) is picked when the page opens.
    assert picked(page) == p["walker"].pk
    page.keyboard.press("j")
    assert picked(page) == p["to edit"].pk
    page.keyboard.press("k")
    assert picked(page) == p["walker"].pk

    page.keyboard.press("y")  # accepted: a box of the annotation, selected, and saved
    wait_saved(page)
    assert Canvas(page).count() == 1 and Canvas(page).selected_key()
    assert picked(page) == p["to edit"].pk
    page.keyboard.press("y")
    wait_saved(page)
    page.keyboard.press("Shift+ArrowRight")  # the accepted box is selected: move it 10 px
    page.keyboard.press("s")
    wait_saved(page)
    assert "edited" in page.locator("[data-testid=objects] li").nth(1).inner_text()

    assert picked(page) == p["wrong"].pk
    page.keyboard.press("x")
    page.wait_for_selector(f"rect.suggestion[data-suggestion='{p['wrong'].pk}']", state="detached")
    assert page.locator("[data-testid=suggestion-decided] summary").inner_text() == "Rejected (1)"

    page.fill("[data-testid=threshold]", "0.8")
    page.evaluate("() => document.activeElement.blur()")  # a key typed in the field is the field's
    page.keyboard.press("Shift+Y")
    wait_saved(page)
    assert Canvas(page).count() == 4
    assert page.locator("rect.suggestion").count() == 1  # the unsure one is still waiting
    shot(page, "suggestions-after-keys")

    statuses = {name: Prediction.objects.get(pk=p[name].pk) for name in p}
    assert {name: s.status for name, s in statuses.items()} == {
        "walker": "accepted",
        "to edit": "accepted",
        "wrong": "rejected",
        "crowd a": "accepted",
        "crowd b": "accepted",
        "unsure": "pending",
    }
    assert statuses["wrong"].decided_by == members["alice"]
    rows = {row.suggestion_id: row for row in ObjectAnnotation.objects.filter(image=image)}
    assert set(rows) == {p[n].pk for n in ("walker", "to edit", "crowd a", "crowd b")}
    assert {pk: row.suggestion_edited for pk, row in rows.items()} == {
        p["walker"].pk: False,
        p["to edit"].pk: True,  # moved 10 px: the server says so
        p["crowd a"].pk: False,
        p["crowd b"].pk: False,
    }
    assert [rows[p["to edit"].pk].x, rows[p["to edit"].pk].y] == [210, 210]

    # The review shows which boxes came from the model, and which the annotator changed.
    annotation_submit(image=Image.objects.get(pk=image.pk), user=members["alice"])
    review = new_page()
    login(review, members["rita"])
    open_next(review, collection, "review-next")
    review.wait_for_selector("body[data-image-loaded=true]")
    marks = review.get_by_test_id("from-model").all_inner_texts()
    assert sorted(marks) == ["from model v3", "from model v3", "from model v3", "from model v3, edited"]
    names = review.locator("text.box-label").all_text_contents()
    assert "person 2 · v3, edited" in names
    shot(review, "suggestions-review")
    review.set_viewport_size({"width": 390, "height": 844})
    shot(review, "suggestions-review-390")


def test_unavailable_suggestions_say_so_and_the_page_still_saves(team, new_page):
    collection, members = team
    image, _ = street_with_suggestions(collection)
    page = new_page()
    # The model server did not answer (the server side's answer, as the page receives it).
    unavailable = {
        "state": "unavailable",
        "note": "the model server did not answer in 5 s.",
        "model_version": "",
        "suggestions": [],
    }
    page.route("**/api/v1/images/*/suggestions/", lambda route: route.fulfill(json=unavailable))
    login(page, members["alice"])
    open_next(page, collection)
    page.wait_for_selector("body[data-suggestions=unavailable]")
    note = page.get_by_test_id("suggestion-note")
    assert note.inner_text() == "Suggestions unavailable: the model server did not answer in 5 s."
    assert page.locator("rect.suggestion").count() == 0
    page.keyboard.press("y")  # nothing to accept: nothing happens
    Canvas(page).drag((100, 100), (140, 200))
    page.keyboard.press("s")
    wait_saved(page)
    assert ObjectAnnotation.objects.filter(image=image, suggestion__isnull=True).count() == 1
    page.set_viewport_size({"width": 390, "height": 844})
    shot(page, "suggestions-unavailable-390")


def test_a_submitted_image_shows_no_suggestion_to_decide(team, page):
    collection, members = team
    street_with_suggestions(collection)
    open_with_suggestions(page, collection, members["alice"])
    page.keyboard.press("Control+Enter")  # nothing drawn yet: an empty image may be submitted
    page.wait_for_selector("[data-testid=done]:visible")
    assert page.locator("rect.suggestion").count() == 0
    assert page.get_by_test_id("suggestions").is_hidden()


def test_a_collection_without_a_model_server_shows_nothing_of_suggestions(team, page):
    collection, members = team
    street_with_suggestions(collection)
    collection.model_backend.delete()
    login(page, members["alice"])
    open_next(page, collection)
    page.wait_for_selector("body[data-suggestions=off]")
    assert page.get_by_test_id("suggestions").is_hidden()
    assert page.locator("rect.suggestion").count() == 0


def test_a_box_dragged_while_its_acceptance_is_being_saved_keeps_the_drag(team, new_page):
    """Y saves at once, and the person goes straight on to fix the box: the save's answer, arriving in
    the middle of that drag, must not redraw the box from under the pointer (it did: the drag was
    dropped, and the suggestion's box was saved)."""
    collection, members = team
    image, p = street_with_suggestions(collection)
    page = new_page()
    open_with_suggestions(page, collection, members["alice"])
    held = []
    page.route(
        "**/annotation/",
        lambda route: held.append(route) if route.request.method == "PUT" else route.continue_(),
    )
    page.keyboard.press("y")  # the walker, [80, 200, 24, 60]: its save is held
    while not held:
        page.wait_for_timeout(10)
    canvas, mouse = Canvas(page), page.mouse
    mouse.move(*canvas.screen(80, 200))  # the north-west handle of the accepted, selected box
    mouse.down()
    mouse.move(*canvas.screen(70, 190), steps=4)
    route = held.pop()
    with page.expect_event("requestfinished"):  # the save's answer comes while the button is down
        route.fulfill(response=route.fetch())
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => setTimeout(done, 50)))")
    mouse.up()
    page.unroute("**/annotation/")
    assert canvas.box(canvas.selected_key()) == [70, 190, 34, 70]
    page.keyboard.press("Control+s")
    wait_saved(page)
    (stored,) = ObjectAnnotation.objects.filter(image=image)
    assert [stored.x, stored.y, stored.w, stored.h] == [70, 190, 34, 70]
    assert stored.suggestion_id == p["walker"].pk and stored.suggestion_edited


def test_undo_after_reject_or_accept_puts_the_suggestion_back_to_waiting(team, new_page):
    """Issue 46, item 7: Z after X did nothing, and Z after Y filed the suggestion as rejected. Undo
    restores the state before, on the page and on the server: the suggestion waits again, with no box."""
    collection, members = team
    image, p = street_with_suggestions(collection)
    page = new_page()
    open_with_suggestions(page, collection, members["alice"])
    walker = p["walker"].pk
    restored = lambda response: response.url.endswith(f"/suggestions/{walker}/restore/")  # noqa: E731

    page.keyboard.press("x")
    page.wait_for_selector(f"rect.suggestion[data-suggestion='{walker}']", state="detached")
    with page.expect_response(restored):
        page.keyboard.press("z")
    page.wait_for_selector(f"rect.suggestion[data-suggestion='{walker}']")
    assert picked(page) == walker and page.get_by_test_id("pending-count").inner_text() == "6"
    assert page.get_by_test_id("suggestion-decided").is_hidden()
    assert Prediction.objects.get(pk=walker).status == "pending"

    page.keyboard.press("y")
    wait_saved(page)
    assert Canvas(page).count() == 1
    with page.expect_response(restored):
        page.get_by_role("button", name="Undo").click()  # the button undoes as Z does
    wait_saved(page)
    assert Canvas(page).count() == 0 and picked(page) == walker
    assert page.get_by_test_id("pending-count").inner_text() == "6"
    assert page.get_by_test_id("suggestion-decided").is_hidden()
    assert Prediction.objects.get(pk=walker).status == "pending"
    assert not ObjectAnnotation.objects.filter(image=image).exists()

    # An edit after a decision is undone first, as it came last.
    page.keyboard.press("x")
    Canvas(page).drag((300, 100), (360, 200))
    page.keyboard.press("z")
    assert Canvas(page).count() == 0
    assert page.locator(f"rect.suggestion[data-suggestion='{walker}']").count() == 0  # still rejected
