"""Quality of the tests the engine builds, on held-out annotated scenes (VTT.md section 8).

    python -m benchmarks.engine_quality [--train 2591] [--test 200] [--seed 7]

Fits on synthetic training scenes, runs the automatic driver on held-out ones and reports the mean
stream length, the yes rate, and the accuracy of the "blind" predictor that sees only the history and
the training statistics: it answers yes exactly when the engine's p > 0.5. The point of the test is
that this predictor is right about half the time. "Expected if calibrated" is mean(max(p, 1 - p)),
what the blind predictor would score if every p were exactly right.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import defaultdict

import numpy as np

from benchmarks.report import ROOT, commit, machine, write_section
from benchmarks.scenes import scene_file
from engine.core.drivers import run_automatic, stream_seed
from engine.core.proposer import EngineSettings
from engine.core.questions import Answer
from engine.core.scene import iter_scene_lines
from engine.core.statistics import fit
from engine.core.vocabulary import load_vocabulary

VOCABULARY = ROOT / "annotations" / "vocabularies" / "urban-street.json"


def wilson(successes: int, total: int, z: float = 1.96) -> tuple[float, float]:
    if total == 0:
        return (math.nan, math.nan)
    phat = successes / total
    centre = (phat + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(phat * (1 - phat) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return centre - half, centre + half


def evaluate(train: int, test: int, seed: int, settings: EngineSettings) -> dict:
    vocabulary = load_vocabulary(VOCABULARY)
    with scene_file(train, seed=1).open() as lines:
        stats = fit(vocabulary, iter_scene_lines(lines, vocabulary))
    with scene_file(test, seed=2).open() as lines:
        scenes = list(iter_scene_lines(lines, vocabulary))[:test]
    lengths, ambiguous = [], 0
    per_kind: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    for index, scene in enumerate(scenes):
        steps = run_automatic(stats, scene, settings, stream_seed(seed, index))
        answered = [s for s in steps if s.answer != Answer.AMBIGUOUS]
        ambiguous += len(steps) - len(answered)
        lengths.append(len(answered))
        for step in answered:
            per_kind[str(step.question.kind)].append((step.estimate.p, step.answer == Answer.YES))
    return {
        "train": train,
        "test": len(scenes),
        "lengths": lengths,
        "ambiguous": ambiguous,
        "per_kind": per_kind,
    }


def summarise(pairs: list[tuple[float, bool]]) -> dict:
    p = np.array([x for x, _ in pairs])
    yes = np.array([y for _, y in pairs])
    blind = int(((p > 0.5) == yes).sum())
    low, high = wilson(blind, len(pairs))
    return {
        "n": len(pairs),
        "yes_rate": float(yes.mean()),
        "blind": blind / len(pairs),
        "blind_low": low,
        "blind_high": high,
        "calibrated": float(np.maximum(p, 1 - p).mean()),
        "mean_rho": float(np.abs(p - 0.5).mean()),
    }


def render(result: dict, settings: EngineSettings, command: str) -> str:
    everything = [pair for pairs in result["per_kind"].values() for pair in pairs]
    overall = summarise(everything)
    lengths = np.array(result["lengths"])
    rows = [("all", overall)] + [
        (kind, summarise(pairs)) for kind, pairs in sorted(result["per_kind"].items())
    ]
    table = "\n".join(
        f"| {name} | {s['n']} | {s['yes_rate']:.3f} | **{s['blind']:.3f}** [{s['blind_low']:.3f}, {s['blind_high']:.3f}] "
        f"| {s['calibrated']:.3f} | {s['mean_rho']:.3f} |"
        for name, s in rows
    )
    return f"""## Quality of the generated tests

Command: `{command}` (commit {commit()}, {machine()}).

Trained on {result["train"]:,} synthetic street scenes (seed 1), tested on {result["test"]} held-out scenes
(seed 2) with the automatic driver; settings epsilon {settings.epsilon}, minimum population
{settings.min_population}, at most {settings.max_attributes} attributes, at most {settings.max_questions} answered
questions.

- Mean stream length: **{lengths.mean():.1f} answered questions** (median {np.median(lengths):.0f}, min {lengths.min()},
  max {lengths.max()}; {int((lengths >= settings.max_questions).sum())} streams reached the maximum). Target: at least 25.
- Questions rejected as ambiguous by the oracle: {result["ambiguous"]} ({result["ambiguous"] / max(1, result["ambiguous"] + len(everything)):.1%} of proposals).
- Yes rate: {overall["yes_rate"]:.3f}.
- Blind predictor accuracy: **{overall["blind"]:.3f}** (95% Wilson interval [{overall["blind_low"]:.3f}, {overall["blind_high"]:.3f}]). Target: at most 0.58.
  For comparison (VTT.md section 8): "yes" to every yes/no question of VQA v1 scores 0.708, a question-only LSTM 0.782.

| question kind | answered | yes rate | blind accuracy [95% CI] | expected if calibrated | mean abs(p - 0.5) |
|---|---|---|---|---|---|
{table}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--train", type=int, default=2591)
    parser.add_argument("--test", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    settings = EngineSettings()
    result = evaluate(args.train, args.test, args.seed, settings)
    overall = summarise([pair for pairs in result["per_kind"].values() for pair in pairs])
    print(json.dumps({"mean_length": float(np.mean(result["lengths"])), **overall}))
    command = "python -m benchmarks.engine_quality " + " ".join(sys.argv[1:])
    write_section("engine-quality", render(result, settings, command.strip()))


if __name__ == "__main__":
    main()
