"""Fitting and the statistics file."""

from __future__ import annotations

import json

import numpy as np
import pytest

from engine.core.statistics import fit
from engine.core.statistics_file import ARRAY_FIELDS, FORMAT_VERSION, load, save
from kernel.errors import StatisticsError
from tests.engine.core.random_scenes import random_scene, small_vocabulary

V = small_vocabulary()


@pytest.fixture(scope="module")
def scenes():
    rng = np.random.default_rng(4)
    return [random_scene(rng, V, f"s{i}") for i in range(60)]


def test_the_file_round_trips(scenes, tmp_path):
    stats = fit(V, scenes, min_overlap=0.1)
    save(stats, tmp_path / "stats.npz")
    loaded = load(tmp_path / "stats.npz")
    assert loaded.vocabulary == V and loaded.min_overlap == 0.1
    for name in ARRAY_FIELDS:
        assert np.array_equal(getattr(loaded, name), getattr(stats, name)), name
    assert loaded.pair_histograms.keys() == stats.pair_histograms.keys()
    assert_same_histograms(loaded, stats)
    assert loaded.summary() == stats.summary()
    assert not (tmp_path / "stats.npz.partial").exists()


def assert_same_histograms(a, b):
    pairs = [(a.attribute_histograms[t], h) for t, h in enumerate(b.attribute_histograms)]
    pairs += [(a.pair_histograms[key], h) for key, h in b.pair_histograms.items()]
    for mine, theirs in pairs:
        assert np.array_equal(mine.masks, theirs.masks) and np.array_equal(mine.counts, theirs.counts)
        assert mine.by_region.dtype == theirs.by_region.dtype
        assert np.array_equal(mine.by_region, theirs.by_region)


def test_region_splits_count_the_items_visible_in_each_region(scenes):
    """Region w's row of an attribute histogram holds the known objects visible in w; the (w, v) cell of
    a pair histogram the ordered pairs whose subject is visible in w and object in v."""
    stats = fit(V, scenes)
    whole = V.region_index[V.regions[0].id]  # the whole image: every object is visible there
    for t, histogram in enumerate(stats.attribute_histograms):
        assert np.array_equal(histogram.by_region[whole], histogram.counts)
        assert (histogram.by_region <= histogram.counts).all()
        visible = (
            (stats.obj_type == t) & stats.obj_known & ((stats.obj_vis >> np.uint64(3)) & np.uint64(1) == 1)
        )
        assert histogram.by_region[3].sum() == visible.sum()
    for histogram in stats.pair_histograms.values():
        assert np.array_equal(histogram.by_region[whole, whole], histogram.counts)


def test_a_version_2_file_is_read_with_its_region_splits_derived(scenes, tmp_path):
    """Version 2 files have no region splits: loading derives them from the per-object arrays, the same
    numbers as a new fit."""
    stats = fit(V, scenes, min_overlap=0.1)
    path = tmp_path / "v2.npz"
    save(stats, path)
    archive = {k: v for k, v in np.load(path).items() if "_regions_" not in k}
    meta = json.loads(archive["meta"].tobytes())
    meta["format_version"] = 2
    archive["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    np.savez(path, **archive)
    assert_same_histograms(load(path), stats)


def test_counts_match_the_scenes(scenes):
    stats = fit(V, scenes)
    assert stats.n_images == len(scenes)
    assert stats.n_objects == sum(len(s.objects) for s in scenes)
    # Every ordered pair of distinct objects of one image is in exactly one pair histogram.
    pairs = sum(len(s.objects) * (len(s.objects) - 1) for s in scenes)
    assert sum(h.total for h in stats.pair_histograms.values()) == pairs
    known = sum(o.attributes_known for s in scenes for o in s.objects)
    assert sum(h.total for h in stats.attribute_histograms) == known
    per_type = stats.summary()["types"]
    females = sum("female" in o.attributes for s in scenes for o in s.objects if o.type == "person")
    known_people = sum(o.attributes_known for s in scenes for o in s.objects if o.type == "person")
    assert per_type["person"]["attribute_frequencies"]["female"] == pytest.approx(females / known_people)


def test_an_older_format_is_refused_with_a_clear_message(scenes, tmp_path):
    path = tmp_path / "old.npz"
    save(fit(V, scenes), path)
    archive = dict(np.load(path))
    meta = json.loads(archive["meta"].tobytes())
    for version in (1, FORMAT_VERSION + 1):
        meta["format_version"] = version
        archive["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
        np.savez(path, **archive)
        with pytest.raises(StatisticsError, match="fit again"):
            load(path)


def test_not_a_statistics_file(tmp_path):
    (tmp_path / "x.npz").write_text("hello")
    with pytest.raises(StatisticsError):
        load(tmp_path / "x.npz")


def test_an_empty_training_set_is_refused():
    with pytest.raises(StatisticsError, match="empty"):
        fit(V, [])
