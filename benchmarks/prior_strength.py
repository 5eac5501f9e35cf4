"""How strong each level's prior should be, read off cross-fitted training streams (issue 19).

    python -m benchmarks.prior_strength [--vocabulary street|parking|marina] [--train 2591] [--streams 300]

The chain of docs/engine.md shrinks each finer level's rate r_i = y_i / n_i towards the coarser level's
estimate m = p_(i-1) with strength s: the posterior mean of a rate with a Beta prior of mean m worth s
items. The empirical-Bayes strength is the one that makes the prior as wide as the finer populations'
rates really are around m: with tau^2 their variance around m,

    s = mean(m (1 - m)) / tau^2 - 1,     tau^2 = mean((r_i - m)^2) - mean(m (1 - m) / n_i)

(the method of moments: the observed spread minus the binomial noise of a level of n_i items). The
streams are those the audit learns from (`engine.audit.run.training_streams`: each on a training scene,
with statistics fitted on the other folds), so no held-out scene is read. Printed per question kind and
level; docs/decisions/0045-region-levels.md uses the figures.
"""

from __future__ import annotations

import json
from collections import defaultdict
from typing import Literal

import numpy as np

from benchmarks.engine_quality import cross_fitted_arguments, training_scenes
from engine.audit.run import if_calibrated, training_streams
from engine.core.settings import EngineSettings
from kernel.questions import Answer, AttributeQuestion, Question, RelationshipQuestion
from kernel.scene import Scene
from kernel.vocabulary import Vocabulary

NAMES = {
    "attribute": ("pooled", "facts", "region", "found", "found weighted"),
    "relationship": ("pooled", "facts", "region", "found weighted"),
    "instantiation": ("pooled", "weighted"),
}


def moments(streams: list, settings: EngineSettings) -> dict[tuple[str, str], dict[str, float]]:
    gathered: dict[tuple[str, str], list[tuple[float, float, float]]] = defaultdict(list)
    for steps in streams:
        for step in steps:
            if step.answer == Answer.AMBIGUOUS or not step.estimate.levels:
                continue
            question = step.question
            group = _group(question)
            levels = step.estimate.levels
            m = levels[0][0] / levels[0][1]
            for i, ((y, n), s) in enumerate(
                zip(levels[1:], _strengths(settings, question, len(levels) - 1), strict=True), start=1
            ):
                if n >= 1:
                    gathered[(group, NAMES[group][i])].append((y / n, m, n))
                m = (y + s * m) / (n + s)
    out = {}
    for key, rows in gathered.items():
        r, m, n = (np.array(column) for column in zip(*rows, strict=True))
        spread = float(np.mean((r - m) ** 2))
        noise = float(np.mean(m * (1 - m) / n))
        tau2 = spread - noise
        out[key] = {
            "questions": len(rows),
            "median_n": float(np.median(n)),
            "tau2": tau2,
            "strength": float(np.mean(m * (1 - m)) / tau2 - 1) if tau2 > 0 else float("inf"),
        }
    return out


STRENGTHS = (0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 40.0, 100.0, 400.0, float("inf"))


def chained(levels: tuple[tuple[float, float], ...], strengths: list[float]) -> float:
    """`kernel.estimates.chain` with a strength per finer level (inf: the level is ignored)."""
    p = levels[0][0] / levels[0][1]
    for (y, n), s in zip(levels[1:], strengths, strict=True):
        if s != float("inf"):
            p = (y + s * p) / (n + s)
    return p


def by_strength(streams: list, settings: EngineSettings) -> dict[tuple[str, str], list[dict[str, float]]]:
    """For each level, the log-loss and the calibration gap of p on the streams' own answers when that
    level's strength alone is changed (the others at the setting's): what each level's evidence is worth
    on answers the statistics never saw (cross-fitted streams), the questions as the engine picked them
    with the settings' strengths."""
    questions: dict[str, list[tuple[tuple[tuple[float, float], ...], bool, Question]]] = defaultdict(list)
    for steps in streams:
        for step in steps:
            if step.answer == Answer.AMBIGUOUS or not step.estimate.levels:
                continue
            questions[_group(step.question)].append(
                (step.estimate.levels, step.answer == Answer.YES, step.question)
            )
    out: dict[tuple[str, str], list[dict[str, float]]] = {}
    for group, rows in questions.items():
        answers = np.array([yes for _, yes, _ in rows], dtype=float)
        finer = len(NAMES[group]) - 1
        for i in range(1, len(NAMES[group])):
            results = []
            for strength in STRENGTHS:
                p = np.clip(
                    [
                        chained(levels, _strengths(settings, q, finer, {i - 1: strength}))
                        for levels, _, q in rows
                    ],
                    1e-6,
                    1 - 1e-6,
                )
                loss = -np.mean(answers * np.log(p) + (1 - answers) * np.log(1 - p))
                results.append(
                    {
                        "strength": strength,
                        "log_loss": float(loss),
                        "gap": float(np.mean(p) - np.mean(answers)),
                    }
                )
            out[(group, NAMES[group][i])] = results
    return out


def _strengths(
    settings: EngineSettings, question: Question, finer_levels: int, changed: dict[int, float] | None = None
) -> list[float]:
    """The settings' strength of each finer level of `question`'s chain (the last one is the weighted
    level, with the engine's own strength for it), with the levels of `changed` set otherwise."""
    strengths = [settings.prior_strength] * (finer_levels - 1) + [settings.last_level_strength(question)]
    for level, strength in (changed or {}).items():
        strengths[level] = strength
    return strengths


def _group(question: object) -> str:
    if isinstance(question, AttributeQuestion):
        return "attribute"
    if isinstance(question, RelationshipQuestion):
        return "relationship"
    return "instantiation"


# The strength settings whose values streams_under compares (floats of EngineSettings, named so that an
# integer setting cannot be handed a float).
Strength = Literal["weighted_strength", "relationship_strength"]


def _settings_with(setting: Strength, value: float) -> EngineSettings:
    """The default settings but for `setting`, which is `value`."""
    if setting == "relationship_strength":
        return EngineSettings(relationship_strength=value)
    return EngineSettings(weighted_strength=value)


def streams_under(
    vocabulary: Vocabulary,
    scenes: list[Scene],
    values: list[float],
    count: int,
    seed: int,
    setting: Strength = "weighted_strength",
) -> dict[float, dict[str, dict[str, float]]]:
    """For each value of `setting`, cross-fitted training streams generated *with* it, and per question
    kind the yes rate, mean p, gap (and the standard deviation a right p's would have), log-loss and the
    engine-p guesser's accuracy on their own answers: the value judged on the questions it makes the
    engine pick (the log-loss by strength above keeps the questions fixed)."""
    out: dict[float, dict[str, dict[str, float]]] = {}
    for value in values:
        settings = _settings_with(setting, value)
        streams = training_streams(vocabulary, scenes, settings, seed, folds=5, limit=count)
        by_kind: dict[str, list[tuple[float, bool]]] = defaultdict(list)
        for steps in streams:
            for step in steps:
                if step.answer != Answer.AMBIGUOUS and step.estimate.p is not None:
                    by_kind[str(step.question.kind)].append((step.estimate.p, step.answer == Answer.YES))
        out[value] = {}
        for kind, rows in sorted(by_kind.items()):
            p = np.clip([r[0] for r in rows], 1e-6, 1 - 1e-6)
            yes = np.array([r[1] for r in rows], dtype=float)
            out[value][kind] = {
                "questions": len(rows),
                "yes_rate": float(yes.mean()),
                "mean_p": float(p.mean()),
                "gap": float(p.mean() - yes.mean()),
                "log_loss": float(-np.mean(yes * np.log(p) + (1 - yes) * np.log(1 - p))),
                "engine_p": float(np.mean((p > 0.5) == (yes == 1))),
                "sd": if_calibrated(p)["sd"],
            }
        lengths = [sum(1 for s in steps if s.answer != Answer.AMBIGUOUS) for steps in streams]
        out[value]["all"] = {"mean_length": float(np.mean(lengths))}
    return out


def main() -> None:
    parser = cross_fitted_arguments(__doc__, "street", 300, writes=False)
    parser.add_argument(
        "--weighted-strengths",
        help="comma-separated: generate the streams with each weighted strength and compare them instead",
    )
    args = parser.parse_args()
    vocabulary, scenes = training_scenes(args.vocabulary, args.train)
    if args.weighted_strengths:
        values = [float(v) for v in args.weighted_strengths.split(",")]
        for value, kinds in streams_under(vocabulary, scenes, values, args.streams, args.seed).items():
            cells = "; ".join(
                f"{kind} gap {v['gap']:+.3f} loss {v['log_loss']:.4f} (n {v['questions']})"
                for kind, v in kinds.items()
                if kind != "all"
            )
            print(f"weighted strength {value:g}: mean length {kinds['all']['mean_length']:.1f}; {cells}")
        return
    settings = EngineSettings()
    streams = training_streams(vocabulary, scenes, settings, args.seed, folds=5, limit=args.streams)
    result = moments(streams, settings)
    print(json.dumps({f"{g}/{level}": v for (g, level), v in sorted(result.items())}, indent=1))
    for (group, level), results in sorted(by_strength(streams, settings).items()):
        best = min(results, key=lambda r: r["log_loss"])
        cells = ", ".join(f"{r['strength']:g}: {r['log_loss']:.4f} ({r['gap']:+.3f})" for r in results)
        print(
            f"{group}/{level}: best {best['strength']:g}; log-loss (mean p - yes rate) by strength: {cells}"
        )


if __name__ == "__main__":
    main()
