"""A crowd collection in the browser: an annotator's work page names no image and submits through the
crowd API; the reviewer sees both versions beside the merge, uses one, opens it in the review editor and
accepts it; the quality page draws its chart."""

from __future__ import annotations

import pytest

from annotations.models import Image, Stage
from crowd.models import ImageMerge, MergeState
from crowd.services.copies import copy_save, copy_submit
from crowd.services.queue import copy_next
from crowd.services.settings import crowd_settings_update
from tests.e2e.conftest import login, open_next, person, shot, upload_street

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_two_annotators_a_merge_and_its_review(team, new_page):
    collection, members = team
    crowd_settings_update(collection=collection, values={"overlap": 2, "gold_rate": 0})
    image = upload_street(collection, name="secret-street.png")

    page = new_page()
    login(page, members["alice"])
    open_next(page, collection)
    assert "/crowd/work/" in page.url
    assert "secret-street" not in page.content()
    assert page.get_by_test_id("no-pixels").count() == 0
    shot(page, "crowd-work")
    page.locator("[data-action=submit]").click()  # an empty street: nothing to box
    page.wait_for_selector("[data-testid=done]:visible")

    work = copy_next(collection=collection, user=members["anton"])
    copy_save(
        copy=work,
        user=members["anton"],
        document={"objects": [person(100, 120, 60, 180, "male", "adult", "running", "on street", id="a")]},
    )
    copy_submit(copy=work, user=members["anton"])
    assert ImageMerge.objects.get(image=image).state == MergeState.REVIEW

    review = new_page()
    login(review, members["rita"])
    review.goto("/")
    review.locator(f'[data-testid="collection-{collection.pk}"] [data-testid="review-next"]').click()
    review.wait_for_selector("[data-testid=crowd-review]")
    assert review.locator("[data-testid=version]").count() == 2
    assert review.locator("rect.crowd-box.disagree").count() >= 1  # anton's box, which alice did not draw
    shot(review, "crowd-review")
    review.locator("[data-testid=version]", has_text="anton").get_by_role(
        "button", name="Use this version"
    ).click()
    review.get_by_test_id("edit-merge").click()
    review.wait_for_selector("body[data-ready=true]")
    assert review.locator("[data-testid=objects] li").count() == 1
    assert review.get_by_test_id("send-back").count() == 0
    shot(review, "crowd-review-editor")
    review.get_by_test_id("accept").click()
    review.wait_for_selector("[data-testid=done]:visible")
    assert Image.objects.get(pk=image.pk).stage == Stage.ACCEPTED

    review.goto(f"/collections/{collection.pk}/crowd/quality/")
    assert review.locator("[data-testid=quality-table] tbody tr").count() == 2
    assert review.locator("svg.plot").count() == 1
    shot(review, "crowd-quality")
    review.goto(f"/collections/{collection.pk}/")
    shot(review, "crowd-collection")
