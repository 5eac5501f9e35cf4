"""Engine speed and scale: fit time, file size, memory, and time to propose one question.

    python -m benchmarks.engine_speed [--sizes 2591 100000] [--test-scenes 20]

For each training-set size: synthetic street scenes are generated (cached), `vtt-engine fit` runs in a
child process (wall time and peak memory of that process), the file is loaded, and full streams are
run on held-out scenes with the oracle answering; every `propose()` call is timed, including the last
one of each stream, which finds nothing left and is the most expensive.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

import numpy as np

from benchmarks.report import OUT, ROOT, commit, machine, write_section
from benchmarks.scenes import scene_file
from engine.core.drivers import stream_seed
from engine.core.oracle import answer
from engine.core.proposer import Stream
from engine.core.settings import EngineSettings
from engine.core.statistics_file import ARRAY_FIELDS, load
from kernel.prepared import Binding, PreparedScene
from kernel.questions import Answer, InstantiationQuestion
from kernel.scene import iter_scene_lines

VOCABULARY = ROOT / "annotations" / "vocabularies" / "urban-street.json"
TARGETS = {2591: 20.0, 100000: 500.0}  # median milliseconds per proposal


def fit_in_child(scenes, out) -> tuple[float, float]:
    """(seconds, peak MB) of `vtt-engine fit` in its own process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    started = time.perf_counter()
    subprocess.run(
        [
            sys.executable,
            "-m",
            "engine",
            "fit",
            "--vocabulary",
            str(VOCABULARY),
            "--scenes",
            str(scenes),
            "--out",
            str(out),
        ],
        check=True,
        capture_output=True,
    )
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return seconds, max(peak, before) / 1024


def time_proposals(stats, test_path, count: int) -> dict:
    times, cpu_times, recording, lengths = [], [], [], []
    settings = EngineSettings()
    with test_path.open() as lines:
        scenes = list(iter_scene_lines(lines, stats.vocabulary))[:count]
    for index, scene in enumerate(scenes):
        prepared = PreparedScene.build(scene, stats.vocabulary, stats.min_overlap)
        stream, binding = Stream(stats, settings, stream_seed(1, index)), Binding()
        while True:
            # Wall time, and the process's CPU time too: on a shared machine the wall time includes
            # waiting for a core, the CPU time does not.
            started, cpu_started = time.perf_counter(), time.process_time()
            proposal = stream.propose()
            times.append(time.perf_counter() - started)
            cpu_times.append(time.process_time() - cpu_started)
            if proposal is None:
                break
            given, singled_out = answer(prepared, binding, proposal.question)
            started = time.perf_counter()
            label = stream.record(proposal.question, given)
            # Only instantiation answers touch the training set (one pass over its objects); the
            # others cost microseconds and would hide that in a median.
            if isinstance(proposal.question, InstantiationQuestion) and given != Answer.AMBIGUOUS:
                recording.append(time.perf_counter() - started)
            if label is not None:
                # A label is made only by a yes to a uniqueness question, which singles out its object.
                assert singled_out is not None
                binding.bind(label, singled_out)
        lengths.append(stream.story.answered)
    ms = np.array(times) * 1000
    return {
        "proposals": len(ms),
        "median_ms": float(np.median(ms)),
        "cpu_median_ms": float(np.median(cpu_times) * 1000),
        "p95_ms": float(np.percentile(ms, 95)),
        "max_ms": float(ms.max()),
        "record_median_ms": float(np.median(recording) * 1000),
        "mean_length": float(np.mean(lengths)),
    }


def measure(size: int, test_scenes: int) -> dict:
    train = scene_file(size, seed=1)
    test = scene_file(max(test_scenes, 20), seed=2)
    out = OUT / f"stats-{size}.npz"
    fit_seconds, fit_peak_mb = fit_in_child(train, out)
    started = time.perf_counter()
    stats = load(out)
    load_seconds = time.perf_counter() - started
    arrays_mb = sum(getattr(stats, name).nbytes for name in ARRAY_FIELDS) / 2**20
    result = {
        "images": size,
        "objects": stats.n_objects,
        "fit_s": fit_seconds,
        "fit_peak_mb": fit_peak_mb,
        "file_mb": out.stat().st_size / 2**20,
        "load_s": load_seconds,
        "arrays_mb": arrays_mb,
        **time_proposals(stats, test, test_scenes),
    }
    print(json.dumps(result), flush=True)
    return result


def render(results: list[dict], command: str) -> str:
    rows = "\n".join(
        f"| {r['images']:,} | {r['objects']:,} | {r['fit_s']:.1f} s | {r['fit_peak_mb']:,.0f} MB | "
        f"{r['file_mb']:.1f} MB | {r['load_s'] * 1000:.0f} ms | {r['arrays_mb']:.0f} MB | {r['proposals']} | "
        f"**{r['median_ms']:.1f} ms** (target {TARGETS.get(r['images'], float('nan')):g}) | {r['p95_ms']:.1f} ms | "
        f"{r['max_ms']:.0f} ms | {r['record_median_ms']:.1f} ms |"
        for r in results
    )
    return f"""## Query engine speed

Command: `{command}` (commit {commit()}, {machine()}).

Synthetic street scenes from `demo.synthetic` (training seed 1, held-out seed 2). Fit is
`vtt-engine fit` in a child process, JSON parsing and validation included. "Propose" times every call
of `Stream.propose()` over full streams on held-out scenes answered by the oracle, including the last
call of each stream (which finds nothing unpredictable left and examines every candidate level).
"Record" is the time to condition the training state on one answer to an existence or uniqueness
question (a pass over the training objects; other answers cost microseconds).

| training images | objects | fit | fit peak memory | file | load | arrays in memory | proposals timed | propose median | propose p95 | propose max | record median (instantiation) |
|---|---|---|---|---|---|---|---|---|---|---|---|
{rows}

Targets: fitting 100,000 images under 60 s; proposing in a median of at most 20 ms at 2,591 images and
500 ms at 100,000.
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[2591, 100000])
    parser.add_argument("--test-scenes", type=int, default=20)
    args = parser.parse_args()
    results = [measure(size, args.test_scenes) for size in args.sizes]
    command = "python -m benchmarks.engine_speed " + " ".join(sys.argv[1:])
    write_section("engine-speed", render(results, command.strip()))


if __name__ == "__main__":
    main()
