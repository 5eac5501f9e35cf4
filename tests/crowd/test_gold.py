"""Hidden gold: marked on accepted images only, mixed in unseen, scored, never trained on; the pause."""

from __future__ import annotations

import re

import pytest

from annotations.models import ObjectAnnotation, Stage
from annotations.services.decided import annotation_accept_decided
from crowd.models import Copy, GoldImage, GoldScore, ImageMerge, Pause
from crowd.services.gold import gold_mark
from crowd.services.settings import crowd_settings_update
from tests.crowd.conftest import drawing, person, work_through
from tests.factories import ImageFactory

pytestmark = pytest.mark.django_db

ANSWER = drawing(person(100, 100), person(300, 200))


def gold_image(crowd, reviewer, name="gold.png"):
    image = ImageFactory(collection=crowd, original_name=name)
    annotation_accept_decided(image=image, document=ANSWER, decided_by=reviewer)
    image.refresh_from_db()
    gold_mark(image=image, user=reviewer)
    return image


def test_gold_on_an_image_not_accepted_is_a_409_and_changes_nothing(crowd, reviewer, api):
    image = ImageFactory(collection=crowd)
    response = api.as_user(reviewer).post(f"/api/v1/crowd/images/{image.pk}/gold/")
    assert (response.status_code, response.json()["code"]) == (409, "gold_not_accepted")
    assert not GoldImage.objects.exists()


def test_an_annotator_cannot_tell_a_gold_image_from_another(crowd, annotators, reviewer, api):
    """Everything the annotator is given and answered, for a gold image and for a normal one, is the
    same but for the work's number and the expiry of its lease."""
    gold_image(crowd, reviewer)
    ImageFactory(collection=crowd)
    seen = {}
    client = api.as_user(annotators[0])
    for kind, rate in (("gold", 1.0), ("normal", 0.0)):
        crowd_settings_update(collection=crowd, values={"gold_rate": rate})
        given = client.post(f"/api/v1/collections/{crowd.pk}/crowd/queue/next/")
        work = given.json()["id"]
        opened = client.get(f"/api/v1/crowd/work/{work}/annotation/")
        saved = client.put(f"/api/v1/crowd/work/{work}/annotation/", drawing(person(100, 100)), format="json")
        page = client.get(f"/crowd/work/{work}/")
        submitted = client.post(f"/api/v1/crowd/work/{work}/submit/")
        seen[kind] = [(r.status_code, _without(r, work)) for r in (given, opened, saved, submitted)] + [
            (page.status_code, _same_page(page.content.decode(), work))
        ]
        assert Copy.objects.get(pk=work).gold == (kind == "gold")
    assert seen["gold"] == seen["normal"]


def _without(response, work):
    body = response.json()
    body.pop("lease_expires_at", None)
    return _numbered(str(body), work)


def _numbered(text: str, work: int) -> str:
    """The work's number, wherever it stands, as N."""
    return re.sub(rf"(?<![\w.]){work}(?![\w.])", "N", text)


def _same_page(html: str, work: int) -> str:
    """The page without what differs on every rendering: the CSRF tokens and the lease's expiry."""
    html = re.sub(r'name="csrfmiddlewaretoken" value="[^"]+"', "", html)
    html = re.sub(r"\d{4}-\d\d-\d\dT[\d:.]+(\+00:00|Z)?", "T", html)
    return _numbered(html, work)


def test_work_on_gold_is_scored_and_never_enters_the_training_set(crowd, annotators, reviewer):
    image = gold_image(crowd, reviewer)
    before = list(ObjectAnnotation.objects.filter(image=image).values_list("x", "y"))
    crowd_settings_update(collection=crowd, values={"gold_rate": 1.0})
    [copy] = work_through(crowd, [(annotators[0], drawing(person(101, 100)))])
    score = GoldScore.objects.get(copy=copy)
    assert (score.box_f1, score.correct, score.total) == (pytest.approx(2 / 3), 1, 2)
    assert not ImageMerge.objects.filter(image=image).exists()
    assert list(ObjectAnnotation.objects.filter(image=image).values_list("x", "y")) == before
    image.refresh_from_db()
    assert image.stage == Stage.ACCEPTED


def test_a_spammer_is_paused_told_why_and_a_reviewer_lifts_it(crowd, annotators, reviewer, api):
    crowd_settings_update(collection=crowd, values={"gold_rate": 1.0, "min_gold": 3, "pause_threshold": 0.8})
    for n in range(4):
        gold_image(crowd, reviewer, name=f"gold-{n}.png")
    spammer = annotators[3]
    work_through(crowd, [(spammer, drawing(person(500, 10 + n))) for n in range(2)])
    assert not Pause.objects.exists()  # two gold images: under the minimum
    work_through(crowd, [(spammer, drawing(person(500, 40)))])
    client = api.as_user(spammer)
    refused = client.post(f"/api/v1/collections/{crowd.pk}/crowd/queue/next/")
    assert (refused.status_code, refused.json()["code"]) == (403, "annotator_paused")
    assert "0 of your 9 boxes and attributes were right" in refused.json()["message"]
    # A careful annotator is not paused by the same rule.
    work_through(crowd, [(annotators[0], ANSWER) for _ in range(3)])
    assert not Pause.objects.filter(annotator=annotators[0]).exists()
    listed = api.as_user(reviewer).get(f"/api/v1/collections/{crowd.pk}/crowd/pauses/").json()
    assert [p["annotator"] for p in listed] == [spammer.username]
    lifted = api.as_user(reviewer).delete(f"/api/v1/collections/{crowd.pk}/crowd/pauses/{spammer.pk}/")
    assert lifted.status_code == 204
    again = api.as_user(spammer).post(f"/api/v1/collections/{crowd.pk}/crowd/queue/next/")
    assert again.status_code == 200, again.content
