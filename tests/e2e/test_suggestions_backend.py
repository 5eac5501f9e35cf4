"""The whole way round, in the browser (issue 39): a collection connected to a real HTTP server speaking
Label Studio's ML backend protocol (tests/fake_ml_backend.py). The annotator's page asks the platform,
the platform asks the server with a signed URL of the picture, the server fetches the picture through
it and answers the scene's boxes; the page draws them, Y accepts one and it is saved. With the server
down, the page says suggestions are unavailable and still saves."""

from __future__ import annotations

import pytest

from annotations.models import ObjectAnnotation, Prediction, Split
from annotations.services.suggestions import model_backend_set
from demo.pictures import scene_pictures_upload
from demo.synthetic.scenes import generate_scenes
from tests.e2e.conftest import Canvas, login, open_next, shot
from tests.fake_ml_backend import FakeMLBackend

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def backend(team, live_server, settings):
    """The fake model server, the collection connected to it, and one demo scene registered with it."""
    collection, members = team
    settings.SITE_URL = live_server.url + "/"
    settings.SUGGESTIONS_TIMEOUT_SECONDS = 2.0
    settings.SUGGESTIONS_WAIT_SECONDS = 1.5
    scenes = [s for s in generate_scenes(6, seed=8, prefix="served") if len(s["objects"]) >= 2][:1]
    (image,) = scene_pictures_upload(collection=collection, scenes=scenes, split=Split.TRAIN)
    with FakeMLBackend(seed=3) as fake:
        with image.file.open("rb") as handle:
            fake.register(handle.read(), scenes[0])
        model_backend_set(collection=collection, user=members["rita"], url=fake.url)
        yield fake, image, scenes[0]


def test_the_page_shows_the_servers_boxes_and_y_saves_one(team, backend, new_page):
    collection, members = team
    fake, image, scene = backend
    page = new_page()
    login(page, members["alice"])
    open_next(page, collection)
    page.wait_for_selector("body[data-suggestions=ready]")
    assert page.locator("rect.suggestion").count() == len(scene["objects"])
    assert page.locator("[data-testid=suggestion-list] li[data-suggestion]").count() == len(scene["objects"])
    assert page.get_by_test_id("suggestion-source").inner_text() == "from model fake-detector-1"
    assert fake.fetched, "the server fetched the picture through the signed URL it was sent"
    shot(page, "suggestions-from-a-server")
    page.keyboard.press("y")
    page.wait_for_selector("[data-testid=save-state]:text('All changes saved')")
    assert Canvas(page).count() == 1
    (saved,) = ObjectAnnotation.objects.filter(image=image)
    assert saved.suggestion.status == "accepted" and not saved.suggestion_edited


def test_with_the_server_down_the_page_says_so_and_still_saves(team, backend, new_page):
    collection, members = team
    fake, image, _ = backend
    fake.down()
    page = new_page()
    login(page, members["alice"])
    open_next(page, collection)
    page.wait_for_selector("body[data-suggestions=unavailable]")
    note = page.get_by_test_id("suggestion-note").inner_text()
    assert note.startswith("Suggestions unavailable: ") and "could not be reached" in note
    assert not Prediction.objects.filter(image=image).exists()
    Canvas(page).drag((100, 100), (160, 220))
    page.keyboard.press("Control+s")
    page.wait_for_selector("[data-testid=save-state]:text('All changes saved')")
    assert ObjectAnnotation.objects.filter(image=image).count() == 1


def test_a_reviewer_checks_the_model_server_and_pre_annotates_on_the_collection_page(team, backend, new_page):
    collection, members = team
    page = new_page()
    login(page, members["rita"])
    page.goto(f"/collections/{collection.pk}/")
    section = page.get_by_test_id("model-server")
    section.get_by_test_id("model-server-check").click()
    page.wait_for_selector("text=The model server answers: model fake-detector-1")
    section.get_by_test_id("preannotate").click()
    page.wait_for_selector("[data-testid=preannotation]")
    page.locator("#model-server").scroll_into_view_if_needed()
    shot(page, "model-server-1400")
    page.set_viewport_size({"width": 390, "height": 844})
    shot(page, "model-server-390")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
