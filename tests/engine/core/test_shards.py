"""Fitting is additive: shards fitted apart and merged equal one fit of the same images, array by array
(issue 10, "Fitting at a million images, across workers")."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from demo.synthetic.scenes import generate_scenes
from engine.core.cli import main
from engine.core.shards import fit_parallel, fit_range, line_ranges, merge
from engine.core.statistics import fit
from engine.core.statistics_file import ARRAY_FIELDS, load
from kernel.errors import StatisticsError
from kernel.scene import parse_scene
from tests.engine.core.random_scenes import (
    DEFAULT_VOCABULARY,
    default_vocabulary,
    random_scene,
    random_vocabulary,
)

STREET = default_vocabulary()


def assert_identical(merged, single):
    """Every array of the file, dtype included, and every histogram."""
    for name in ARRAY_FIELDS:
        a, b = getattr(merged, name), getattr(single, name)
        assert a.dtype == b.dtype, name
        assert a.shape == b.shape, name
        assert np.array_equal(a, b), name
    assert len(merged.attribute_histograms) == len(single.attribute_histograms)
    for a, b in zip(merged.attribute_histograms, single.attribute_histograms, strict=True):
        assert a.masks.dtype == b.masks.dtype and np.array_equal(a.masks, b.masks)
        assert a.counts.dtype == b.counts.dtype and np.array_equal(a.counts, b.counts)
        assert a.by_region.dtype == b.by_region.dtype and np.array_equal(a.by_region, b.by_region)
    assert merged.pair_histograms.keys() == single.pair_histograms.keys()
    for key, a in merged.pair_histograms.items():
        b = single.pair_histograms[key]
        assert np.array_equal(a.masks, b.masks) and np.array_equal(a.counts, b.counts), key
        assert a.by_region.dtype == b.by_region.dtype and np.array_equal(a.by_region, b.by_region), key
    for key in ("images", "objects", "pairs", "types"):
        assert merged.meta[key] == single.meta[key], key


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), random_vocab=st.booleans(), min_overlap=st.sampled_from([0.0, 0.3]))
def test_merged_shards_equal_one_fit(seed, random_vocab, min_overlap):
    rng = np.random.default_rng(seed)
    vocabulary = random_vocabulary(rng) if random_vocab else STREET
    scenes = [random_scene(rng, vocabulary, f"s{i}") for i in range(int(rng.integers(1, 30)))]
    cuts = sorted(int(c) for c in rng.integers(1, len(scenes) + 1, size=int(rng.integers(0, 4))))
    bounds = [0, *cuts, len(scenes)]
    shards = [fit(vocabulary, scenes[a:b], min_overlap) for a, b in itertools.pairwise(bounds) if b > a]
    assert_identical(merge(shards), fit(vocabulary, scenes, min_overlap))


def test_merging_refuses_shards_of_different_fits():
    rng = np.random.default_rng(3)
    scenes = [random_scene(rng, STREET, f"s{i}") for i in range(4)]
    with pytest.raises(StatisticsError):
        merge([fit(STREET, scenes[:2]), fit(STREET, scenes[2:], min_overlap=0.5)])
    other = random_vocabulary(rng)
    with pytest.raises(StatisticsError):
        merge([fit(STREET, scenes[:2]), fit(other, [random_scene(rng, other, "x")])])
    with pytest.raises(StatisticsError):
        merge([])


@pytest.fixture(scope="module")
def street_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("shards") / "train.jsonl"
    with path.open("w") as handle:
        for scene in generate_scenes(300, seed=5):
            handle.write(json.dumps(scene) + "\n")
    return path


def test_byte_ranges_cover_every_line_once(street_file):
    lines = street_file.read_bytes().splitlines(keepends=True)
    for parts in (1, 2, 3, 7, 400):
        ranges = line_ranges(street_file, parts)
        assert ranges[0][0] == 0 and ranges[-1][1] == street_file.stat().st_size
        pieces = [street_file.read_bytes()[a:b] for a, b in ranges]
        assert b"".join(pieces).splitlines(keepends=True) == lines
        assert all(not p or p.endswith(b"\n") for p in pieces)


def test_a_fit_in_chunks_and_workers_equals_one_fit(street_file):
    with street_file.open() as handle:
        single = fit(STREET, [parse_scene(json.loads(line), STREET) for line in handle])
    size = street_file.stat().st_size
    assert_identical(fit_range(STREET, street_file, 0, size, chunk=37), single)
    merged, info = fit_parallel(DEFAULT_VOCABULARY, street_file, workers=3, chunk=50)
    assert_identical(merged, single)
    assert len(info["worker_peak_mb"]) == 3


def test_vtt_engine_fit_with_workers_writes_the_same_file(street_file, tmp_path, capsys):
    common = ["fit", "--vocabulary", str(DEFAULT_VOCABULARY), "--scenes", str(street_file)]
    assert main([*common, "--out", str(tmp_path / "one.npz")]) == 0
    assert main([*common, "--out", str(tmp_path / "two.npz"), "--workers", "2"]) == 0
    assert_identical(load(tmp_path / "two.npz"), load(tmp_path / "one.npz"))
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["workers"] == 2
