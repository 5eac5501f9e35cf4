"""`vtt-engine audit`: the blind-guesser audit from the command line (no Django, no database).

    vtt-engine audit --vocabulary VOCAB.json --train TRAIN.jsonl --test TEST.jsonl --out DIR
                     [--seed N] [--folds 5] [--train-streams 1000] [--model gradient-boosting]
                     [engine settings as for generate]

Writes DIR/audit.json (the report) and DIR/reliability.svg (the reliability diagram of the engine's p)
and prints a one-line summary.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TextIO

from engine.audit.run import audit_streams, held_out_streams, training_streams, write_report
from engine.core.cli import EXIT_BAD_INPUT, _add_settings, _open, _Parser, settings_from
from engine.core.shards import merge
from engine.core.statistics import fit
from kernel.errors import EngineError
from kernel.scene import iter_scene_lines
from kernel.vocabulary import load_vocabulary


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="vtt-engine audit", description="Audit the engine with a blind guesser.")
    parser.add_argument("--vocabulary", required=True, type=Path)
    parser.add_argument("--train", required=True, type=Path, help="annotated training scenes, JSON Lines")
    parser.add_argument("--test", required=True, type=Path, help="held-out annotated scenes, JSON Lines")
    parser.add_argument("--out", required=True, type=Path, help="folder for audit.json and reliability.svg")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--folds", type=int, default=5, help="cross-fitting folds of the training scenes")
    parser.add_argument(
        "--train-streams", type=int, default=1000, help="streams generated on training scenes (at most)"
    )
    parser.add_argument(
        "--model", choices=["gradient-boosting", "logistic-regression"], default="gradient-boosting"
    )
    parser.add_argument("--min-overlap", type=float, default=0.0)
    _add_settings(parser)
    return parser


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None) -> int:
    out = stdout or sys.stdout
    args = build_parser().parse_args(argv)
    try:
        if args.folds < 2:
            raise EngineError("at least 2 folds are needed", where="--folds")
        settings = settings_from(args)
        vocabulary = load_vocabulary(args.vocabulary)
        with _open(args.train) as lines:
            train = list(iter_scene_lines(lines, vocabulary, str(args.train)))
        with _open(args.test) as lines:
            test = list(iter_scene_lines(lines, vocabulary, str(args.test)))
        started = time.perf_counter()
        train_streams = training_streams(
            vocabulary, train, settings, args.seed, args.folds, args.train_streams, args.min_overlap
        )
        stats = merge([fit(vocabulary, train, args.min_overlap)])
        test_streams = held_out_streams(stats, test, settings, args.seed)
        report = audit_streams(vocabulary, train_streams, test_streams, args.seed, args.model)
    except EngineError as exc:
        print(f"vtt-engine audit: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    report["settings"] = {
        name: getattr(settings, name)
        for name in (
            "epsilon",
            "min_population",
            "max_attributes",
            "max_questions",
            "rejection_limit",
            "prior_strength",
            "weighted_strength",
            "relationship_strength",
            "consistency_weight",
            "min_evidence",
            "sharp_epsilon",
        )
    }
    report["training_images"], report["held_out_images"] = len(train), len(test)
    report["seconds"] = round(time.perf_counter() - started, 1)
    json_path, svg_path = write_report(report, args.out)
    summary = {
        "guesser": round(report["guesser"]["accuracy"], 4),
        "engine_p": round(report["engine_p"]["accuracy"], 4),
        "ece": round(report["reliability"]["expected_calibration_error"], 4),
        "mean_stream_length": round(report["mean_stream_length"], 2),
        "report": str(json_path),
        "diagram": str(svg_path),
    }
    print(json.dumps(summary), file=out)
    return 0
