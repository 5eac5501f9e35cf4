"""What issue 20 found rough on the annotator's and the reviewer's pages, as a person would notice it:
Markdown descriptions, the refused submit naming every gap, the read-only look after submit, the link
form that chooses nothing by itself, labels and relationships on the image, and the reviewer's keys,
edits and pinned comments."""

from __future__ import annotations

import pytest

from annotations.models import Image
from annotations.selectors.annotation import image_annotation
from annotations.services.annotation import annotation_submit
from tests.e2e.conftest import Canvas, hold_with_annotation, login, open_next, person, shot, upload_street

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DESCRIPTION = (
    "Street scenes from **Brooklyn**.\n\n"
    "- box every *person*\n- and every vehicle\n\n"
    "[Guide](https://example.org/guide) · [bad](javascript:alert(1)) <script>window.pwned = 1</script>"
)


def test_a_collections_description_is_rendered_markdown_without_scripts(team, page):
    collection, members = team
    collection.description = DESCRIPTION
    collection.save()
    login(page, members["alice"])
    for where in ("/", f"/collections/{collection.pk}/"):
        page.goto(where)
        description = page.get_by_test_id("collection-description").first
        assert description.locator("strong").inner_text() == "Brooklyn"
        assert description.locator("li").count() == 2
        assert description.locator("a").count() == 1
        assert description.locator("a").get_attribute("href") == "https://example.org/guide"
        assert "**" not in description.inner_text()
        assert page.evaluate("window.pwned") is None
        assert page.locator("main script").count() == 0
    shot(page, "collection-description-markdown")


COMPLETE = ("male", "adult", "walking", "on sidewalk")  # a value in each exclusive group of a person


def submitted_for_review(collection, annotator, *objects) -> Image:
    image = hold_with_annotation(collection, annotator, {"objects": list(objects)})
    annotation_submit(image=image, user=annotator)
    return image


def test_a_refused_submit_lists_every_gap_beside_the_image_then_the_panel_reads_as_done(team, page):
    collection, members = team
    upload_street(collection)
    hold_with_annotation(
        collection,
        members["alice"],
        {
            "objects": [
                person(100, 120, 60, 180, "male"),
                person(300, 100, 40, 100, "female", "adult", "walking", "on sidewalk"),
                person(500, 100, 40, 100, "adult", "walking", "on street"),
            ]
        },
    )
    login(page, members["alice"])
    open_next(page, collection)
    canvas = Canvas(page)
    before = page.get_by_test_id("canvas").bounding_box()

    page.get_by_role("button", name="Submit", exact=True).click()
    gaps = page.get_by_test_id("gaps")
    gaps.wait_for()
    items = gaps.locator("li")
    assert items.count() == 2
    assert (
        items.nth(0).inner_text().startswith("person 1") and "age, motion, place" in items.nth(0).inner_text()
    )
    assert items.nth(1).inner_text().startswith("person 3") and "sex" in items.nth(1).inner_text()
    assert page.get_by_test_id("canvas").bounding_box() == before  # the list does not push the image down
    shot(page, "submit-refused-gaps")

    items.nth(1).click()  # selects that box, to fix it
    assert canvas.selected_key() == page.locator("[data-testid=objects] li").nth(2).get_attribute("data-key")
    page.locator('[data-testid=attributes] input[data-value="female"]').check()
    assert items.count() == 1  # fixed boxes leave the list
    canvas.click(130, 200)
    attributes = page.get_by_test_id("attributes")
    for value in ("adult", "standing still", "on sidewalk"):
        attributes.locator(f'input[data-value="{value}"]').check()
    assert not gaps.is_visible()

    page.get_by_role("button", name="Submit", exact=True).click()
    page.get_by_test_id("done").wait_for()
    # Submitted: the side panel no longer offers to change anything.
    canvas.click(130, 200)
    assert page.get_by_test_id("editor").get_attribute("class").split().count("read-only") == 1
    assert attributes.locator("input").first.is_disabled()
    assert page.get_by_test_id("type").is_disabled() and page.get_by_test_id("unknown").is_disabled()
    assert not page.get_by_role("button", name="Delete").is_visible()
    assert not page.get_by_role("button", name="Link…").is_visible()
    assert "Submitted" in page.get_by_test_id("editor").inner_text()
    shot(page, "submitted-read-only-panel")


def test_the_link_form_chooses_no_relationship_until_the_annotator_does(team, page):
    collection, members = team
    upload_street(collection)
    hold_with_annotation(
        collection, members["alice"], {"objects": [person(100, 120, 60, 180), person(300, 120, 60, 180)]}
    )
    login(page, members["alice"])
    open_next(page, collection)
    canvas = Canvas(page)
    canvas.click(130, 200)
    page.keyboard.press("l")
    canvas.click(330, 200)
    predicate = page.get_by_test_id("link-predicate")
    assert predicate.input_value() == ""
    add = page.get_by_test_id("link-form").get_by_role("button", name="Add")
    assert add.is_disabled()
    predicate.press("Enter")
    assert page.locator("[data-testid=relationships] li[data-index]").count() == 0
    predicate.select_option("talking")
    assert add.is_enabled()
    add.click()
    assert page.locator("[data-testid=relationships] li[data-index]").count() == 1


def test_the_reviewer_accepts_and_sends_back_with_keys(team, page):
    collection, members = team
    for name in ("street-001.png", "street-002.png"):
        upload_street(collection, name)
    first = submitted_for_review(collection, members["alice"], person(100, 120, 60, 180, *COMPLETE, id="a"))
    login(page, members["rita"])
    open_next(page, collection, "review-next")
    assert "A" in page.get_by_test_id("accept").inner_text()
    page.keyboard.press("a")
    page.get_by_test_id("done").wait_for()
    assert Image.objects.get(pk=first.pk).stage == "accepted"

    second = submitted_for_review(collection, members["alice"], person(100, 120, 60, 180, *COMPLETE, id="b"))
    page.goto(f"/collections/{collection.pk}/")
    open_next(page, collection, "review-next")
    page.keyboard.press("b")  # without a comment: the comment box asks for one
    assert page.get_by_test_id("comment").evaluate("e => e === document.activeElement")
    assert "needs a comment" in page.inner_text("[data-error=comment]")
    page.keyboard.type("Box the bicycle too.")
    page.keyboard.press("Control+Enter")
    page.get_by_test_id("done").wait_for()
    second.refresh_from_db()
    assert (second.stage, second.review_comment) == ("annotate", "Box the bicycle too.")


def test_names_and_relationships_show_on_the_image_and_the_reviewer_corrects_and_pins_a_comment(
    team, new_page
):
    collection, members = team
    upload_street(collection)
    image = hold_with_annotation(
        collection,
        members["alice"],
        {
            "objects": [
                person(100, 120, 60, 180, *COMPLETE, id="a"),
                person(300, 120, 60, 180, *COMPLETE, id="b"),
            ],
            "relationships": [{"subject": "a", "predicate": "talking", "object": "b"}],
        },
    )
    annotation_submit(image=image, user=members["alice"])

    review = new_page()
    login(review, members["rita"])
    open_next(review, collection, "review-next")
    names = review.locator("svg .decorations text.box-label")
    assert names.all_text_contents() == ["person 1", "person 2"] and names.first.is_visible()
    assert review.locator("svg .decorations line.link-line").count() == 1
    assert review.locator("svg .decorations text.link-label").text_content() == "talking"
    review.keyboard.press("t")
    assert not names.first.is_visible()
    review.get_by_test_id("labels-toggle").click()
    assert names.first.is_visible()

    # A small mistake fixed by the reviewer: person 1 was running.
    Canvas(review).click(130, 200)
    review.locator('[data-testid=attributes] input[data-value="running"]').check()
    review.get_by_test_id("comment-object").select_option(label="person 2")
    review.get_by_test_id("comment").fill("Is person 2 a child?")
    shot(review, "review-correct-and-pin")
    review.get_by_test_id("comment").press("Control+Enter")
    review.get_by_test_id("done").wait_for()
    image.refresh_from_db()
    assert (image.corrected_by, image.annotator, image.review_comment_object) == (
        members["rita"],
        members["alice"],
        "o2",
    )
    assert "running" in image_annotation(image=image)["objects"][0]["attributes"]

    page = new_page()
    login(page, members["alice"])
    open_next(page, collection)
    assert "about person 2" in page.get_by_test_id("review-comment").inner_text()
    second = page.locator("[data-testid=objects] li").nth(1).get_attribute("data-key")
    assert Canvas(page).selected_key() == second
    assert "pinned" in page.locator(f'rect.box[data-key="{second}"]').get_attribute("class")
    shot(page, "annotator-sees-pinned-comment")
