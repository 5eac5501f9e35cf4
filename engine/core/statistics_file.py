"""The statistics file: one uncompressed `.npz` (loads in milliseconds, no pickle) with the vocabulary,
the settings and the counts in a JSON `meta` entry, written whole or not at all, and versioned."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.core.statistics import FittedStatistics, Histogram, region_tables
from kernel.errors import StatisticsError
from kernel.vocabulary import Vocabulary, parse_vocabulary

FORMAT = "vtt-engine-statistics"
FORMAT_VERSION = 3
# Version 2 files (before the region tables) are still read: their tables are derived from the stored
# per-object arrays on loading (`region_tables`), which gives the same numbers as fitting again.
READABLE_VERSIONS = (2, 3)

# The per-image and per-object arrays of a fit, as saved in the file.
ARRAY_FIELDS = (
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
    "rel_subject",
    "rel_object",
    "rel_bits",
)


def save(stats: FittedStatistics, path: str | Path) -> None:
    target = Path(path)
    temporary = target.with_name(target.name + ".partial")
    temporary.write_bytes(dump(stats))
    temporary.replace(target)  # never leave a half-written statistics file behind


def dump(stats: FittedStatistics) -> bytes:
    """The file's bytes (what `save` writes), for a store that is not a folder."""
    meta = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "vocabulary": stats.vocabulary.to_document(),
        "min_overlap": stats.min_overlap,
        "pair_keys": [list(key) for key in stats.pair_histograms],
        **stats.meta,
    }
    arrays: dict[str, Any] = {name: getattr(stats, name) for name in ARRAY_FIELDS}
    for t, histogram in enumerate(stats.attribute_histograms):
        arrays[f"attr_masks_{t}"], arrays[f"attr_counts_{t}"] = histogram.masks, histogram.counts
        arrays[f"attr_regions_{t}"] = histogram.by_region
    for (s, o), histogram in stats.pair_histograms.items():
        arrays[f"pair_masks_{s}_{o}"], arrays[f"pair_counts_{s}_{o}"] = histogram.masks, histogram.counts
        arrays[f"pair_regions_{s}_{o}"] = histogram.by_region
    arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def load(path: str | Path | bytes) -> FittedStatistics:
    """The statistics of a file, or of its bytes (`dump`'s)."""
    source: Any = io.BytesIO(path) if isinstance(path, bytes) else Path(path)
    if isinstance(path, bytes):
        path = "statistics"
    try:
        archive = np.load(source, allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise StatisticsError(f"cannot read statistics file: {exc}", where=str(path)) from None
    with archive:
        meta = _meta(archive, path)
        vocabulary = parse_vocabulary(meta["vocabulary"])
        arrays = {name: archive[name] for name in ARRAY_FIELDS}
        attribute_histograms, pair_histograms = _histograms(archive, meta, vocabulary, arrays)
    extra = {
        k: v
        for k, v in meta.items()
        if k not in {"format", "format_version", "vocabulary", "min_overlap", "pair_keys"}
    }
    return FittedStatistics(
        vocabulary=vocabulary,
        min_overlap=float(meta["min_overlap"]),
        attribute_histograms=attribute_histograms,
        pair_histograms=pair_histograms,
        meta=extra,
        **arrays,
    )


def _meta(archive: Any, path: str | Path) -> dict[str, Any]:
    """The file's `meta` entry, once its format and version are known to be readable."""
    if "meta" not in archive.files:
        raise StatisticsError("not a statistics file (no meta entry)", where=str(path))
    meta: dict[str, Any] = json.loads(archive["meta"].tobytes().decode())
    if meta.get("format") != FORMAT or meta.get("format_version") not in READABLE_VERSIONS:
        raise StatisticsError(
            f"statistics format {meta.get('format')!r} version {meta.get('format_version')!r}; "
            f"this engine reads {FORMAT!r} versions {', '.join(map(str, READABLE_VERSIONS))}: fit again",
            where=str(path),
        )
    return meta


def _histograms(
    archive: Any, meta: dict[str, Any], vocabulary: Vocabulary, arrays: dict[str, npt.NDArray[Any]]
) -> tuple[tuple[Histogram, ...], dict[tuple[int, int], Histogram]]:
    """The attribute and pair histograms: as stored, or, from a version 2 file, derived from the arrays."""
    if meta["format_version"] == 2:
        return region_tables(
            vocabulary,
            *(
                arrays[name]
                for name in (
                    "image_start",
                    "obj_type",
                    "obj_attrs",
                    "obj_known",
                    "obj_vis",
                    "rel_subject",
                    "rel_object",
                    "rel_bits",
                )
            ),
        )
    attribute_histograms = tuple(
        Histogram(archive[f"attr_masks_{t}"], archive[f"attr_counts_{t}"], archive[f"attr_regions_{t}"])
        for t in range(len(vocabulary.types))
    )
    pair_histograms = {
        (s, o): Histogram(
            archive[f"pair_masks_{s}_{o}"],
            archive[f"pair_counts_{s}_{o}"],
            archive[f"pair_regions_{s}_{o}"],
        )
        for s, o in meta["pair_keys"]
    }
    return attribute_histograms, pair_histograms
