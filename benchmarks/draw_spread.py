"""How far a kind's held-out figures move from one draw to the next, the training set's draw included
(issue 19, decision 0060), and the verdict on each kind by issue 34's first ruling.

    python -m benchmarks.draw_spread [--vocabulary street|parking|marina] [--draws 8] [--train 2591]
        [--test 1000] [--jobs 2] [--write]
    python -m benchmarks.draw_spread --vocabulary street --from docs/audit/draws/street.json [--write]

Decision 0058's yardstick (`engine.audit.run.if_calibrated`) is the spread of a kind's calibration gap
and engine-p guesser when every p is exactly right given the history. The engine's p is not: it is
read off one finite training set, and that set's chance errors are shared by every held-out stream (a
rate the training set puts a little too near one half is asked about, and missed, in every stream). The
published figures come from one training set, so they carry that error whole, and the yardstick leaves
it out.

Draw k fits the statistics on `--train` scenes of a seed of its own and runs the automatic driver on
`--test` held-out scenes of another; no two draws share a scene, so the draws are independent. Draw 0
is the published one (training seed 1, held-out seed 2, as `benchmarks.engine_quality`). Per kind and
draw: the signed gap (mean p - yes rate) and its z against the yardstick. Across draws, per kind: the
mean gap with its standard error, the spread of the gap from draw to draw against the spread the
yardstick expects, and what is left of it for the training set's draw. The same for the engine-p
guesser, as its accuracy less a right p's expected accuracy.

The verdicts are `engine.audit.verdicts.judge_draws`: a kind is judged on its mean over the draws (at
least 100 answered questions on every draw), never on one draw. With `--write` the draws' figures are
kept in docs/audit/draws/<vocabulary>.json, so that the section can be rendered again (`--from`)
without the half hour of fitting.
"""

from __future__ import annotations

import json
import math
import sys
import time
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from benchmarks.engine_quality import VOCABULARIES, held_out_arguments, load_scenes
from benchmarks.report import ROOT, commit, machine, publish
from engine.audit.run import held_out_streams, if_calibrated
from engine.audit.verdicts import DRAWS, JUDGED, TARGETS, DrawsVerdict, judge_draws
from engine.core.settings import EngineSettings
from engine.core.statistics import fit
from kernel.questions import Answer
from kernel.vocabulary import load_vocabulary

STREAM_SEED = 7  # the seed of `benchmarks.engine_quality`'s held-out streams
KEPT = ROOT / "docs" / "audit" / "draws"  # the draws' figures, one JSON file per vocabulary


def seeds(draw: int) -> tuple[int, int]:
    """The (training, held-out) scene seeds of draw `draw`: the published pair first, then pairs no
    other draw uses."""
    if draw == 0:
        return 1, 2
    return 10 + 2 * draw, 11 + 2 * draw


@dataclass(frozen=True)
class KindOnDraw:
    """One kind's answered held-out questions on one draw."""

    questions: int
    gap: float  # mean p - yes rate
    engine_p: float  # the engine-p guesser's accuracy
    engine_p_excess: float  # the engine-p guesser's accuracy less a right p's expected accuracy
    sd: float  # the yardstick's standard deviation of both

    @classmethod
    def of(cls, p: np.ndarray, yes: np.ndarray) -> KindOnDraw:
        right = if_calibrated(p)
        accuracy = float(np.mean((p > 0.5) == yes))
        return cls(len(p), float(p.mean() - yes.mean()), accuracy, accuracy - right["engine_p"], right["sd"])


OVERALL = "overall"  # the key of a draw's figures over every kind at once


def one_draw(vocabulary_name: str, draw: int, train: int, test: int) -> dict[str, KindOnDraw]:
    """Fit on the draw's training scenes and answer its held-out streams with the oracle."""
    train_seed, test_seed = seeds(draw)
    vocabulary = load_vocabulary(VOCABULARIES[vocabulary_name][0])
    stats = fit(vocabulary, load_scenes(vocabulary_name, vocabulary, train, train_seed))
    streams = held_out_streams(
        stats, load_scenes(vocabulary_name, vocabulary, test, test_seed), EngineSettings(), STREAM_SEED
    )
    answered: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    for steps in streams:
        for step in steps:
            if step.answer != Answer.AMBIGUOUS and step.estimate.p is not None:
                answered[str(step.question.kind)].append((step.estimate.p, step.answer == Answer.YES))
    every = [row for rows in answered.values() for row in rows]
    return {
        kind: KindOnDraw.of(np.array([r[0] for r in rows]), np.array([r[1] for r in rows]))
        for kind, rows in [*sorted(answered.items()), (OVERALL, every)]
    }


def kinds_of(draw: dict[str, KindOnDraw]) -> dict[str, KindOnDraw]:
    return {kind: k for kind, k in draw.items() if kind != OVERALL}


def verdict_of(draws: list[dict[str, KindOnDraw]]) -> DrawsVerdict:
    return judge_draws(
        [
            {"overall": asdict(d[OVERALL]), "kinds": {kind: asdict(k) for kind, k in kinds_of(d).items()}}
            for d in draws
        ]
    )


def keep(vocabulary: str, draws: list[dict[str, KindOnDraw]], meta: dict) -> Path:
    """Write the draws' figures, so that the section can be rendered again without refitting."""
    KEPT.mkdir(parents=True, exist_ok=True)
    path = KEPT / f"{vocabulary}.json"
    rows = [{kind: asdict(k) for kind, k in d.items()} for d in draws]
    path.write_text(json.dumps(meta | {"draws": rows}, indent=1) + "\n")
    return path


def kept(path: Path) -> tuple[dict, list[dict[str, KindOnDraw]]]:
    data = json.loads(path.read_text())
    draws = [{kind: KindOnDraw(**k) for kind, k in d.items()} for d in data.pop("draws")]
    return data, draws


@dataclass(frozen=True)
class Spread:
    """One figure of one kind across independent draws."""

    mean: float
    standard_error: float  # of the mean, from the draws' own spread
    spread: float  # standard deviation from draw to draw
    yardstick: float  # the standard deviation the yardstick expects on one draw
    training: float  # what the spread leaves beyond the yardstick: the training set's draw

    @classmethod
    def of(cls, values: list[float], sds: list[float]) -> Spread:
        spread = float(np.std(values, ddof=1))
        yardstick = math.sqrt(float(np.mean(np.square(sds))))
        return cls(
            float(np.mean(values)),
            spread / math.sqrt(len(values)),
            spread,
            yardstick,
            math.sqrt(max(0.0, spread**2 - yardstick**2)),
        )


def across(draws: list[dict[str, KindOnDraw]]) -> dict[str, dict[str, Spread]]:
    """Per kind asked on every draw: the spread of its gap and of its engine-p excess."""
    kinds = sorted(set.intersection(*(set(kinds_of(d)) for d in draws)))
    out = {}
    for kind in kinds:
        on = [d[kind] for d in draws]
        sds = [k.sd for k in on]
        out[kind] = {
            "gap": Spread.of([k.gap for k in on], sds),
            "engine_p": Spread.of([k.engine_p_excess for k in on], sds),
        }
    return out


def verdict_rows(verdict: DrawsVerdict) -> list[str]:
    rows = [
        f"| {kind} | {v.gap} | {v.engine_p.mean:.3f} ± {v.engine_p.standard_error:.3f} | "
        f"{'**' + v.wording() + '**' if v.met is False else v.wording()} |"
        for kind, v in verdict.kinds.items()
    ]
    overall = verdict.engine_p
    met = "met" if verdict.engine_p_met else f"**not met: above {TARGETS['engine_p']}**"
    rows.append(f"| every kind at once | | {overall.mean:.3f} ± {overall.standard_error:.3f} | {met} |")
    return rows


def render(
    name: str, draws: list[dict[str, KindOnDraw]], command: str, seconds: float, train: int, test: int
) -> str:
    spreads = across(draws)
    verdict = verdict_of(draws)
    pairs = ", ".join(f"{t} / {h}" for t, h in (seeds(k) for k in range(len(draws))))
    per_draw = [
        f"| {kind} | "
        + " | ".join(
            f"{d[kind].questions} · {d[kind].gap:+.3f} ({-d[kind].gap / d[kind].sd:+.1f})"
            if kind in d
            else ""
            for d in draws
        )
        + " |"
        for kind in sorted({k for d in draws for k in kinds_of(d)})
    ]
    summary = []
    for kind, s in spreads.items():
        questions = min(d[kind].questions for d in draws)
        gap, excess = s["gap"], s["engine_p"]
        summary.append(
            f"| {kind} | {questions:,} | {'yes' if verdict.kinds[kind].judged else 'no'} | "
            f"{gap.mean:+.3f} ± {gap.standard_error:.3f} | {gap.spread:.3f} | {gap.yardstick:.3f} | "
            f"{gap.training:.3f} | {excess.mean:+.3f} ± {excess.standard_error:.3f} | {excess.spread:.3f} |"
        )
    header = "| kind | " + " | ".join(f"draw {k}" for k in range(len(draws))) + " |"
    return "\n".join(
        [
            f"## Draw to draw: {name} (decisions 0060 and 0058, issue 34's first ruling)",
            "",
            f"Command: `{command}` (commit {commit()}, {machine()}); {seconds:.0f} s, the draws' own times "
            f"added up. {len(draws)} independent "
            f"draws, each fitted on {train:,} training scenes and run on {test:,} held-out scenes of its own "
            f"(training / held-out seeds: {pairs}); default settings.",
            "",
            f"**Verdict: {verdict.summary()}.** A kind is judged on its mean over the draws, with at least",
            f"{JUDGED} answered questions on every draw: |mean gap| at most {TARGETS['gap_kind']}, the engine-p",
            f"guesser's mean at most {TARGETS['engine_p_kind']} per kind and {TARGETS['engine_p']} over every",
            "kind at once. No single draw is judged.",
            "",
            "| kind | mean gap ± standard error | engine-p guesser ± standard error | verdict |",
            "|---|---|---|---|",
            *verdict_rows(verdict),
            "",
            "Per draw: answered questions · gap (mean p - yes rate) and, in brackets, its z against a right",
            "p's standard deviation (negative: p too high). Reported, not judged.",
            "",
            header,
            "|" + "---|" * (len(draws) + 1),
            *per_draw,
            "",
            "Across the draws. The gap's mean is given with its standard error from the draws' own spread.",
            "*Spread* is its standard deviation from draw to draw, *yardstick* the one decision 0058 expects",
            "on one draw, and *training draw* what the spread leaves beyond it. The engine-p guesser is",
            "given as its accuracy less a right p's expected accuracy.",
            "",
            "| kind | fewest questions on a draw | judged | mean gap | spread | yardstick | training draw | "
            "engine-p less a right p's | its spread |",
            "|---|---|---|---|---|---|---|---|---|",
            *summary,
        ]
    )


def draw_file(vocabulary: str, draw: int, train: int, test: int) -> Path:
    """Where one draw's figures are kept as soon as the draw is done, so that a run cut short (a draw of
    parking takes minutes) is taken up again with --resume instead of started over."""
    return KEPT / vocabulary / f"draw-{draw}-train{train}-test{test}.json"


def _timed_draw(vocabulary: str, draw: int, train: int, test: int) -> tuple[dict[str, KindOnDraw], float]:
    started = time.perf_counter()
    return one_draw(vocabulary, draw, train, test), time.perf_counter() - started


def run_draws(
    vocabulary: str,
    draws: int,
    train: int,
    test: int,
    jobs: int,
    resume: bool = False,
    keep_each: bool = False,
) -> tuple[list[dict[str, KindOnDraw]], float]:
    """Every draw's figures (each kept in its own file as it is done with `keep_each`, and read back with
    `resume`), and the draws' own seconds added up."""
    done: dict[int, dict[str, KindOnDraw]] = {}
    seconds = 0.0
    if resume:
        for k in range(draws):
            path = draw_file(vocabulary, k, train, test)
            if path.exists():
                kept_draw = json.loads(path.read_text())
                done[k] = {kind: KindOnDraw(**f) for kind, f in kept_draw["figures"].items()}
                seconds += kept_draw["seconds"]
    todo = [k for k in range(draws) if k not in done]
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(_timed_draw, vocabulary, k, train, test): k for k in todo}
        for future in as_completed(futures):
            k = futures[future]
            figures, took = future.result()
            done[k], seconds = figures, seconds + took
            if not keep_each:
                continue
            path = draw_file(vocabulary, k, train, test)
            path.parent.mkdir(parents=True, exist_ok=True)
            record = {
                "draw": k,
                "seeds": list(seeds(k)),
                "commit": commit(),
                "seconds": round(took),
                "figures": {kind: asdict(f) for kind, f in figures.items()},
            }
            path.write_text(json.dumps(record, indent=1) + "\n")
    return [done[k] for k in range(draws)], seconds


def main() -> None:
    parser = held_out_arguments(__doc__, "parking", 1000)
    parser.add_argument("--draws", type=int, default=DRAWS)
    parser.add_argument("--jobs", type=int, default=2, help="draws run at once, one process each")
    parser.add_argument(
        "--from", dest="source", type=Path, help="render the draws kept by an earlier --write run"
    )
    parser.add_argument(
        "--resume", action="store_true", help="take up a run cut short: read the draws it kept, run the rest"
    )
    args = parser.parse_args()
    if args.draws < 2:
        parser.error("--draws must be at least 2: a spread needs two draws")
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    if args.source is not None:
        try:
            meta, draws = kept(args.source)
        except (OSError, ValueError, TypeError, KeyError) as exc:
            parser.error(f"cannot read the kept draws in {args.source}: {exc}")
        if meta.get("vocabulary") != args.vocabulary:
            parser.error(f"{args.source} holds the draws of {meta.get('vocabulary')}, not {args.vocabulary}")
        command, seconds = meta["command"], meta["seconds"]
        train, test = meta["train"], meta["test"]
    else:
        draws, seconds = run_draws(
            args.vocabulary, args.draws, args.train, args.test, args.jobs, args.resume, keep_each=args.write
        )
        train, test = args.train, args.test
        command = None
    publish(
        "benchmarks.draw_spread",
        f"draw-spread-{args.vocabulary}",
        lambda ran: render(args.vocabulary, draws, command or ran, seconds, train, test),
        args.write,
    )
    if args.write and args.source is None:
        ran = " ".join(
            [
                "python -m benchmarks.draw_spread",
                *(a for a in sys.argv[1:] if a not in ("--write", "--resume")),
            ]
        )
        keep(
            args.vocabulary,
            draws,
            {
                "vocabulary": args.vocabulary,
                "command": ran,
                "seconds": round(seconds),
                "train": train,
                "test": test,
            },
        )


if __name__ == "__main__":
    main()
