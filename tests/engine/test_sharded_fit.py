"""A fit over more images than ENGINE_FIT_SHARD_IMAGES is split into shard jobs fitted by the workers
side by side and merged; the merged statistics are the single fit's, array by array (issue 10)."""

from __future__ import annotations

import numpy as np
import pytest
from django.core.files.storage import default_storage
from django.db import transaction

from annotations.selectors.vocabularies import core_vocabulary
from engine import bridge, services
from engine.core.statistics import fit
from engine.files import statistics_read
from engine.models import FitShard, FitStatus

pytestmark = pytest.mark.django_db(transaction=True)

ARRAYS = (
    "image_names",
    "image_width",
    "image_height",
    "image_start",
    "obj_image",
    "obj_type",
    "obj_attrs",
    "obj_known",
    "obj_vis",
    "visible_counts",
    "unknown_counts",
)


def test_a_large_fit_is_sharded_and_merges_to_the_single_fit(settings, trained_collection):
    settings.ENGINE_FIT_SHARD_IMAGES = 25  # 60 training images: 3 shards
    with transaction.atomic():
        statistics = services.statistics_fit_start(user=None, collections=[trained_collection])
    statistics.refresh_from_db()  # eager tasks: shards ran, the last one queued the merge
    assert statistics.status == FitStatus.READY, statistics.message
    shards = list(FitShard.objects.filter(statistics=statistics))
    assert [(s.index, s.first, s.last, s.status) for s in shards] == [
        (0, 0, 20, "done"),
        (1, 20, 40, "done"),
        (2, 40, 60, "done"),
    ]
    assert not any(default_storage.exists(s.storage_name) for s in shards), (
        "shard files are removed once merged"
    )
    vocabulary = core_vocabulary(trained_collection.vocabulary)
    single = fit(
        vocabulary, bridge.scenes_of(statistics.training_images.values_list("pk", flat=True), vocabulary)
    )
    merged = statistics_read(statistics.storage_name)
    for name in ARRAYS:
        assert np.array_equal(getattr(merged, name), getattr(single, name)), name
    for t, histogram in enumerate(single.attribute_histograms):
        assert np.array_equal(merged.attribute_histograms[t].masks, histogram.masks)
        assert np.array_equal(merged.attribute_histograms[t].counts, histogram.counts)
        assert np.array_equal(merged.attribute_histograms[t].by_region, histogram.by_region)
    assert merged.pair_histograms.keys() == single.pair_histograms.keys()
    for key, histogram in single.pair_histograms.items():
        assert np.array_equal(merged.pair_histograms[key].counts, histogram.counts), key
        assert np.array_equal(merged.pair_histograms[key].by_region, histogram.by_region), key
    assert statistics.n_images == 60


def test_a_shard_that_cannot_be_fitted_fails_the_fit_with_its_message(
    settings, trained_collection, monkeypatch
):
    settings.ENGINE_FIT_SHARD_IMAGES = 25
    from kernel.errors import StatisticsError

    calls = {"n": 0}
    real_fit = services.fit

    def failing_second(*args, **kwargs):
        calls["n"] += 1
        if calls["n"] == 2:
            raise StatisticsError("the training set is empty")
        return real_fit(*args, **kwargs)

    monkeypatch.setattr(services, "fit", failing_second)
    with transaction.atomic():
        statistics = services.statistics_fit_start(user=None, collections=[trained_collection])
    statistics.refresh_from_db()
    assert statistics.status == FitStatus.FAILED
    assert "Shard 2 of 3 could not be fitted" in statistics.message
