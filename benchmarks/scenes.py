"""Synthetic scene-graph files for the benchmarks, cached in benchmarks/out/."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from pathlib import Path

from benchmarks.report import OUT
from demo.synthetic.scenes import generate_scenes


def cached_scenes(name: str, generate: Callable[[], Iterable[dict]]) -> Path:
    """benchmarks/out/<name>.jsonl, written from `generate` the first time it is asked for. Each process
    writes its own partial file and renames it into place, so two benchmarks started together that both
    need the file each finish with the same whole file (a shared partial name made one of them fail)."""
    path = OUT / f"{name}.jsonl"
    if not path.exists():
        OUT.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(f".{os.getpid()}.partial")
        with partial.open("w") as handle:
            for scene in generate():
                handle.write(json.dumps(scene) + "\n")
        partial.replace(path)
    return path


def scene_file(count: int, seed: int) -> Path:
    return cached_scenes(f"scenes-{count}-seed{seed}", lambda: generate_scenes(count, seed=seed))
