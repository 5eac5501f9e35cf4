"""Running the audit: streams on the training images, a blind guesser, a report a reviewer can read.

`training_streams` generates streams on the training images with the oracle, *cross-fitted*: the
training scenes are split into folds and the streams on one fold use statistics fitted on the other
folds (merged from per-fold fits, `engine.core.shards.merge`), so the engine's p a guesser learns from is
an out-of-sample p, as it is on a test image. `audit_streams` fits the guesser on those streams and
reports on held-out streams (a test's streams, or streams generated on held-out annotated scenes).
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.audit.features import FeatureSpace, Rows
from engine.audit.verdicts import JUDGED, TARGETS, learned_guesser_verdicts, one_draw_reading
from engine.core.drivers import StreamStep, run_automatic, stream_seed
from engine.core.settings import EngineSettings
from engine.core.shards import merge
from engine.core.statistics import FittedStatistics, fit
from kernel.scene import Scene
from kernel.vocabulary import Vocabulary
from scoring.stats import wilson_interval

IntArray = npt.NDArray[np.int64]

RELIABILITY_BINS = 10


def wilson(successes: int, total: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion (scoring.stats); NaN bounds without trials, which
    the report's JSON and tables show as missing."""
    return wilson_interval(successes, total) or (math.nan, math.nan)


def training_streams(
    vocabulary: Vocabulary,
    scenes: Sequence[Scene],
    settings: EngineSettings,
    seed: int,
    folds: int = 5,
    limit: int | None = None,
    min_overlap: float = 0.0,
    between_steps: Callable[[], object] | None = None,
) -> list[list[StreamStep]]:
    """Oracle-answered streams on (at most `limit` of) the training scenes, each with statistics fitted
    on the folds it is not in (`between_steps`: as `run_automatic`'s), in the order of
    `training_stream_scenes`."""
    fold_of = folds_of(len(scenes), seed, folds)
    shards = [
        fit(vocabulary, [s for s, f in zip(scenes, fold_of, strict=True) if f == k], min_overlap)
        for k in range(folds)
    ]
    streams: list[list[StreamStep]] = []
    stats, fold = None, -1
    for index in training_stream_scenes(len(scenes), seed, folds, limit):
        if fold_of[index] != fold:
            fold = int(fold_of[index])
            stats = merge([shard for j, shard in enumerate(shards) if j != fold])
        assert stats is not None
        seed_of = stream_seed(seed, index)
        streams.append(run_automatic(stats, scenes[index], settings, seed_of, between_steps=between_steps))
    return streams


def training_stream_scenes(count: int, seed: int, folds: int = 5, limit: int | None = None) -> list[int]:
    """Which training scene each of `training_streams`' streams runs on, in its order: the first `limit`
    scenes of the random order, fold by fold."""
    order = _order(count, seed)
    chosen = [
        (position % folds, int(order[position]))
        for position in range(count if limit is None else min(limit, count))
    ]
    return [index for _, index in sorted(chosen)]


def folds_of(count: int, seed: int, folds: int = 5) -> IntArray:
    """Each training scene's fold: folds dealt round-robin along a random order of the scenes."""
    fold_of = np.empty(count, dtype=np.int64)
    fold_of[_order(count, seed)] = np.arange(count) % folds
    return fold_of


def _order(count: int, seed: int) -> IntArray:
    return np.random.default_rng([seed, 1]).permutation(count)


def held_out_streams(
    stats: FittedStatistics, scenes: Sequence[Scene], settings: EngineSettings, seed: int
) -> list[list[StreamStep]]:
    return [run_automatic(stats, scene, settings, stream_seed(seed, i)) for i, scene in enumerate(scenes)]


def audit_streams(
    vocabulary: Vocabulary,
    train: Sequence[Sequence[StreamStep]],
    test: Sequence[Sequence[StreamStep]],
    seed: int = 0,
    model: str = "gradient-boosting",
) -> dict[str, Any]:
    """Fit the blind guesser on `train`, report on `test`. The report is JSON-able."""
    space = FeatureSpace(vocabulary)
    train_rows, test_rows = space.rows(train), space.rows(test)
    if len(train_rows) == 0 or len(test_rows) == 0:
        raise ValueError("the audit needs answered questions in both the training and held-out streams")
    guessed = _fit_and_predict(train_rows, test_rows, seed, model)
    engine_guess = test_rows.p > 0.5
    report: dict[str, Any] = {
        "model": model,
        "training_streams": len(train),
        "training_questions": len(train_rows),
        "held_out_streams": len(test),
        "held_out_questions": len(test_rows),
        "mean_stream_length": float(np.mean([_answered(s) for s in test])) if test else 0.0,
        "yes_rate": float(test_rows.answers.mean()),
        "guesser": _accuracy(guessed == test_rows.answers),
        "engine_p": _accuracy(engine_guess == test_rows.answers),
        "per_kind": {},
        "reliability": reliability(test_rows.p, test_rows.answers),
        "if_calibrated": if_calibrated(test_rows.p),
    }
    kinds = np.array(test_rows.kinds)
    for kind in sorted(set(test_rows.kinds)):
        mask = kinds == kind
        report["per_kind"][kind] = {
            "questions": int(mask.sum()),
            "yes_rate": float(test_rows.answers[mask].mean()),
            "mean_p": float(test_rows.p[mask].mean()),
            # |mean p - yes rate|: whether the engine's p is right on average for this kind.
            "calibration_gap": abs(float(test_rows.p[mask].mean()) - float(test_rows.answers[mask].mean())),
            "guesser": _accuracy(guessed[mask] == test_rows.answers[mask]),
            "engine_p": _accuracy(engine_guess[mask] == test_rows.answers[mask]),
            "expected_calibration_error": reliability(test_rows.p[mask], test_rows.answers[mask])[
                "expected_calibration_error"
            ],
            "if_calibrated": if_calibrated(test_rows.p[mask]),
        }
    report["verdict"] = audit_verdict(report)
    return report


def audit_verdict(report: dict[str, Any]) -> dict[str, Any]:
    """What one audit judges (issue 34's first ruling): the learned guesser, read on this draw as it was
    before the ruling; the engine's p (its guesser and its gaps) is one draw here, reported against a
    right p's spread on these questions and judged only on the mean of independent draws."""
    return {
        "learned_guesser": learned_guesser_verdicts(report),
        "targets": {key: TARGETS[key] for key in ("guesser", "guesser_kind")},
        "judged_questions": JUDGED,
        "engine_p": "reported, not judged: one draw",
        "per_kind": {
            kind: one_draw_reading(
                k["mean_p"] - k["yes_rate"], k["if_calibrated"]["sd"], against="a right p's"
            )
            for kind, k in report["per_kind"].items()
        },
    }


def if_calibrated(p: npt.NDArray[np.float64]) -> dict[str, float]:
    """What the engine-p guesser and the calibration gap would be, on these questions, if every p were
    exactly right (each answer yes with probability p, independently): a yardstick for reading a
    measured figure on a few hundred questions, where chance alone moves either by a few hundredths.

    `engine_p`: the guesser's expected accuracy, the mean of max(p, 1 - p). `sd`: the standard deviation
    of its accuracy, which is also that of (yes rate - mean p), since on each question the guesser is
    right exactly when the answer lands on p's side: both are sqrt(sum p(1 - p)) / n.
    `correlation`: between the two (the guesser's error moves with the yes rate where p > 0.5 and
    against it where p < 0.5), to judge both targets of a kind at once."""
    n = len(p)
    if n == 0:
        return {"engine_p": math.nan, "sd": math.nan, "correlation": math.nan}
    variance = p * (1.0 - p)
    total = float(variance.sum())
    side = np.where(p > 0.5, 1.0, -1.0)
    return {
        "engine_p": float(np.maximum(p, 1.0 - p).mean()),
        "sd": math.sqrt(total) / n,
        "correlation": float((side * variance).sum() / total) if total > 0 else math.nan,
    }


def right_p_chances(
    report: dict[str, Any],
    *,
    gap: float,
    guesser_kind: float,
    guesser: float,
    judged: int,
    draws: int = 200_000,
    seed: int = 0,
) -> dict[str, Any]:
    """Against an audit report's yardstick (`if_calibrated`): per kind with at least `judged` questions,
    how many standard deviations its engine-p guesser and its (yes rate - mean p) are from a right p's,
    and the chance that a right p meets both targets on it (abs(gap) at most `gap`, guesser at most
    `guesser_kind`); and the chance that it meets all of them and the overall guesser target at once.

    Normal draws (`draws` of them, an error under 0.002), per kind two correlated ones, the kinds
    independent (different questions) and the overall guesser their question-weighted sum."""
    rng = np.random.default_rng(seed)
    kinds = report["per_kind"]
    total = sum(k["questions"] for k in kinds.values())
    overall = np.full(draws, report["if_calibrated"]["engine_p"])
    every = np.ones(draws, dtype=bool)
    out: dict[str, Any] = {"per_kind": {}}
    for kind, k in sorted(kinds.items()):
        null = k["if_calibrated"]
        rho = null["correlation"] if math.isfinite(null["correlation"]) else 0.0
        shared, own = rng.standard_normal(draws), rng.standard_normal(draws)
        yes_minus_p = shared * null["sd"]
        guessed = null["engine_p"] + (rho * shared + math.sqrt(max(0.0, 1.0 - rho * rho)) * own) * null["sd"]
        overall += (guessed - null["engine_p"]) * k["questions"] / total
        if k["questions"] < judged:
            continue
        meets = (np.abs(yes_minus_p) <= gap) & (guessed <= guesser_kind)
        every &= meets
        out["per_kind"][kind] = {
            "engine_p": null["engine_p"],
            "sd": null["sd"],
            "z_engine_p": (k["engine_p"]["accuracy"] - null["engine_p"]) / null["sd"],
            "z_gap": (k["yes_rate"] - k["mean_p"]) / null["sd"],
            "meets": float(meets.mean()),
        }
    every &= overall <= guesser
    out["all"] = float(every.mean())
    return out


def _answered(steps: Sequence[StreamStep]) -> int:
    return sum(1 for s in steps if str(s.answer) != "ambiguous")


def _fit_and_predict(train: Rows, test: Rows, seed: int, model: str) -> npt.NDArray[np.bool_]:
    # scikit-learn is imported here, not at import time: reading a report needs no model library.
    if len(set(train.answers.tolist())) < 2:
        return np.full(len(test), bool(train.answers[0]))
    if model == "gradient-boosting":
        from sklearn.ensemble import HistGradientBoostingClassifier

        classifier: Any = HistGradientBoostingClassifier(
            max_iter=300, learning_rate=0.05, early_stopping=True, validation_fraction=0.2, random_state=seed
        )
    elif model == "logistic-regression":
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler

        classifier = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    else:
        raise ValueError(f"unknown model {model!r}")
    classifier.fit(train.features, train.answers)
    predicted: npt.NDArray[np.bool_] = np.asarray(classifier.predict(test.features), dtype=bool)
    return predicted


def _accuracy(correct: npt.NDArray[np.bool_]) -> dict[str, float | int]:
    n, right = len(correct), int(correct.sum())
    low, high = wilson(right, n)
    return {"accuracy": right / n if n else math.nan, "low": low, "high": high, "n": n}


def reliability(p: npt.NDArray[np.float64], answers: npt.NDArray[np.bool_]) -> dict[str, Any]:
    """Reliability diagram of the engine's p: 10 equal-width bins of p over [0, 1]; per non-empty bin
    the mean p, the observed yes rate and the count. ECE = sum over bins of (count / n) * abs(mean p -
    yes rate)."""
    bins = np.minimum((p * RELIABILITY_BINS).astype(np.int64), RELIABILITY_BINS - 1)
    rows = []
    ece = 0.0
    for b in range(RELIABILITY_BINS):
        mask = bins == b
        n = int(mask.sum())
        if not n:
            continue
        mean_p, observed = float(p[mask].mean()), float(answers[mask].mean())
        low, high = wilson(int(answers[mask].sum()), n)
        rows.append(
            {
                "bin": [b / RELIABILITY_BINS, (b + 1) / RELIABILITY_BINS],
                "mean_p": mean_p,
                "observed": observed,
                "low": low,
                "high": high,
                "n": n,
            }
        )
        ece += n / len(p) * abs(mean_p - observed)
    return {"bins": rows, "expected_calibration_error": ece}


def reliability_svg(report: dict[str, Any], title: str = "Reliability of the engine's p") -> str:
    """The reliability diagram as a self-contained SVG: observed yes rate (with 95% intervals) against
    mean p per bin, the diagonal, and bin counts."""
    size, margin = 420, 60
    plot = size - 2 * margin

    def sx(v: float) -> float:
        return margin + v * plot

    def sy(v: float) -> float:
        return size - margin - v * plot

    rel = report["reliability"]
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" '
        f'viewBox="0 0 {size} {size}" font-family="sans-serif" font-size="11">',
        f'<rect width="{size}" height="{size}" fill="white"/>',
        f'<text x="{size / 2}" y="20" text-anchor="middle" font-size="13">{html.escape(title)}</text>',
        f'<text x="{size / 2}" y="36" text-anchor="middle">ECE {rel["expected_calibration_error"]:.3f}, '
        f"{report['held_out_questions']} held-out questions</text>",
        f'<rect x="{margin}" y="{margin}" width="{plot}" height="{plot}" fill="none" stroke="#444"/>',
        f'<line x1="{sx(0)}" y1="{sy(0)}" x2="{sx(1)}" y2="{sy(1)}" stroke="#999" stroke-dasharray="4 3"/>',
    ]
    for tick in range(0, 11, 2):
        v = tick / 10
        parts.append(f'<text x="{sx(v)}" y="{size - margin + 15}" text-anchor="middle">{v:.1f}</text>')
        parts.append(f'<text x="{margin - 6}" y="{sy(v) + 4}" text-anchor="end">{v:.1f}</text>')
    parts.append(f'<text x="{size / 2}" y="{size - 18}" text-anchor="middle">engine p (bin mean)</text>')
    parts.append(
        f'<text x="16" y="{size / 2}" text-anchor="middle" transform="rotate(-90 16 {size / 2})">'
        "observed yes rate</text>"
    )
    total = max(1, report["held_out_questions"])
    for row in rel["bins"]:
        x0, x1 = row["bin"]
        height = row["n"] / total * plot * 0.3
        parts.append(
            f'<rect x="{sx(x0) + 1}" y="{sy(0) - height}" width="{(x1 - x0) * plot - 2}" height="{height}" '
            'fill="#cfe0f3"/>'
        )
        parts.append(
            f'<line x1="{sx(row["mean_p"])}" y1="{sy(row["low"])}" x2="{sx(row["mean_p"])}" '
            f'y2="{sy(row["high"])}" stroke="#1f5fa8"/>'
        )
        parts.append(f'<circle cx="{sx(row["mean_p"])}" cy="{sy(row["observed"])}" r="3.5" fill="#1f5fa8"/>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def write_report(report: dict[str, Any], out_dir: Path) -> tuple[Path, Path]:
    """`audit.json` and `reliability.svg` in `out_dir`."""
    import json

    out_dir.mkdir(parents=True, exist_ok=True)
    json_path, svg_path = out_dir / "audit.json", out_dir / "reliability.svg"
    json_path.write_text(json.dumps(report, indent=2) + "\n")
    svg_path.write_text(reliability_svg(report))
    return json_path, svg_path
