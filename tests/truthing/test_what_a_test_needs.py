"""Issue 37: a test was built on images without pixels (scene graphs imported without their image files),
truthed, published and dealt, and no seeing system could take it; a test with no question was published
without a word. A test takes only images with pixels, wherever it is made (API, web UI, Django admin,
demo), and a test with no question is not published: each refusal says why."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from accounts.roles import Role
from annotations.models import Image, Split
from demo.pictures import scene_pictures_upload
from demo.synthetic.scenes import generate_scenes
from tests.django_fixtures import import_scenes
from truthing.models import AutomaticTruthing, Step, Test, TestState
from truthing.services import lifecycle
from truthing.services.automatic import automatic_truthing_run
from vtt_site.errors import ApplicationError

pytestmark = pytest.mark.django_db


@pytest.fixture
def bare_test_images(trained_collection):
    """Two reviewed test images imported as scene graphs only: they have no pixels."""
    import_scenes(trained_collection, generate_scenes(2, seed=46, prefix="bare"), split=Split.TEST)
    images = list(trained_collection.images.filter(original_name__startswith="bare").order_by("pk"))
    assert len(images) == 2 and not any(image.file for image in images)
    return images


def _admin_client(users) -> APIClient:
    client = APIClient()
    client.force_authenticate(users[Role.ADMIN])
    return client


def test_the_api_refuses_a_test_on_images_without_pixels_and_counts_them(
    users, statistics, annotated_test_images, bare_test_images
):
    picked = annotated_test_images[:3] + bare_test_images
    response = _admin_client(users).post(
        "/api/v1/truthing/tests/",
        {"name": "no pixels", "statistics": statistics.pk, "images": [i.pk for i in picked]},
        format="json",
    )
    assert response.status_code == 400, response.content
    body = response.json()
    assert body["code"] == "images_without_pixels"
    assert body["message"].startswith("2 of the 5 test images have no pixels: ")
    assert "Upload their image files on the collection page first" in body["message"]
    assert body["fields"]["images"] == [f"{image.original_name} has no pixels." for image in bare_test_images]
    assert not Test.objects.exists()
    # As the message says: their files uploaded on the collection page, under their names, give them their
    # pixels, and the same pick is a test.
    scenes = [{"image": i.original_name, "width": i.width, "height": i.height} for i in bare_test_images]
    scene_pictures_upload(collection=bare_test_images[0].collection, scenes=scenes, split=Split.TEST)
    good = {"name": "with pixels", "statistics": statistics.pk, "images": [i.pk for i in picked]}
    assert _admin_client(users).post("/api/v1/truthing/tests/", good, format="json").status_code == 201


def test_the_new_test_page_counts_the_images_without_pixels_and_refuses_them(
    client, users, statistics, trained_collection, annotated_test_images, bare_test_images
):
    client.force_login(users[Role.ADMIN])
    page = client.get("/tests/new/").content.decode()
    assert f"{trained_collection.name} (7 test images, 2 without pixels)" in page
    form = {"name": "From the page", "statistics": statistics.pk, "collections": [trained_collection.pk]}
    response = client.post("/tests/new/", form | {"streams_per_image": 1, "seed": 0, "start": "1"})
    assert response.status_code == 200
    assert "2 of the 7 test images have no pixels" in response.content.decode()
    assert not Test.objects.exists()


def test_the_admins_add_page_refuses_images_without_pixels_on_the_form(
    client, users, statistics, annotated_test_images, bare_test_images
):
    """The admin's add page shows the refusal on its form (a refusal at save time was a 500)."""
    client.force_login(users[Role.ADMIN])
    response = client.post(
        "/admin/truthing/test/add/",
        {
            "name": "Refused in the admin",
            "statistics": statistics.pk,
            "images": [bare_test_images[0].pk, annotated_test_images[0].pk],
            "streams_per_image": 1,
            "seed": 0,
        },
    )
    assert response.status_code == 200
    form = response.context["adminform"].form
    assert form.non_field_errors() == [
        "1 of the 2 test images has no pixels: a test needs images a vision system can look at (and an "
        "operator truth). Upload their image files on the collection page first (named as the images), "
        "or leave them out."
    ]
    assert form.errors["images"] == [f"{bare_test_images[0].original_name} has no pixels."]
    assert not Test.objects.exists()


def test_a_draft_made_before_the_rule_is_not_started_and_a_test_being_truthed_is_not_published(
    users, make_test, annotated_test_images
):
    draft = make_test(annotated_test_images[:2])
    truthing = lifecycle.start_test(test=make_test(annotated_test_images[2:4], name="truthing"))
    for job in AutomaticTruthing.objects.filter(test=truthing):
        automatic_truthing_run(job_id=job.pk)
    assert lifecycle.publish_blockers(truthing) == []
    # Their images lose their pixels: as if made before tests refused images without.
    Image.objects.filter(pk__in=[annotated_test_images[1].pk, annotated_test_images[3].pk]).update(file="")

    response = _admin_client(users).post(f"/api/v1/truthing/tests/{draft.pk}/start/")
    assert response.status_code == 400 and response.json()["code"] == "images_without_pixels"
    assert response.json()["message"].startswith("1 of the 2 test images has no pixels")
    draft.refresh_from_db()
    assert draft.state == TestState.DRAFT and not draft.test_images.filter(streams__isnull=False).exists()

    assert lifecycle.publish_blockers(truthing) == [
        "1 of the 2 test images has no pixels (a test needs images a vision system can look at)"
    ]
    response = _admin_client(users).post(f"/api/v1/truthing/tests/{truthing.pk}/publish/")
    assert (
        response.status_code == 409 and "1 of the 2 test images has no pixels" in response.json()["message"]
    )


def test_a_pick_without_any_pixels_says_none_has_them(statistics, bare_test_images):
    """The check every way of making a test calls (the demo's and the benchmarks' too)."""
    with pytest.raises(ApplicationError) as refused:
        lifecycle.check_test_images(statistics=statistics, image_ids=[i.pk for i in bare_test_images])
    assert refused.value.message.startswith("None of the 2 test images has pixels")


def test_a_test_whose_streams_ended_without_a_question_is_not_published(
    client, users, make_test, annotated_test_images
):
    """The oracle truths a test whose engine settings leave nothing to ask: every stream ends at once.
    The card lists the blocker with its reason, and the API refuses with it."""
    test = lifecycle.start_test(
        test=make_test(annotated_test_images[:2], settings={"min_population": 10**6, "max_questions": 12})
    )
    for job in AutomaticTruthing.objects.filter(test=test):
        automatic_truthing_run(job_id=job.pk)
    assert not Step.objects.filter(stream__test_image__test=test).exists()
    blockers = lifecycle.publish_blockers(test)
    assert len(blockers) == 1 and blockers[0].startswith("the test has no question: every stream ended")

    client.force_login(users[Role.ADMIN])
    card = client.get(f"/tests/{test.pk}/").content.decode()
    assert 'data-testid="blockers"' in card and "the test has no question" in card
    response = _admin_client(users).post(f"/api/v1/truthing/tests/{test.pk}/publish/")
    assert response.status_code == 409 and response.json()["code"] == "test_unfinished"
    assert "cannot be published yet: the test has no question" in response.json()["message"]
    test.refresh_from_db()
    assert test.state == TestState.TRUTHING
