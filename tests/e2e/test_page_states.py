"""What the pages say as the work moves on, and how they hold up: the lease line and the stage badge
after submitting and deciding, the bytes sent of a large import, the confirmation before revoking a
token, and the annotator's page on a 390 px wide phone."""

from __future__ import annotations

import json

import pytest

from accounts.models import ApiToken
from accounts.roles import Role
from accounts.services import token_create
from annotations.services.annotation import annotation_submit
from datasets.models import ImportJob
from tests.e2e.conftest import hold_with_annotation, login, open_next, person, upload_street
from tests.factories import UserFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

RUNNER = {"objects": [person(100, 120, 60, 180, "male", "adult", "running", "on street")]}


def test_the_lease_line_and_stage_badge_follow_submit_and_accept(team, new_page):
    collection, members = team
    upload_street(collection)
    image = hold_with_annotation(collection, members["alice"], RUNNER)

    page = new_page()
    login(page, members["alice"])
    page.goto(f"/images/{image.pk}/annotate/")
    page.wait_for_selector("body[data-ready=true]")
    lease = page.get_by_test_id("lease")
    assert "Yours until" in lease.inner_text() and "saving renews it" in lease.inner_text()
    page.get_by_role("button", name="Submit", exact=True).click()
    page.wait_for_selector("[data-testid=done]:visible")
    assert lease.inner_text() == "Submitted: the image is no longer yours."

    review = new_page()
    login(review, members["rita"])
    open_next(review, collection, "review-next")
    lease = review.get_by_test_id("lease")
    # A reviewer's corrections are saved too, and renew the lease like the annotator's saves.
    assert "Yours until" in lease.inner_text() and "saving renews it" in lease.inner_text()
    badge = review.get_by_test_id("stage")
    assert badge.inner_text() == "in review"
    review.get_by_test_id("accept").click()
    review.wait_for_selector("[data-testid=done]:visible")
    assert badge.inner_text() == "accepted" and "stage-accepted" in badge.get_attribute("class")
    assert lease.inner_text() == "Decided: the image is no longer yours."


def test_the_badge_says_in_annotation_after_sending_back(team, new_page):
    collection, members = team
    upload_street(collection)
    image = hold_with_annotation(collection, members["alice"], RUNNER)
    annotation_submit(image=image, user=members["alice"])
    review = new_page()
    login(review, members["rita"])
    open_next(review, collection, "review-next")
    review.fill("[data-testid=comment]", "Box the feet too.")
    review.get_by_test_id("send-back").click()
    review.wait_for_selector("[data-testid=done]:visible")
    assert review.get_by_test_id("stage").inner_text() == "in annotation"


def test_a_large_import_shows_the_bytes_sent_then_the_jobs_progress(team, page, tmp_path):
    collection, members = team
    scene = {"image": "a.jpg", "width": 640, "height": 480, "objects": [], "relationships": []}
    lines = [json.dumps(scene | {"image": f"{i:05d}.jpg"}) for i in range(6000)]
    path = tmp_path / "large.jsonl"
    path.write_text("\n".join(lines) + "\n")
    size = path.stat().st_size
    assert size > 400_000

    login(page, members["rita"])
    page.goto(f"/collections/{collection.pk}/")
    # The live server is local: slow the upload down to 200 kB/s so the bar can be seen moving.
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": 200_000},
    )
    page.set_input_files("#import input[type=file]", str(path))
    page.locator("#import button[type=submit]").click()
    upload = page.get_by_test_id("import-upload")
    upload.wait_for(state="visible")
    page.wait_for_function(
        "() => { const bar = document.querySelector('[data-testid=import-upload] progress');"
        " return bar.value > 0 && bar.value < bar.max; }"
    )
    text = upload.inner_text()
    assert "Sending the file:" in text and " of " in text and "sent." in text
    assert page.locator("#import button[type=submit]").is_disabled()

    page.wait_for_url("**/imports/*/", timeout=30_000)
    job = ImportJob.objects.get()
    assert page.url.endswith(f"/imports/{job.pk}/")
    page.wait_for_selector("#import-job[data-finished=true]", timeout=30_000)
    assert page.inner_text("[data-role=counts]") == "6000 of 6000 records checked"
    assert page.inner_text("[data-role=status]") == "done"


def test_an_import_form_error_from_the_script_is_shown_on_the_collection_page(team, page, tmp_path):
    collection, members = team
    path = tmp_path / "scenes.jsonl"
    path.write_text("{}\n")
    login(page, members["rita"])
    page.goto(f"/collections/{collection.pk}/")
    page.set_input_files("#import input[type=file]", str(path))
    page.evaluate("document.querySelector('#import select[name=format]').add(new Option('xml', 'xml'))")
    page.select_option("#import select[name=format]", "xml")
    page.locator("#import button[type=submit]").click()
    page.wait_for_selector(".messages li.error")
    assert "Import format:" in page.inner_text(".messages")
    assert not ImportJob.objects.exists()


def test_revoking_a_token_asks_first(page, transactional_db):
    user = UserFactory(username="owner", role=Role.VISION_SYSTEM_OWNER)
    token, _ = token_create(user=user, name="robot")
    login(page, user)
    page.goto("/tokens/")
    questions = []

    def answer(dialog, accept):
        questions.append(dialog.message)
        dialog.accept() if accept else dialog.dismiss()

    page.once("dialog", lambda dialog: answer(dialog, False))
    page.get_by_role("button", name="Revoke robot").click()
    page.wait_for_timeout(300)
    assert questions and "Revoke the token “robot”?" in questions[0]
    assert ApiToken.objects.get(pk=token.pk).revoked_at is None  # "Cancel" keeps it

    page.once("dialog", lambda dialog: answer(dialog, True))
    page.get_by_role("button", name="Revoke robot").click()
    page.wait_for_selector("text=Token 'robot' revoked.")
    assert ApiToken.objects.get(pk=token.pk).revoked_at is not None


def test_at_390_px_the_side_panel_is_below_the_image_not_over_it(team, browser, live_server):
    collection, members = team
    upload_street(collection)
    image = hold_with_annotation(collection, members["alice"], RUNNER)
    context = browser.new_context(base_url=live_server.url, viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        login(page, members["alice"])
        page.goto(f"/images/{image.pk}/annotate/")
        page.wait_for_selector("body[data-ready=true]")
        canvas = page.get_by_test_id("canvas").bounding_box()
        panel = page.locator("aside.panel").bounding_box()
        assert canvas["width"] >= 300 and canvas["height"] >= 200, canvas
        assert panel["y"] >= canvas["y"] + canvas["height"], (canvas, panel)  # below, not over
        assert panel["x"] >= 0 and panel["x"] + panel["width"] <= 390, panel
        # Nothing wider than the screen: no sideways scrolling.
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        assert not errors, errors
    finally:
        context.close()


def test_at_390_px_the_home_and_collection_pages_and_tokens_fit_the_screen(team, browser, live_server):
    collection, members = team
    upload_street(collection)
    context = browser.new_context(base_url=live_server.url, viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        login(page, members["alice"])
        for path in ("/", f"/collections/{collection.pk}/", "/tokens/"):
            page.goto(path)
            # The progress table scrolls inside its card; the page itself never scrolls sideways.
            assert page.evaluate("document.documentElement.scrollWidth") <= 390, path
    finally:
        context.close()


def test_a_new_tokens_secret_fits_a_phone_beside_its_copy_button(page, transactional_db):
    """A secret is one long word: it breaks inside the page at 390 px instead of pushing it sideways
    (seen at issue 38's review: the page scrolled to 466 px)."""
    user = UserFactory(username="phone-owner", role=Role.VISION_SYSTEM_OWNER)
    login(page, user)
    page.set_viewport_size({"width": 390, "height": 844})
    page.goto("/tokens/")
    page.fill("input[name=name]", "personal")
    page.get_by_role("button", name="Create token").click()
    page.wait_for_selector("[data-testid=new-token]")
    assert page.get_by_role("button", name="Copy").is_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
