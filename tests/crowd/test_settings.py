"""A collection's crowd settings: ranges, and the overlap while images are part-way."""

from __future__ import annotations

import pytest

from crowd.models import CrowdSettings
from crowd.services.queue import copy_next
from tests.factories import ImageFactory

pytestmark = pytest.mark.django_db


def test_defaults_are_todays_flow(collection, api, reviewer):
    body = api.as_user(reviewer).get(f"/api/v1/collections/{collection.pk}/crowd/").json()
    assert body == {
        "overlap": 1,
        "iou_threshold": 0.5,
        "agreement_threshold": 0.8,
        "auto_accept": False,
        "gold_rate": 0.05,
        "pause_threshold": 0.6,
        "min_gold": 5,
    }
    assert not CrowdSettings.objects.exists()  # reading writes nothing


@pytest.mark.parametrize(
    "values, field",
    [
        ({"overlap": 0}, "overlap"),
        ({"overlap": 6}, "overlap"),
        ({"overlap": 2.5}, "overlap"),
        ({"overlap": "3"}, "overlap"),
        ({"iou_threshold": 0}, "iou_threshold"),
        ({"iou_threshold": 1.5}, "iou_threshold"),
        ({"agreement_threshold": -0.1}, "agreement_threshold"),
        ({"gold_rate": 2}, "gold_rate"),
        ({"auto_accept": "yes"}, "auto_accept"),
        ({"min_gold": 0}, "min_gold"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_out_of_range_is_a_400_and_changes_nothing(collection, api, reviewer, values, field):
    response = api.as_user(reviewer).patch(
        f"/api/v1/collections/{collection.pk}/crowd/",
        values | {"gold_rate": 0.1} if field != "gold_rate" else values,
        format="json",
    )
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid" and field in body["fields"]
    assert not CrowdSettings.objects.exists()


def test_the_overlap_cannot_change_while_images_are_part_way(crowd, annotators, api, reviewer):
    ImageFactory(collection=crowd)
    copy_next(collection=crowd, user=annotators[0])
    response = api.as_user(reviewer).patch(
        f"/api/v1/collections/{crowd.pk}/crowd/", {"overlap": 2}, format="json"
    )
    assert response.status_code == 409
    assert response.json()["code"] == "overlap_in_progress"
    assert "1 images" in response.json()["message"]
    assert CrowdSettings.objects.get(collection=crowd).overlap == 3
    # The other settings may change meanwhile.
    response = api.as_user(reviewer).patch(
        f"/api/v1/collections/{crowd.pk}/crowd/", {"iou_threshold": 0.7}, format="json"
    )
    assert response.status_code == 200 and response.json()["overlap"] == 3


def test_an_annotator_may_not_change_the_settings(crowd, annotators, api):
    response = api.as_user(annotators[0]).patch(
        f"/api/v1/collections/{crowd.pk}/crowd/", {"overlap": 2}, format="json"
    )
    assert response.status_code == 403
