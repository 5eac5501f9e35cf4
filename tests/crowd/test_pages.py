"""The crowd's pages: the collection's crowd section and its form, the annotator's work page, the
review of a merge, the quality page."""

from __future__ import annotations

import json

import pytest

from crowd.models import CrowdSettings, GoldImage, ImageMerge, MergeState
from crowd.services.review import merge_review_next
from tests.crowd.conftest import drawing, person, work_through
from tests.factories import ImageFactory

pytestmark = pytest.mark.django_db


def logged_in(client, user):
    client.force_login(user)
    return client


def merged(crowd, annotators):
    image = ImageFactory(collection=crowd, original_name="street.png")
    work_through(
        crowd,
        [
            (annotators[0], drawing(person(100, 100))),
            (annotators[1], drawing(person(102, 100), person(300, 300))),
            (annotators[2], drawing(person(101, 100))),
        ],
    )
    return image


def test_the_collection_page_shows_the_crowd_to_its_reviewer_and_the_form_refuses_bad_values(
    crowd, annotators, reviewer, client
):
    merged(crowd, annotators)
    page = logged_in(client, reviewer).get(f"/collections/{crowd.pk}/")
    html = page.content.decode()
    assert 'data-testid="crowd-summary"' in html and "1 waiting for review" in html
    assert f"/collections/{crowd.pk}/crowd/review/next/" in html  # Review next goes to the crowd
    response = client.post(
        f"/collections/{crowd.pk}/crowd/settings/", {"overlap": "9", "gold_rate": "0.1"}, follow=True
    )
    assert "Out of range: overlap" in response.content.decode()
    assert CrowdSettings.objects.get(collection=crowd).overlap == 3
    response = client.post(
        f"/collections/{crowd.pk}/crowd/settings/",
        {
            "overlap": "3",
            "iou_threshold": "0.6",
            "agreement_threshold": "0.7",
            "gold_rate": "0.1",
            "pause_threshold": "0.5",
            "min_gold": "4",
            "auto_accept": "on",
        },
        follow=True,
    )
    assert "Crowd settings saved." in response.content.decode()
    saved = CrowdSettings.objects.get(collection=crowd)
    assert (saved.iou_threshold, saved.auto_accept, saved.min_gold) == (0.6, True, 4)


def test_an_annotator_sees_no_crowd_section_and_annotate_next_opens_their_work(crowd, annotators, client):
    ImageFactory(collection=crowd, original_name="secret.png")
    page = logged_in(client, annotators[0]).get(f"/collections/{crowd.pk}/")
    assert 'data-testid="crowd"' not in page.content.decode()
    response = client.post(f"/collections/{crowd.pk}/annotate/next/", follow=True)
    assert response.redirect_chain[0] == (f"/collections/{crowd.pk}/crowd/next/", 307)
    assert response.redirect_chain[-1][0].startswith("/crowd/work/")
    assert response.status_code == 200
    assert "secret" not in response.content.decode()


def test_the_review_page_shows_each_version_and_the_disagreements(crowd, annotators, reviewer, client):
    image = merged(crowd, annotators)
    merge_review_next(collection=crowd, user=reviewer)
    page = logged_in(client, reviewer).get(f"/crowd/review/{image.pk}/")
    html = page.content.decode()
    assert html.count('data-testid="version"') == 3
    assert "crowd-box disagree" in html and 'data-testid="disagreements"' in html
    for annotator in annotators[:3]:
        assert annotator.username in html
    # Use the second annotator's version, open it in the editor, then accept it.
    client.post(f"/crowd/review/{image.pk}/decide/", {"pick": annotators[1].username})
    assert len(ImageMerge.objects.get(image=image).merged["objects"]) == 2
    editor = client.get(f"/crowd/review/{image.pk}/edit/").content.decode()
    assert f"/api/v1/crowd/images/{image.pk}/merge/" in editor and 'data-testid="send-back"' not in editor
    client.post(f"/crowd/review/{image.pk}/decide/")
    assert ImageMerge.objects.get(image=image).state == MergeState.ACCEPTED
    client.post(f"/crowd/review/{image.pk}/decide/", {"gold": "1"})
    assert GoldImage.objects.filter(image=image).exists()


def test_an_annotator_cannot_open_the_review_or_the_quality_page(crowd, annotators, client):
    image = merged(crowd, annotators)
    logged_in(client, annotators[3])
    # The image itself is hidden from an annotator of a crowd: a 404, as for an image that does not exist.
    assert client.get(f"/crowd/review/{image.pk}/").status_code == 404
    assert client.get(f"/collections/{crowd.pk}/crowd/quality/").status_code == 403


def test_the_quality_page_and_its_csv(crowd, annotators, reviewer, client, api):
    merged(crowd, annotators)
    page = logged_in(client, reviewer).get(f"/collections/{crowd.pk}/crowd/quality/")
    html = page.content.decode()
    assert page.status_code == 200 and '<svg class="plot"' in html
    assert all(a.username in html for a in annotators[:3])
    csv = api.as_user(reviewer).get(f"/api/v1/collections/{crowd.pk}/crowd/quality/?as=csv")
    lines = csv.content.decode().splitlines()
    assert lines[0].startswith("annotator,images_done,seconds_per_image,gold_images,gold_accuracy")
    assert len(lines) == 4
    bad = api.as_user(reviewer).get(f"/api/v1/collections/{crowd.pk}/crowd/quality/?as=xls")
    assert bad.status_code == 400


def test_a_collection_of_one_annotator_has_no_crowd_queue(collection, annotator, api):
    response = api.as_user(annotator).post(f"/api/v1/collections/{collection.pk}/crowd/queue/next/")
    assert (response.status_code, response.json()["code"]) == (409, "not_a_crowd")
    ImageFactory(collection=collection)
    assert (
        api.as_user(annotator).post(f"/api/v1/collections/{collection.pk}/queue/annotation/next/").status_code
        == 200
    )


def test_the_individual_work_is_exported_on_request_once_merged(crowd, annotators, reviewer, api):
    merged(crowd, annotators)
    ImageFactory(collection=crowd, original_name="half-done.png")
    work_through(crowd, [(annotators[0], drawing(person(5, 5)))])  # not merged: not exported
    response = api.as_user(reviewer).get(f"/api/v1/collections/{crowd.pk}/crowd/copies/")
    records = [json.loads(line) for line in b"".join(response.streaming_content).decode().splitlines()]
    assert [(r["image"], r["annotator"], len(r["objects"])) for r in records] == [
        ("street.png", annotators[0].username, 1),
        ("street.png", annotators[1].username, 2),
        ("street.png", annotators[2].username, 1),
    ]


def test_the_quality_figures_take_as_many_queries_for_one_annotator_as_for_three(crowd, annotators):
    """Each annotator's gold figures come from one grouped query, not two queries per annotator."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from crowd.models import Copy, CopyState, GoldScore
    from crowd.quality import annotator_quality

    def gold_work(annotator, correct):
        copy = Copy.objects.create(
            image=ImageFactory(collection=crowd), annotator=annotator, state=CopyState.SUBMITTED, gold=True
        )
        GoldScore.objects.create(copy=copy, box_f1=1.0, attribute_accuracy=1.0, correct=correct, total=4)

    annotator_quality(collection=crowd)  # once first: what is cached after a first read is not counted
    counts = []
    for who in (annotators[:1], annotators[1:3]):
        for annotator in who:
            gold_work(annotator, 3)
        with CaptureQueriesContext(connection) as captured:
            rows = annotator_quality(collection=crowd)
        counts.append(len(captured.captured_queries))
    assert counts[0] == counts[1]
    assert [(r["gold_images"], r["gold_accuracy"]) for r in rows] == [(1, 0.75)] * 3
