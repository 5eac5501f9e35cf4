"""The reviewer sends an image back with a comment; it returns to its annotator, who sees the comment
and the boxes as they left them."""

from __future__ import annotations

import pytest

from annotations.models import Image
from annotations.services.annotation import annotation_submit
from tests.e2e.conftest import Canvas, hold_with_annotation, login, open_next, person, upload_street

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_send_back_needs_a_comment_and_returns_the_image_to_its_annotator(team, new_page):
    collection, members = team
    upload_street(collection)
    # A runner, and a crowd of 15 behind him: the list of boxes is longer than the side panel.
    crowd = [
        person(300 + 40 * i, 100, 30, 80, "male", "adult", "standing still", "on sidewalk", id=f"c{i}")
        for i in range(15)
    ]
    image = hold_with_annotation(
        collection,
        members["alice"],
        {"objects": [person(100, 120, 60, 180, "male", "adult", "running", "on street"), *crowd]},
    )
    annotation_submit(image=image, user=members["alice"])

    review = new_page()
    login(review, members["rita"])
    open_next(review, collection, "review-next")
    boxes = review.locator("[data-testid=objects] li")
    assert boxes.count() == 16 and boxes.first.inner_text() == "person 1 male, adult, running, on street"
    Canvas(review).click(130, 200)  # selecting shows the attributes (the reviewer may correct them)
    assert review.locator('[data-testid=attributes] input[data-value="running"]').is_checked()
    Canvas(review).click(875, 140)  # the last of the crowd: its line in the list is scrolled to...
    assert review.locator("[data-testid=objects] li.selected").inner_text().startswith("person 16")
    assert review.get_by_test_id("accept").bounding_box()["y"] > 0  # ...but the side panel stays put

    review.get_by_test_id("send-back").click()
    assert "needs a comment" in review.inner_text("[data-error=comment]")
    assert Image.objects.get(pk=image.pk).stage == "review"
    review.fill("[data-testid=comment]", "The runner's box misses his feet.")
    review.get_by_test_id("send-back").click()
    review.wait_for_selector("[data-testid=done]:visible")
    assert Image.objects.get(pk=image.pk).stage == "annotate"
    # Afterwards the reviewer can still look at the image, read-only, with the comment.
    review.goto(f"/images/{image.pk}/")
    review.wait_for_selector("body[data-ready=true]")
    assert "The runner's box misses his feet." in review.inner_text(".review-comment")
    assert Canvas(review).count() == 16 and not review.get_by_test_id("decision").count()
    Canvas(review).click(130, 200)  # read-only here: the review is over
    assert review.locator('[data-testid=attributes] input[data-value="running"]').is_disabled()

    page = new_page()
    login(page, members["alice"])
    open_next(page, collection)
    assert page.url.endswith(f"/images/{image.pk}/annotate/")
    comment = page.get_by_test_id("review-comment")
    assert "The runner's box misses his feet." in comment.inner_text() and "rita" in comment.inner_text()
    assert Canvas(page).count() == 16


def test_the_needs_a_comment_error_goes_as_soon_as_a_comment_is_typed(team, page):
    """Issue 46, item 8: the error stayed under the comment after the comment was typed."""
    collection, members = team
    upload_street(collection)
    walker = person(100, 120, 60, 180, "male", "adult", "walking", "on sidewalk")
    image = hold_with_annotation(collection, members["alice"], {"objects": [walker]})
    annotation_submit(image=image, user=members["alice"])
    login(page, members["rita"])
    open_next(page, collection, "review-next")

    page.get_by_test_id("send-back").click()
    error = page.locator("[data-error=comment]")
    assert "needs a comment" in error.inner_text()
    page.get_by_test_id("comment").press_sequentially("Mi")
    assert error.inner_text() == ""
    page.get_by_test_id("comment").fill("   ")  # spaces only: still no comment, the error comes back
    page.get_by_test_id("send-back").click()
    assert "needs a comment" in error.inner_text()
