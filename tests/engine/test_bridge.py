"""Reviewed annotations become engine-core scenes in a fixed number of queries."""

from __future__ import annotations

from annotations.models import Image, Split, Stage
from annotations.selectors.vocabularies import core_vocabulary
from engine import bridge
from kernel.scene import parse_scene


def test_scenes_come_back_as_they_were_imported(
    trained_collection, training_scenes, django_assert_num_queries
):
    vocabulary = core_vocabulary(trained_collection.vocabulary)
    ids = Image.objects.filter(
        collection=trained_collection, split=Split.TRAIN, stage=Stage.ACCEPTED
    ).values_list("pk", flat=True)
    ids = list(ids)
    with django_assert_num_queries(3):
        scenes = list(bridge.scenes_of(ids, vocabulary))
    expected = {s["image"]: parse_scene(s, vocabulary).to_document(vocabulary) for s in training_scenes}
    assert len(scenes) == len(expected) == 60
    for scene in scenes:
        assert scene.to_document(vocabulary) == expected[scene.image]


def test_progress_is_reported_per_image(trained_collection):
    vocabulary = core_vocabulary(trained_collection.vocabulary)
    ids = list(Image.objects.filter(collection=trained_collection).values_list("pk", flat=True))
    seen = []
    for _ in bridge.scenes_of(ids, vocabulary, seen.append):
        pass
    assert seen == list(range(1, len(ids) + 1))


def test_images_without_annotation_are_empty_scenes(trained_collection):
    vocabulary = core_vocabulary(trained_collection.vocabulary)
    bare = Image.objects.create(collection=trained_collection, original_name="bare.png", width=10, height=10)
    (scene,) = bridge.scenes_of([bare.pk], vocabulary)
    assert scene.objects == () and scene.relationships == frozenset()
