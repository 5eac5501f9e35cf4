"""Fitting a million images across workers, and proposing on the result.

    python -m benchmarks.engine_scale [--images 1000000] [--workers 2] [--test-scenes 20]

Synthetic street scenes (`demo.synthetic`, seed 1) are generated once and cached in benchmarks/out/
(generation is not part of the figures). `vtt-engine fit --workers N` runs in a child process: N worker
processes fit byte ranges of the file in chunks of 100,000 images and save their shards; the
coordinator merges them. Reported: wall time of the whole command, peak resident memory of each worker
and of the coordinator. Then the statistics are loaded and full streams are run on held-out scenes
(seed 2) answered by the oracle, timing every `propose()` as benchmarks/engine_speed.py does.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

from benchmarks.engine_speed import VOCABULARY, time_proposals
from benchmarks.report import OUT, commit, machine, write_section
from benchmarks.scenes import scene_file
from engine.core.statistics_file import load


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--images", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--test-scenes", type=int, default=20)
    args = parser.parse_args()
    started = time.perf_counter()
    train = scene_file(args.images, seed=1)
    generation = time.perf_counter() - started
    out = OUT / f"stats-{args.images}-w{args.workers}.npz"
    started = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "engine",
            "fit",
            "--vocabulary",
            str(VOCABULARY),
            "--scenes",
            str(train),
            "--out",
            str(out),
            "--workers",
            str(args.workers),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    fit_seconds = time.perf_counter() - started
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    started = time.perf_counter()
    stats = load(out)
    load_seconds = time.perf_counter() - started
    timing = time_proposals(stats, scene_file(max(args.test_scenes, 20), seed=2), args.test_scenes)
    result = {
        "images": stats.n_images,
        "objects": stats.n_objects,
        "fit_s": fit_seconds,
        "generation_s": generation,
        "file_gb": train.stat().st_size / 2**30,
        "stats_mb": out.stat().st_size / 2**20,
        "load_s": load_seconds,
        **summary,
        **timing,
    }
    print(json.dumps(result), flush=True)
    command = "python -m benchmarks.engine_scale " + " ".join(sys.argv[1:])
    peaks = ", ".join(f"{p:,.0f} MB" for p in summary["worker_peak_mb"])
    body = f"""## Fitting at scale, across workers

Command: `{command.strip()}` (commit {commit()}, {machine()}).

{result["images"]:,} synthetic street scenes ({result["objects"]:,} objects; {result["file_gb"]:.1f} GB of JSON Lines,
generated beforehand in {generation:.0f} s and cached, not part of the figures) fitted by
`vtt-engine fit --workers {args.workers}`: each worker parses and fits one byte range of the file in chunks of
100,000 images and saves its shard; the coordinator merges the shards (the merge is exact:
`tests/engine/core/test_shards.py` compares merged and single-process fits array by array).

| what | measured | target |
|---|---|---|
| fit wall time, {args.workers} workers (JSON parsing and validation included) | **{fit_seconds:.0f} s** | under 300 s |
| CPU time per worker (user + system; the machine was shared, so wall time includes waiting) | {", ".join(f"{c:.0f} s" for c in summary["worker_cpu_seconds"])} | |
| peak resident memory per worker | **{peaks}** | under 2 GB |
| peak resident memory of the coordinator (merge and write) | {summary["coordinator_peak_mb"]:,.0f} MB | |
| statistics file, load time | {result["stats_mb"]:,.0f} MB, {load_seconds:.1f} s | |
| proposals timed ({args.test_scenes} full streams on held-out scenes) | {timing["proposals"]} | |
| propose median | **{timing["median_ms"]:.1f} ms** | under 20 ms |
| propose median, CPU time of the process (equal to the wall time on a quiet machine) | {timing["cpu_median_ms"]:.1f} ms | |
| propose p95 / max | {timing["p95_ms"]:.0f} ms / {timing["max_ms"]:.0f} ms | |
| record median (instantiation answer) | {timing["record_median_ms"]:.1f} ms | |
| mean stream length | {timing["mean_length"]:.1f} | |
"""
    write_section("engine-scale", body)


if __name__ == "__main__":
    main()
