"""Quality of the tests the engine builds, audited on held-out annotated scenes (docs/method.md section 8).

    python -m benchmarks.engine_quality [--vocabulary street|parking] [--train 2591] [--test 200]
                                        [--train-streams 1000] [--seed 7]

Fits on synthetic training scenes, runs the automatic driver on held-out ones and runs the audit of
`vtt-engine audit` (engine.audit): a blind guesser (scikit-learn gradient boosting on features of the
question, the history and the engine's p, never the image) trained on cross-fitted streams generated
on the training scenes, and the engine-p guesser that answers yes exactly when p > 0.5. Reports the
mean stream length, both guessers' accuracy overall and per question kind with 95% Wilson intervals,
and the reliability of the engine's p (expected calibration error, 10 equal-width bins). The report
and the reliability diagram are written to docs/audit/<vocabulary>/.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from benchmarks.report import OUT, ROOT, commit, machine, write_section
from benchmarks.scenes import scene_file
from engine.audit.run import audit_streams, held_out_streams, training_streams, write_report
from engine.core.proposer import EngineSettings
from engine.core.scene import iter_scene_lines
from engine.core.statistics import fit
from engine.core.vocabulary import load_vocabulary

VOCABULARIES = {
    "street": (
        ROOT / "annotations" / "vocabularies" / "urban-street.json",
        "synthetic street scenes (demo.synthetic)",
    ),
    "parking": (ROOT / "demo" / "parking" / "parking-lot.json", "synthetic parking lots (demo.parking)"),
}
TARGETS = {"engine_p": 0.54, "engine_p_kind": 0.57, "guesser": 0.56, "ece": 0.03, "length": 30.0}


def parking_file(count: int, seed: int) -> Path:
    from demo.parking.scenes import generate_scenes

    path = OUT / f"parking-{count}-seed{seed}.jsonl"
    if not path.exists():
        OUT.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".partial")
        with partial.open("w") as handle:
            for scene in generate_scenes(count, seed=seed):
                handle.write(json.dumps(scene) + "\n")
        partial.replace(path)
    return path


def evaluate(
    name: str, train: int, test: int, train_streams: int, seed: int, settings: EngineSettings
) -> dict:
    vocabulary = load_vocabulary(VOCABULARIES[name][0])
    files = scene_file if name == "street" else parking_file
    with files(train, seed=1).open() as lines:
        train_scenes = list(iter_scene_lines(lines, vocabulary))
    with files(test, seed=2).open() as lines:
        test_scenes = list(iter_scene_lines(lines, vocabulary))[:test]
    started = time.perf_counter()
    learn = training_streams(vocabulary, train_scenes, settings, seed, folds=5, limit=train_streams)
    stats = fit(vocabulary, train_scenes)
    held_out = held_out_streams(stats, test_scenes, settings, seed)
    report = audit_streams(vocabulary, learn, held_out, seed)
    report["training_images"], report["held_out_images"] = len(train_scenes), len(test_scenes)
    report["seconds"] = round(time.perf_counter() - started, 1)
    lengths = [sum(1 for s in steps if str(s.answer) != "ambiguous") for steps in held_out]
    report["lengths"] = {
        "min": min(lengths),
        "max": max(lengths),
        "at_max": sum(n >= settings.max_questions for n in lengths),
    }
    report["rejected"] = sum(len(steps) for steps in held_out) - report["held_out_questions"]
    write_report(report, ROOT / "docs" / "audit" / name)
    return report


def _cell(result: dict) -> str:
    return f"**{result['accuracy']:.3f}** [{result['low']:.3f}, {result['high']:.3f}]"


def _verdict(value: float, target: float, at_most: bool = True) -> str:
    return "met" if (value <= target if at_most else value >= target) else "**not met**"


def render(name: str, report: dict, settings: EngineSettings, command: str) -> str:
    ece = report["reliability"]["expected_calibration_error"]
    worst_kind = max(report["per_kind"].items(), key=lambda kv: kv[1]["engine_p"]["accuracy"])
    rows = "\n".join(
        f"| {kind} | {k['questions']} | {k['yes_rate']:.3f} | {_cell(k['engine_p'])} | {_cell(k['guesser'])} | "
        f"{k['expected_calibration_error']:.3f} |"
        for kind, k in sorted(report["per_kind"].items())
    )
    bins = "\n".join(
        f"| [{b['bin'][0]:.1f}, {b['bin'][1]:.1f}) | {b['n']} | {b['mean_p']:.3f} | {b['observed']:.3f} [{b['low']:.3f}, {b['high']:.3f}] |"
        for b in report["reliability"]["bins"]
    )
    return f"""## Quality of the generated tests: {VOCABULARIES[name][1]}

Command: `{command}` (commit {commit()}, {machine()}); {report["seconds"]:.0f} s.

Trained on {report["training_images"]:,} {VOCABULARIES[name][1].split(" (")[0]} (seed 1), tested on
{report["held_out_images"]} held-out scenes (seed 2) with the automatic driver; settings epsilon {settings.epsilon},
sharp epsilon {settings.sharp_epsilon}, prior strength {settings.prior_strength}, consistency weight {settings.consistency_weight},
minimum population {settings.min_population}, at most {settings.max_attributes} attributes, at most
{settings.max_questions} answered questions. The learned guesser ({report["model"]}, scikit-learn) was trained
on {report["training_streams"]} cross-fitted streams ({report["training_questions"]:,} answered questions) on the
training scenes. Report and reliability diagram: `docs/audit/{name}/audit.json`, `docs/audit/{name}/reliability.svg`.

| target | measured | target | |
|---|---|---|---|
| mean stream length (answered questions) | **{report["mean_stream_length"]:.1f}** (min {report["lengths"]["min"]}, max {report["lengths"]["max"]}, {report["lengths"]["at_max"]} at the maximum) | at least {TARGETS["length"]:.0f} | {_verdict(report["mean_stream_length"], TARGETS["length"], at_most=False)} |
| engine-p guesser accuracy, overall | {_cell(report["engine_p"])} | at most {TARGETS["engine_p"]} | {_verdict(report["engine_p"]["accuracy"], TARGETS["engine_p"])} |
| engine-p guesser accuracy, worst kind ({worst_kind[0]}) | {_cell(worst_kind[1]["engine_p"])} | at most {TARGETS["engine_p_kind"]} | {_verdict(worst_kind[1]["engine_p"]["accuracy"], TARGETS["engine_p_kind"])} |
| learned guesser accuracy | {_cell(report["guesser"])} | at most {TARGETS["guesser"]} | {_verdict(report["guesser"]["accuracy"], TARGETS["guesser"])} |
| expected calibration error of the engine's p | **{ece:.3f}** | at most {TARGETS["ece"]} | {_verdict(ece, TARGETS["ece"])} |

Held-out answered questions: {report["held_out_questions"]:,}; rejected as ambiguous by the oracle: {report["rejected"]}; yes rate {report["yes_rate"]:.3f}.

| question kind | answered | yes rate | engine-p guesser [95% CI] | learned guesser [95% CI] | ECE |
|---|---|---|---|---|---|
{rows}

Reliability of the engine's p (10 equal-width bins; empty bins left out):

| p bin | questions | mean p | observed yes rate [95% CI] |
|---|---|---|---|
{bins}
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--vocabulary", choices=sorted(VOCABULARIES), default="street")
    parser.add_argument("--train", type=int, default=2591)
    parser.add_argument("--test", type=int, default=200)
    parser.add_argument("--train-streams", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    settings = EngineSettings()
    report = evaluate(args.vocabulary, args.train, args.test, args.train_streams, args.seed, settings)
    print(
        json.dumps(
            {k: report[k] for k in ("mean_stream_length", "engine_p", "guesser")}
            | {"ece": report["reliability"]["expected_calibration_error"]}
        )
    )
    command = "python -m benchmarks.engine_quality " + " ".join(sys.argv[1:])
    section = "engine-quality" if args.vocabulary == "street" else f"engine-quality-{args.vocabulary}"
    write_section(section, render(args.vocabulary, report, settings, command.strip()))


if __name__ == "__main__":
    main()
