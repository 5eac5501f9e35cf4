"""An admin builds a test in the web UI (issue 20: there was no way but the broken Django admin or a raw
POST): name, statistics, test images from collections, streams per image, the engine settings with their
defaults shown, then Start truthing."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from accounts.roles import Role
from annotations.models import Split
from demo.synthetic.scenes import generate_scenes
from tests.django_fixtures import import_scenes
from tests.e2e.conftest import login, shot
from truthing.models import AutomaticTruthing, Test, TestState
from truthing.services import lifecycle
from truthing.services.automatic import automatic_truthing_run

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_admin_builds_a_test_and_starts_truthing_it(
    statistics, annotated_test_images, trained_collection, users, new_page
):
    page = new_page()
    login(page, users[Role.ADMIN])
    page.get_by_role("link", name="Tests").first.click()
    page.get_by_test_id("new-test-link").click()
    settings = page.get_by_test_id("engine-settings")
    assert page.locator("input[name=epsilon]").input_value() == "0.15"
    assert page.locator("input[name=max_questions]").input_value() == "60"
    assert "Default 60" in settings.inner_text()
    shot(page, "new-test")

    # Refused first: no images picked. The page says so and nothing is created.
    page.fill("input[name=name]", "Street test from the UI")
    page.get_by_test_id("create-and-start").click()
    # The refusal comes back as a new page: wait for it (is_visible() alone raced the form's post on CI).
    expect(page.locator("[data-field=collections] .field-error")).to_be_visible()
    assert not Test.objects.exists()

    label = page.locator("[data-field=collections] label", has_text=trained_collection.name)
    assert f"({len(annotated_test_images)} test images)" in label.inner_text()
    label.locator("input").check()
    page.fill("input[name=limit]", "3")
    page.fill("input[name=streams_per_image]", "2")
    page.fill("input[name=max_questions]", "12")
    page.fill("input[name=min_population]", "5")
    page.get_by_test_id("create-and-start").click()
    page.wait_for_url("**/tests/*/")
    assert "Truthing started." in page.inner_text(".messages")
    test = Test.objects.get(name="Street test from the UI")
    assert test.state == TestState.TRUTHING and test.streams_per_image == 2
    assert test.engine_settings["max_questions"] == 12 and test.engine_settings["epsilon"] == 0.15
    assert test.statistics_id == statistics.pk
    assert page.get_by_test_id("streams").locator("tbody tr").count() == 6
    assert "6 of 6 oracle-truthed streams ended" in page.get_by_test_id("automatic-progress").inner_text()
    shot(page, "new-test-started")


def test_the_new_test_page_is_for_admins_only(users, client):
    client.force_login(users[Role.OPERATOR])
    assert client.get("/tests/new/").status_code == 403
    assert b"new-test-link" not in client.get("/tests/").content


@pytest.mark.parametrize(
    ("field", "value", "said"),
    [
        ("min_evidence", "-1", "Min evidence must be between 0 and 1,000,000,000"),
        ("epsilon", "0.9", "Epsilon must be between 0 and 0.5"),
        ("relationship_strength", "0", "Relationship strength must be above 0 and at most 1,000,000,000"),
    ],
)
def test_an_engine_setting_the_engine_refuses_is_an_error_on_its_field(
    statistics, annotated_test_images, trained_collection, users, client, field, value, said
):
    """The engine's own rules check the settings on the form: a refused value comes back on its field
    with the engine's message, naming the field by its label (it was a server error), and no test is
    created."""
    client.force_login(users[Role.ADMIN])
    response = client.post(
        "/tests/new/",
        {
            "name": "Refused settings",
            "statistics": statistics.pk,
            "collections": [trained_collection.pk],
            "streams_per_image": 1,
            "seed": 0,
            field: value,
        },
    )
    assert response.status_code == 200
    assert said in response.context["form"].errors[field][0]
    assert not Test.objects.exists()


def test_the_admins_add_page_refuses_an_engine_setting_on_its_field(
    statistics, annotated_test_images, users, client
):
    """The Django admin's add page builds tests with the same form: the same refusal, not a 500."""
    client.force_login(users[Role.ADMIN])
    response = client.post(
        "/admin/truthing/test/add/",
        {
            "name": "Refused in the admin",
            "statistics": statistics.pk,
            "images": [image.pk for image in annotated_test_images],
            "streams_per_image": 1,
            "seed": 0,
            "min_evidence": "-1",
        },
    )
    assert response.status_code == 200
    assert "Min evidence must be" in response.context["adminform"].form.errors["min_evidence"][0]
    assert not Test.objects.exists()


def test_the_new_test_page_refuses_images_without_pixels_and_says_how_many(
    statistics, annotated_test_images, trained_collection, users, new_page
):
    """Issue 37: a test was built on images imported without their pixels. The page counts them beside
    their collection and refuses a pick that holds any, saying how many; nothing is created."""
    import_scenes(trained_collection, generate_scenes(2, seed=46, prefix="bare"), split=Split.TEST)
    page = new_page()
    login(page, users[Role.ADMIN])
    page.goto("/tests/new/")
    label = page.locator("[data-field=collections] label", has_text=trained_collection.name)
    assert "(7 test images, 2 without pixels)" in label.inner_text()
    label.locator("input").check()
    page.fill("input[name=name]", "On scene graphs alone")
    page.get_by_test_id("create-and-start").click()
    refusal = page.get_by_test_id("form-errors")
    expect(refusal).to_contain_text("2 of the 7 test images have no pixels")
    assert not Test.objects.exists()
    shot(page, "new-test-without-pixels")
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot(page, "new-test-without-pixels-phone")


def test_the_card_of_a_test_without_a_question_says_why_it_is_not_published(
    annotated_test_images, make_test, users, new_page
):
    """The oracle ended every stream at once (nothing the engine may ask): the card says so where it
    lists what keeps the test from being published, and Publish is disabled."""
    test = make_test(annotated_test_images[:2], settings={"min_population": 10**6, "max_questions": 12})
    test = lifecycle.start_test(test=test)
    for job in AutomaticTruthing.objects.filter(test=test):
        automatic_truthing_run(job_id=job.pk)
    page = new_page()
    login(page, users[Role.ADMIN])
    page.goto(f"/tests/{test.pk}/")
    assert page.get_by_test_id("publish").is_disabled()
    expect(page.get_by_test_id("blockers")).to_contain_text("the test has no question: every stream ended")
    shot(page, "test-card-no-question")
    page.set_viewport_size({"width": 390, "height": 844})
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot(page, "test-card-no-question-phone")
