"""`vtt-engine`: fit, generate and estimate from the command line, without Django or a database.

    vtt-engine fit --vocabulary VOCAB.json --scenes TRAIN.jsonl --out STATS [--workers N]
    vtt-engine generate --stats STATS --scenes TEST.jsonl --seed N [--epsilon E] [--min-population M]
                        [--max-questions K] [--max-attributes A] [--prior-strength S] [--consistency-weight L]
                        [--sharp-epsilon S|none]
    vtt-engine estimate --stats STATS --history HISTORY.json --question QUESTION.json --width W --height H

Bad input ends with a one-line message naming the file and the place, and exit status 2; never a
traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

from engine.core.drivers import estimate_after, run_automatic, stream_seed
from engine.core.settings import EngineSettings
from engine.core.shards import fit_parallel
from engine.core.statistics import fit
from engine.core.statistics_file import load, save
from kernel.errors import EngineError
from kernel.scene import Scene, iter_scene_lines
from kernel.vocabulary import load_vocabulary

EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_BAD_INPUT, f"vtt-engine: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="vtt-engine", description="The visual Turing test query engine.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    fit_cmd = commands.add_parser("fit", help="fit statistics from annotated training scenes")
    fit_cmd.add_argument(
        "--vocabulary", required=True, type=Path, help="vocabulary JSON (docs/method.md section 9)"
    )
    fit_cmd.add_argument("--scenes", required=True, type=Path, help="training scene graphs, JSON Lines")
    fit_cmd.add_argument("--out", required=True, type=Path, help="statistics file to write")
    fit_cmd.add_argument(
        "--min-overlap",
        type=float,
        default=0.0,
        help="fraction of a box that must lie in a region for it to count as visible there",
    )
    fit_cmd.add_argument(
        "--workers",
        type=int,
        default=1,
        help="fit byte ranges of the scene file in this many processes and merge them (same result)",
    )

    generate = commands.add_parser("generate", help="generate question streams on annotated test scenes")
    generate.add_argument("--stats", required=True, type=Path)
    generate.add_argument("--scenes", required=True, type=Path, help="test scene graphs, JSON Lines")
    generate.add_argument("--seed", required=True, type=int)
    _add_settings(generate)

    estimate = commands.add_parser("estimate", help="estimate P(yes) for a question after a history")
    estimate.add_argument("--stats", required=True, type=Path)
    estimate.add_argument("--history", required=True, type=Path, help="JSON list of {question, answer}")
    estimate.add_argument("--question", required=True, type=Path, help="JSON question (structured form)")
    estimate.add_argument("--width", required=True, type=float, help="width of the image in pixels")
    estimate.add_argument("--height", required=True, type=float, help="height of the image in pixels")
    return parser


def _add_settings(parser: argparse.ArgumentParser) -> None:
    defaults = EngineSettings()
    parser.add_argument("--epsilon", type=float, default=defaults.epsilon)
    parser.add_argument("--min-population", type=int, default=defaults.min_population)
    parser.add_argument("--max-questions", type=int, default=defaults.max_questions)
    parser.add_argument("--max-attributes", type=int, default=defaults.max_attributes)
    parser.add_argument("--prior-strength", type=float, default=defaults.prior_strength)
    parser.add_argument(
        "--weighted-strength",
        type=float,
        default=defaults.weighted_strength,
        help="the prior strength of the last level of an instantiation or attribute estimate, the one "
        "weighted by consistency (a relationship question's has --relationship-strength)",
    )
    parser.add_argument(
        "--relationship-strength",
        type=float,
        default=defaults.relationship_strength,
        help="the same, in a relationship question's estimate (its level of images that give both labels' "
        "defining answers)",
    )
    parser.add_argument("--consistency-weight", type=float, default=defaults.consistency_weight)
    parser.add_argument(
        "--min-evidence",
        type=float,
        default=defaults.min_evidence,
        help="what the consistency-weighted level of a uniqueness candidate must weigh for it to be asked",
    )
    parser.add_argument(
        "--sharp-epsilon",
        type=_optional_float,
        default=defaults.sharp_epsilon,
        help="prefer candidates with abs(p - 0.5) at most this; 'none' turns it off",
    )


def _optional_float(text: str) -> float | None:
    if text.lower() == "none":
        return None
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number or 'none': {text!r}") from None


def settings_from(args: argparse.Namespace) -> EngineSettings:
    """The engine settings given on the command line (the defaults for those not given)."""
    return EngineSettings(
        epsilon=args.epsilon,
        min_population=args.min_population,
        max_questions=args.max_questions,
        max_attributes=args.max_attributes,
        prior_strength=args.prior_strength,
        weighted_strength=args.weighted_strength,
        relationship_strength=args.relationship_strength,
        consistency_weight=args.consistency_weight,
        min_evidence=args.min_evidence,
        sharp_epsilon=args.sharp_epsilon,
    )


def main(argv: Sequence[str] | None = None, stdout: TextIO | None = None) -> int:
    out = stdout or sys.stdout
    args = build_parser().parse_args(argv)
    try:
        if args.command == "fit":
            return _fit(args, out)
        if args.command == "generate":
            return _generate(args, out)
        return _estimate(args, out)
    except EngineError as exc:
        print(f"vtt-engine {args.command}: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:  # e.g. piped into `head`
        return 0


def _fit(args: argparse.Namespace, out: TextIO) -> int:
    vocabulary = load_vocabulary(args.vocabulary)
    started = time.perf_counter()
    extra: dict[str, Any] = {}
    if args.workers > 1:
        with _open(args.scenes):
            pass  # a missing file is reported here, before any worker starts
        stats, extra = fit_parallel(args.vocabulary, args.scenes, args.workers, args.min_overlap)
    else:
        with _open(args.scenes) as lines:
            stats = fit(vocabulary, iter_scene_lines(lines, vocabulary, str(args.scenes)), args.min_overlap)
    save(stats, args.out)
    summary = {
        "out": str(args.out),
        "images": stats.n_images,
        "objects": stats.n_objects,
        "pairs": stats.meta["pairs"],
        "seconds": round(time.perf_counter() - started, 3),
        "workers": args.workers,
        **extra,
    }
    print(json.dumps(summary), file=out)
    return 0


def _generate(args: argparse.Namespace, out: TextIO) -> int:
    settings = settings_from(args)
    stats = load(args.stats)
    with _open(args.scenes) as lines:
        # Validate every scene before printing anything, so a bad line cannot leave half an output.
        scenes: list[Scene] = list(iter_scene_lines(lines, stats.vocabulary, str(args.scenes)))
    for index, scene in enumerate(scenes):
        for step in run_automatic(stats, scene, settings, stream_seed(args.seed, index)):
            print(json.dumps(step.to_json(stats, scene.image, scene.width, scene.height)), file=out)
    return 0


def _estimate(args: argparse.Namespace, out: TextIO) -> int:
    stats = load(args.stats)
    history, question = _read_json(args.history), _read_json(args.question)
    _, estimate, _ = estimate_after(stats, history, question, args.width, args.height, str(args.question))
    print(json.dumps({"p": estimate.p, "population": estimate.population}), file=out)
    return 0


def _read_json(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise EngineError(f"cannot read: {exc.strerror}", where=str(path)) from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise EngineError(f"not valid JSON ({exc.msg})", where=f"{path}:{exc.lineno}:{exc.colno}") from None


class _open:
    """A text file opened for reading, with an EngineError naming it when that fails."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.handle: TextIO | None = None

    def __enter__(self) -> Iterator[str]:
        try:
            self.handle = self.path.open(encoding="utf-8")
        except OSError as exc:
            raise EngineError(f"cannot read: {exc.strerror}", where=str(self.path)) from None
        return iter(self.handle)

    def __exit__(self, *exc_info: object) -> None:
        if self.handle is not None:
            self.handle.close()


if __name__ == "__main__":
    raise SystemExit(main())
