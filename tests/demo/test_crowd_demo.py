"""The demo's crowd collection: what a newcomer finds under `make run`."""

from __future__ import annotations

import pytest

from accounts.roles import Role
from crowd.models import CrowdSettings, GoldImage, ImageMerge, MergeState, Pause
from demo.crowd import DRAWN, demo_crowd_ensure

pytestmark = pytest.mark.django_db


def test_the_crowd_demo_has_merges_to_review_gold_and_a_paused_annotator(users):
    people = {
        "annotator": users[Role.ANNOTATOR],
        "reviewer": users[Role.REVIEWER],
        "admin": users[Role.ADMIN],
    }
    collection = demo_crowd_ensure(people=people)
    assert CrowdSettings.objects.get(collection=collection).overlap == 3
    merges = ImageMerge.objects.filter(image__collection=collection)
    assert merges.count() == DRAWN
    assert (
        merges.filter(state=MergeState.ACCEPTED).exists() and merges.filter(state=MergeState.REVIEW).exists()
    )
    assert all(m.box_f1 is not None for m in merges)
    assert GoldImage.objects.filter(image__collection=collection).count() == 2
    assert Pause.objects.get(collection=collection).annotator.username == "crowd-careless"
    assert demo_crowd_ensure(people=people) == collection  # a second run changes nothing
    assert ImageMerge.objects.filter(image__collection=collection).count() == DRAWN
