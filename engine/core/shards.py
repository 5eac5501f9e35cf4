"""Fitting is additive: statistics fitted on shards of a training set merge into the statistics of the
whole, array for array (docs/engine.md, "Fitting at scale").

- `merge(shards)`: concatenates the per-image and per-object arrays in shard order (renumbering images
  and object offsets) and adds the histograms (the union of their masks, counts summed). The result is
  identical to `fit` over the shards' scenes in the same order; `tests/engine/core/test_shards.py`
  compares them array by array.
- `line_ranges(path, n)`: n byte ranges of a JSON Lines file, cut at line ends, for n workers.
- `fit_range(...)`: fit the scenes of one byte range, in chunks of `chunk` images merged at the end, so
  the pairs of a chunk (the largest temporary arrays of a fit) bound a worker's memory.
- `fit_parallel(...)`: `vtt-engine fit --workers N` without Celery: one process per range, merged here.
  The Celery version runs `fit_range` (or `fit` on a shard's scenes) per task and `merge` at the end.
"""

from __future__ import annotations

import itertools
import os
import resource
import tempfile
from collections.abc import Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from itertools import chain, islice
from pathlib import Path
from typing import Any

import numpy as np

from engine.core.statistics import FittedStatistics, Histogram, fit
from engine.core.statistics_file import load, save
from kernel.errors import StatisticsError
from kernel.scene import Scene, iter_scene_lines
from kernel.vocabulary import Vocabulary, load_vocabulary

DEFAULT_CHUNK = 100_000


def merge_histograms(histograms: Sequence[Histogram]) -> Histogram:
    """The union of the masks, each with its counts (and region splits) summed: integer sums, so the
    result is the histogram of one fit of all the items, whatever the order of the shards."""
    masks = np.concatenate([h.masks for h in histograms]).astype(np.uint64)
    counts = np.concatenate([h.counts for h in histograms]).astype(np.int64)
    distinct, inverse = np.unique(masks, return_inverse=True)
    inverse = inverse.reshape(-1)
    summed = np.zeros(len(distinct), dtype=np.int64)
    np.add.at(summed, inverse, counts)
    # The region splits: the mask axis is the last one; move each shard's columns to the union's.
    by_region = np.zeros((*histograms[0].by_region.shape[:-1], len(distinct)), dtype=np.int64)
    start = 0
    for histogram in histograms:
        columns = inverse[start : start + len(histogram.masks)]
        by_region[..., columns] += histogram.by_region  # a shard's masks are distinct: no collisions
        start += len(histogram.masks)
    return Histogram(distinct.astype(np.uint64), summed, by_region)


def merge(shards: Sequence[FittedStatistics]) -> FittedStatistics:
    """The statistics of the shards' images, in shard order, as one fit would give them."""
    if not shards:
        raise StatisticsError("nothing to merge: no shards")
    first = shards[0]
    document = first.vocabulary.to_document()
    for shard in shards[1:]:
        if shard.vocabulary.to_document() != document:
            raise StatisticsError("shards fitted with different vocabularies cannot be merged")
        if shard.min_overlap != first.min_overlap:
            raise StatisticsError("shards fitted with different min_overlap cannot be merged")
    if len(shards) == 1:
        return first
    image_offsets = np.cumsum([0] + [s.n_images for s in shards])
    object_offsets = np.cumsum([0] + [s.n_objects for s in shards])
    image_start = np.concatenate(
        [np.zeros(1, dtype=np.int64)] + [s.image_start[1:] + object_offsets[i] for i, s in enumerate(shards)]
    ).astype(np.int64)
    obj_image = np.concatenate(
        [s.obj_image.astype(np.int64) + image_offsets[i] for i, s in enumerate(shards)]
    ).astype(np.int32)
    n_types = len(first.vocabulary.types)
    stats = FittedStatistics(
        vocabulary=first.vocabulary,
        min_overlap=first.min_overlap,
        image_names=np.concatenate([s.image_names for s in shards]),
        image_width=np.concatenate([s.image_width for s in shards]),
        image_height=np.concatenate([s.image_height for s in shards]),
        image_start=image_start,
        obj_image=obj_image,
        obj_type=np.concatenate([s.obj_type for s in shards]),
        obj_attrs=np.concatenate([s.obj_attrs for s in shards]),
        obj_known=np.concatenate([s.obj_known for s in shards]),
        obj_vis=np.concatenate([s.obj_vis for s in shards]),
        visible_counts=np.concatenate([s.visible_counts for s in shards]),
        unknown_counts=np.concatenate([s.unknown_counts for s in shards]),
        attribute_histograms=tuple(
            merge_histograms([s.attribute_histograms[t] for s in shards]) for t in range(n_types)
        ),
        pair_histograms={
            key: merge_histograms([s.pair_histograms[key] for s in shards]) for key in first.pair_histograms
        },
        # Shards hold contiguous object ranges, so the offset pairs stay sorted by (subject, object).
        rel_subject=np.concatenate([s.rel_subject + object_offsets[i] for i, s in enumerate(shards)]),
        rel_object=np.concatenate([s.rel_object + object_offsets[i] for i, s in enumerate(shards)]),
        rel_bits=np.concatenate([s.rel_bits for s in shards]).astype(np.uint64),
    )
    stats.meta.update(stats.summary())
    stats.meta["fit_seconds"] = round(sum(float(s.meta.get("fit_seconds", 0.0)) for s in shards), 3)
    stats.meta["shards"] = sum(int(s.meta.get("shards", 1)) for s in shards)
    return stats


def line_ranges(path: Path, parts: int) -> list[tuple[int, int]]:
    """`parts` byte ranges covering the file, each starting at a line start (some may be empty)."""
    size = path.stat().st_size
    cuts = [0]
    with path.open("rb") as handle:
        for k in range(1, parts):
            handle.seek(max(cuts[-1], size * k // parts))
            if handle.tell() > 0:
                handle.seek(handle.tell() - 1)
                handle.readline()  # to the end of the line the cut fell in
            cuts.append(min(max(handle.tell(), cuts[-1]), size))
    cuts.append(size)
    return list(itertools.pairwise(cuts))


def _lines(path: Path, start: int, end: int) -> Iterator[str]:
    with path.open("rb") as handle:
        handle.seek(start)
        while handle.tell() < end:
            line = handle.readline()
            if not line:
                break
            yield line.decode("utf-8")


def _chunks(scenes: Iterator[Scene], size: int) -> Iterator[Iterator[Scene]]:
    """Consecutive runs of at most `size` scenes, each streamed (never held as a list): a chunk of
    parsed scenes costs several times its arrays."""
    while True:
        try:
            first = next(scenes)
        except StopIteration:
            return
        yield chain([first], islice(scenes, size - 1))


def fit_range(
    vocabulary: Vocabulary,
    path: Path,
    start: int,
    end: int,
    min_overlap: float = 0.0,
    chunk: int = DEFAULT_CHUNK,
) -> FittedStatistics | None:
    """Fit the scenes in bytes [start, end) of a JSON Lines file; None when the range holds none."""
    source = f"{path} (bytes {start}-{end})"
    scenes = iter(iter_scene_lines(_lines(path, start, end), vocabulary, source))
    fitted = [fit(vocabulary, part, min_overlap) for part in _chunks(scenes, chunk)]
    return merge(fitted) if fitted else None


def _worker(task: tuple[str, str, int, int, float, int, str]) -> tuple[str | None, float, float]:
    vocabulary_path, scenes_path, start, end, min_overlap, chunk, out = task
    stats = fit_range(
        load_vocabulary(Path(vocabulary_path)), Path(scenes_path), start, end, min_overlap, chunk
    )
    if stats is not None:
        save(stats, out)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return (out if stats is not None else None), usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def fit_parallel(
    vocabulary_path: Path,
    scenes_path: Path,
    workers: int,
    min_overlap: float = 0.0,
    chunk: int = DEFAULT_CHUNK,
) -> tuple[FittedStatistics, dict[str, Any]]:
    """Fit a JSON Lines file with `workers` processes (one byte range each), then merge the shards.

    Returns the statistics and the workers' peak resident memory in MB."""
    if workers < 1:
        raise StatisticsError("workers must be at least 1", where="--workers")
    ranges = line_ranges(scenes_path, workers)
    with tempfile.TemporaryDirectory(prefix="vtt-fit-") as scratch:
        tasks = [
            (
                str(vocabulary_path),
                str(scenes_path),
                a,
                b,
                min_overlap,
                chunk,
                os.path.join(scratch, f"{i}.npz"),
            )
            for i, (a, b) in enumerate(ranges)
        ]
        with ProcessPoolExecutor(max_workers=workers) as pool:
            results = list(pool.map(_worker, tasks))
        shards = [load(out) for out, _, _ in results if out is not None]
    if not shards:
        raise StatisticsError("the training set is empty: fitting needs at least one annotated scene")
    merged = merge(shards)
    return merged, {
        "worker_peak_mb": [round(peak, 1) for _, peak, _ in results],
        "worker_cpu_seconds": [round(cpu, 1) for _, _, cpu in results],
        "coordinator_peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }
