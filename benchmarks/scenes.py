"""Synthetic scene-graph files for the benchmarks, cached in benchmarks/out/."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.report import OUT
from demo.synthetic.scenes import generate_scenes


def scene_file(count: int, seed: int) -> Path:
    path = OUT / f"scenes-{count}-seed{seed}.jsonl"
    if not path.exists():
        OUT.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".partial")
        with partial.open("w") as handle:
            for scene in generate_scenes(count, seed=seed):
                handle.write(json.dumps(scene) + "\n")
        partial.replace(path)
    return path
