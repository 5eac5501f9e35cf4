"""Asking for a fit, running it, and what the row and the file then say."""

from __future__ import annotations

import numpy as np
import pytest
from django.core.files.storage import default_storage

from annotations.models import Image, Split, Stage
from annotations.selectors.vocabularies import core_vocabulary
from engine import bridge, services
from engine.core.statistics import fit
from engine.files import statistics_read
from engine.models import FitStatus, FittedStatistics
from kernel.errors import SceneError
from tests.factories import CollectionFactory
from vtt_site.errors import ApplicationError

pytestmark = pytest.mark.django_db


def start(collection, user=None, **kwargs):
    return services.statistics_fit_start(user=user, collections=[collection], **kwargs)


def test_a_fit_uses_exactly_the_reviewed_training_images(
    trained_collection, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        statistics = start(trained_collection)
    statistics.refresh_from_db()
    assert statistics.status == FitStatus.READY and statistics.progress == 1.0
    expected = Image.objects.filter(collection=trained_collection, split=Split.TRAIN, stage=Stage.ACCEPTED)
    assert set(statistics.training_images.values_list("pk", flat=True)) == set(
        expected.values_list("pk", flat=True)
    )
    assert statistics.n_images == 60 and statistics.n_objects > 60
    assert statistics.settings == {"min_overlap": 0.0}
    person = statistics.summary["types"]["person"]
    assert 0.2 < person["attribute_frequencies"]["female"] < 0.8
    # The file holds what fitting the same scenes directly gives.
    vocabulary = core_vocabulary(trained_collection.vocabulary)
    direct = fit(vocabulary, bridge.scenes_of(expected.values_list("pk", flat=True), vocabulary))
    loaded = statistics_read(statistics.storage_name)
    assert np.array_equal(loaded.obj_attrs, direct.obj_attrs) and np.array_equal(
        loaded.obj_vis, direct.obj_vis
    )
    assert statistics.file_size == default_storage.size(statistics.storage_name)


def test_running_a_fit_twice_does_nothing_the_second_time(trained_collection):
    statistics = start(trained_collection)  # not committed in this test: the task did not run
    assert services.statistics_fit_run(statistics_id=statistics.pk).status == FitStatus.READY
    assert services.statistics_fit_run(statistics_id=statistics.pk) is None
    assert FittedStatistics.objects.get().status == FitStatus.READY


def test_a_failing_fit_says_why(trained_collection, monkeypatch):
    def broken(*args, **kwargs):
        raise SceneError("bbox lies outside the image", where="image 7")

    monkeypatch.setattr(bridge, "scenes_of", broken)
    statistics = services.statistics_fit_run(statistics_id=start(trained_collection).pk)
    assert statistics.status == FitStatus.FAILED
    assert "image 7: bbox lies outside the image" in statistics.message
    assert statistics.file_name == ""


@pytest.mark.parametrize(
    ("collections", "kwargs", "code"),
    [
        (lambda c: [], {}, "no_collections"),
        (lambda c: [c, CollectionFactory()], {}, "mixed_vocabularies"),
        (lambda c: [CollectionFactory(vocabulary=c.vocabulary)], {}, "no_training_images"),
        (lambda c: [c], {"min_overlap": 1.5}, "bad_setting"),
    ],
)
def test_a_fit_that_cannot_be_made_is_refused_and_nothing_is_written(
    trained_collection, collections, kwargs, code
):
    with pytest.raises(ApplicationError) as error:
        services.statistics_fit_start(user=None, collections=collections(trained_collection), **kwargs)
    assert error.value.code == code
    assert not FittedStatistics.objects.exists()


def test_deleting_statistics_removes_the_file(trained_collection, django_capture_on_commit_callbacks):
    statistics = services.statistics_fit_run(statistics_id=start(trained_collection).pk)
    name = statistics.storage_name
    assert default_storage.exists(name)
    with django_capture_on_commit_callbacks(execute=True):
        services.statistics_delete(statistics=statistics)
    assert not default_storage.exists(name) and not FittedStatistics.objects.exists()
