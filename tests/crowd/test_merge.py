"""The merge when an image's copies are all in: agreement, review or automatic accept, and what
accepting writes."""

from __future__ import annotations

import pytest

from annotations.models import ObjectAnnotation, Stage
from annotations.selectors.annotation import image_annotation
from crowd.models import ImageMerge, MergeState, Reliability
from crowd.services.review import merge_accept, merge_correct, merge_review_next
from crowd.services.settings import crowd_settings_update
from tests.crowd.conftest import drawing, person, work_through
from tests.factories import ImageFactory
from vtt_site.errors import ApplicationError

pytestmark = pytest.mark.django_db

WALKING = ("male", "adult", "walking", "on sidewalk")
RUNNING = ("male", "adult", "running", "on sidewalk")


def test_nothing_is_merged_before_the_last_copy(crowd, annotators):
    image = ImageFactory(collection=crowd)
    work_through(crowd, [(annotators[0], drawing(person(10, 10))), (annotators[1], drawing(person(10, 10)))])
    assert not ImageMerge.objects.exists()
    image.refresh_from_db()
    assert image.stage == Stage.ANNOTATE


def test_two_of_three_keep_a_box_at_the_median_and_the_majority_decides_its_attributes(crowd, annotators):
    image = ImageFactory(collection=crowd)
    work_through(
        crowd,
        [
            (annotators[0], drawing(person(100, 100, 40, 90, *WALKING))),
            (annotators[1], drawing(person(104, 100, 40, 90, *RUNNING), person(400, 300))),
            (annotators[2], drawing(person(102, 98, 40, 90, *WALKING))),
        ],
    )
    merge = ImageMerge.objects.get(image=image)
    # One person box (all three), at the median of x 100, 104, 102 and y 100, 100, 98; the box only one
    # annotator drew is dropped; "walking" two to one.
    assert [o["bbox"] for o in merge.merged["objects"]] == [[102, 100, 40, 90]]
    assert merge.merged["objects"][0]["attributes"] == list(WALKING)
    assert merge.box_f1 == pytest.approx((1 + 2 / 3 + 2 / 3) / 3)
    assert {d["name"] for d in merge.disagreements} >= {"walking", "running", "person"}
    # Below the agreement threshold (0.8): a reviewer decides; the image's annotation is still empty.
    assert merge.state == MergeState.REVIEW
    image.refresh_from_db()
    assert image.stage == Stage.REVIEW
    assert not ObjectAnnotation.objects.filter(image=image).exists()


def test_accepting_writes_the_merge_as_the_images_annotation(crowd, annotators, reviewer):
    image = ImageFactory(collection=crowd)
    work_through(
        crowd,
        [
            (annotators[0], drawing(person(100, 100))),
            (annotators[1], drawing(person(101, 100), person(300, 300))),
            (annotators[2], drawing(person(99, 100))),
        ],
    )
    merge = merge_review_next(collection=crowd, user=reviewer)
    assert merge.image_id == image.pk
    # The reviewer picks the second annotator's version instead (two people), and accepts it.
    merge_correct(merge=merge, user=reviewer, document=drawing(person(101, 100), person(300, 300)))
    merge_accept(merge=merge, user=reviewer)
    image.refresh_from_db()
    assert image.stage == Stage.ACCEPTED and image.reviewed_by == reviewer
    assert [o["bbox"] for o in image_annotation(image=image)["objects"]] == [
        [101, 100, 40, 90],
        [300, 300, 40, 90],
    ]
    with pytest.raises(ApplicationError) as twice:
        merge_accept(merge=merge, user=reviewer)
    assert twice.value.code == "merge_decided"


def test_an_annotator_who_drew_the_image_does_not_review_it(crowd, annotators):
    ImageFactory(collection=crowd)
    work_through(crowd, [(a, drawing(person(10 + n, 10))) for n, a in enumerate(annotators[:2])])
    work_through(crowd, [(annotators[2], drawing(person(300, 300)))])
    assert merge_review_next(collection=crowd, user=annotators[0]) is None


def test_agreement_reaching_the_threshold_is_accepted_unreviewed_only_when_asked(crowd, annotators):
    first, second = ImageFactory(collection=crowd), ImageFactory(collection=crowd)
    same = [(a, drawing(person(50, 50, 40, 90, *WALKING))) for a in annotators[:3]]
    work_through(crowd, same)
    assert ImageMerge.objects.get(image=first).state == MergeState.REVIEW  # off by default
    crowd_settings_update(collection=crowd, values={"auto_accept": True})
    work_through(crowd, same)
    assert ImageMerge.objects.get(image=second).state == MergeState.ACCEPTED
    second.refresh_from_db()
    assert second.stage == Stage.ACCEPTED and second.reviewed_by is None
    assert ObjectAnnotation.objects.filter(image=second).count() == 1


def test_once_reliability_is_estimated_the_votes_are_weighed(
    crowd, annotators, settings, django_capture_on_commit_callbacks
):
    """The background estimate (run in-process here) is stored, and the next merge is weighted by it."""
    settings.CROWD_RELIABILITY_EVERY = 1
    settings.CROWD_RELIABILITY_MIN_ITEMS = 1
    for _ in range(2):
        ImageFactory(collection=crowd)
    same = [(a, drawing(person(50, 50, 40, 90, *WALKING))) for a in annotators[:3]]
    with django_capture_on_commit_callbacks(execute=True):
        work_through(crowd, same)
    assert Reliability.objects.filter(collection=crowd).count() == 3
    assert not ImageMerge.objects.order_by("pk").first().weighted
    work_through(crowd, same)
    assert ImageMerge.objects.order_by("pk").last().weighted
