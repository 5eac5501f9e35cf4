"""Issue 3, point 6: an annotator draws, types, ticks, links, saves and submits in the browser; a reviewer
accepts; the API then returns exactly that annotation, and the image is accepted."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.e2e.conftest import Canvas, login, open_next, upload_street

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PERSON_DRAG = ((100, 150), (180, 400))  # image pixels: a box [100, 150, 80, 250]
VEHICLE_DRAG = ((400, 300), (700, 480))  # [400, 300, 300, 180]
# Every exclusive group gets its value (submitting requires it); stored in the vocabulary's order.
PERSON_ATTRIBUTES = ["female", "adult", "walking", "on sidewalk"]
VEHICLE_ATTRIBUTES = ["car", "light-colored", "parked", "two"]
PERSON_TEXT = "person 1 " + ", ".join(PERSON_ATTRIBUTES)
VEHICLE_TEXT = "vehicle 1 " + ", ".join(VEHICLE_ATTRIBUTES)


def bbox_of(drag):
    (x0, y0), (x1, y1) = drag
    return [x0, y0, x1 - x0, y1 - y0]


def test_annotator_draws_links_and_submits_then_reviewer_accepts(team, new_page):
    collection, members = team
    image = upload_street(collection)

    # --- the annotator ---
    page = new_page()
    login(page, members["alice"])
    open_next(page, collection)
    assert page.url.endswith(f"/images/{image.pk}/annotate/")
    canvas = Canvas(page)
    page.wait_for_selector("body[data-image-loaded=true]")

    canvas.drag(*PERSON_DRAG)
    assert canvas.count() == 1
    assert page.locator("[data-testid=type]").input_value() == "person"  # the first type is the default
    attributes = page.locator("[data-testid=attributes]")
    attributes.locator('input[data-value="female"]').check()
    attributes.locator('input[data-value="walking"]').check()

    # Submitting while an exclusive group (age, place) is empty is refused, with the reason.
    page.get_by_role("button", name="Submit", exact=True).click()
    page.wait_for_selector("text=has no age, place")
    attributes.locator('input[data-value="adult"]').check()
    attributes.locator('input[data-value="on sidewalk"]').check()

    canvas.drag(*VEHICLE_DRAG)
    assert canvas.count() == 2
    page.select_option("[data-testid=type]", "vehicle")
    for value in ("car", "light-colored", "parked", "two"):
        attributes.locator(f'input[data-value="{value}"]').check()
    assert page.locator("[data-testid=objects] li").all_inner_texts() == [PERSON_TEXT, VEHICLE_TEXT]

    # Link the person to the vehicle: select the person, "Link…", click the vehicle, choose the relationship.
    canvas.click(140, 275)
    page.get_by_role("button", name="Link…").click()
    canvas.click(550, 390)
    predicates = page.locator("[data-testid=link-predicate] option").all_inner_texts()
    assert "closer than" in predicates and "talking (symmetric)" not in predicates  # person -> vehicle only
    page.select_option("[data-testid=link-predicate]", "closer than")
    page.get_by_role("button", name="Add").click()
    assert (
        page.locator("[data-testid=relationships] li")
        .all_inner_texts()[0]
        .startswith("person 1 → closer than → vehicle 1")
    )

    page.get_by_role("button", name="Save", exact=True).click()
    page.wait_for_selector("[data-testid=save-state]:text('All changes saved')")
    page.get_by_role("button", name="Submit", exact=True).click()
    page.wait_for_selector("[data-testid=done]:visible")
    assert "Submitted for review" in page.inner_text("[data-testid=done]")

    # --- the reviewer ---
    review = new_page()
    login(review, members["rita"])
    open_next(review, collection, "review-next")
    assert review.url.endswith(f"/images/{image.pk}/review/")
    assert review.locator("[data-testid=objects] li").all_inner_texts() == [PERSON_TEXT, VEHICLE_TEXT]
    assert review.locator("[data-testid=relationships] li .relation").all_inner_texts() == [
        "person 1 → closer than → vehicle 1"
    ]
    review.get_by_test_id("accept").click()
    review.wait_for_selector("[data-testid=done]:visible")

    # --- what the API says was stored ---
    api = APIClient()
    api.force_authenticate(members["rita"])
    stored = api.get(f"/api/v1/images/{image.pk}/annotation/").json()
    objects = stored["objects"]
    assert [(o["id"], o["type"], o["attributes"], o["attributes_known"]) for o in objects] == [
        ("o1", "person", PERSON_ATTRIBUTES, True),
        ("o2", "vehicle", VEHICLE_ATTRIBUTES, True),
    ]
    for stored_object, drag in zip(objects, (PERSON_DRAG, VEHICLE_DRAG), strict=True):
        assert stored_object["bbox"] == pytest.approx(bbox_of(drag), abs=3)
    assert stored["relationships"] == [{"subject": "o1", "predicate": "closer than", "object": "o2"}]
    detail = api.get(f"/api/v1/images/{image.pk}/").json()
    assert detail["stage"] == "accepted"
    assert detail["annotator"]["username"] == "alice" and detail["reviewed_by"]["username"] == "rita"
