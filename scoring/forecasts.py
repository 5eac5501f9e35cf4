"""Scores of the probabilities a system gives with its answers (`p_yes`, issue 36), by proper scoring
rules: a system scores best on them by saying what it believes (docs/evaluation.md, "Probabilities").

- the Brier score, the mean of (p - y)^2, where y is 1 when the truth is yes: 0 is perfect, 0.25 is
  what p = 0.5 on every question scores, and the engine picks questions near a coin flip for a blind
  guesser, so a blind system cannot do much better than 0.25;
- the log loss, the mean of -ln(the p given to the truth), in nats, with p clipped to
  [LOG_LOSS_CLIP, 1 - LOG_LOSS_CLIP]: one confident mistake costs at most ln(1000) = 6.9 nats instead of
  infinity, so it weighs like seven mistakes at p = 0.999, not like the whole test; ln 2 = 0.693 is a
  coin flip;
- the expected calibration error over RELIABILITY_BINS equal bins of p (the sum over bins of the
  share of questions in the bin times |mean p - observed yes rate|), with the reliability diagram's
  rows. It is not a proper scoring rule (a system that always says the base rate has none); it says
  where the probabilities are off, the two rules say how good they are.

The questions of one stream are not independent (they are about one image, and each follows from the
ones before it), so every interval treats a stream as the unit: the two means get the ratio
estimator's cluster-robust normal interval, the calibration error a bootstrap over streams with a
fixed seed (the same figures each time the score is computed). A session that gave p on some answers
only is scored on those, and says how many (`given` of `questions`): `complete` is false.

Plain Python, like the rest of the scoring core.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from scoring.stats import Z95, wilson_interval

LOG_LOSS_CLIP = 1e-3
RELIABILITY_BINS = 10
BOOTSTRAP_DRAWS = 1000
BOOTSTRAP_SEED = 2015

# (stream position, p_yes, whether the truth is yes) of one answer that gave a probability.
Forecast = tuple[int, float, bool]


def brier(p: float, yes: bool) -> float:
    return (p - (1.0 if yes else 0.0)) ** 2


def log_loss(p: float, yes: bool) -> float:
    clipped = min(max(p, LOG_LOSS_CLIP), 1 - LOG_LOSS_CLIP)
    return -math.log(clipped if yes else 1 - clipped)


def forecast_scores(forecasts: Sequence[Forecast], questions: int) -> dict[str, Any] | None:
    """The scores of the probabilities given on `questions` counted questions (None: none given)."""
    if not forecasts:
        return None
    streams: dict[int, list[tuple[float, bool]]] = defaultdict(list)
    for stream, p, yes in forecasts:
        streams[stream].append((p, yes))
    groups = list(streams.values())
    return {
        "given": len(forecasts),
        "questions": questions,
        "complete": len(forecasts) >= questions,
        "brier": clustered_mean([[brier(p, y) for p, y in g] for g in groups]),
        "log_loss": clustered_mean([[log_loss(p, y) for p, y in g] for g in groups]),
        "calibration_error": calibration_error(groups),
        "reliability": reliability_bins([f for g in groups for f in g]),
    }


def clustered_mean(groups: Sequence[Sequence[float]]) -> dict[str, float | int | None]:
    """The mean of every value, with a 95% normal interval that takes each group (a stream) as one
    unit: the ratio estimator's variance, G / (G - 1) * sum_g (S_g - mean * N_g)^2 / N^2. No interval
    from fewer than two groups."""
    n = sum(len(g) for g in groups)
    if n == 0:
        return {"value": None, "low": None, "high": None, "n": 0, "streams": 0}
    mean = sum(sum(g) for g in groups) / n
    count = len(groups)
    if count < 2:
        return {"value": mean, "low": None, "high": None, "n": n, "streams": count}
    spread = sum((sum(g) - mean * len(g)) ** 2 for g in groups)
    half = Z95 * math.sqrt(count / (count - 1) * spread) / n
    return {"value": mean, "low": mean - half, "high": mean + half, "n": n, "streams": count}


def bin_of(p: float) -> int:
    return min(int(p * RELIABILITY_BINS), RELIABILITY_BINS - 1)


def _bin_sums(forecasts: Sequence[tuple[float, bool]]) -> list[list[float]]:
    """Per bin of p: [count, sum of p, count of yes truths]."""
    sums = [[0.0, 0.0, 0.0] for _ in range(RELIABILITY_BINS)]
    for p, yes in forecasts:
        row = sums[bin_of(p)]
        row[0] += 1
        row[1] += p
        row[2] += yes
    return sums


def _ece(sums: Sequence[Sequence[float]]) -> float:
    total = sum(row[0] for row in sums)
    return sum(abs(row[1] - row[2]) for row in sums if row[0]) / total if total else 0.0


def calibration_error(groups: Sequence[Sequence[tuple[float, bool]]]) -> dict[str, float | int | None]:
    """The expected calibration error, with the 2.5% and 97.5% quantiles of BOOTSTRAP_DRAWS resamples
    of the streams (none from fewer than two streams)."""
    per_stream = [_bin_sums(g) for g in groups]
    value = _ece(_summed(per_stream))
    if len(per_stream) < 2:
        return {"value": value, "low": None, "high": None}
    rng = random.Random(BOOTSTRAP_SEED)
    draws = sorted(
        _ece(_summed([per_stream[rng.randrange(len(per_stream))] for _ in per_stream]))
        for _ in range(BOOTSTRAP_DRAWS)
    )
    return {
        "value": value,
        "low": draws[int(0.025 * BOOTSTRAP_DRAWS)],
        "high": draws[int(0.975 * BOOTSTRAP_DRAWS) - 1],
    }


def _summed(per_stream: Sequence[Sequence[Sequence[float]]]) -> list[list[float]]:
    return [[sum(s[b][i] for s in per_stream) for i in range(3)] for b in range(RELIABILITY_BINS)]


def reliability_bins(forecasts: Sequence[tuple[float, bool]]) -> list[dict[str, Any]]:
    """The reliability diagram's rows: each non-empty bin of p with its mean p, its observed yes rate
    and the rate's 95% Wilson interval (the shape engine.audit's diagram has, drawn by one plot)."""
    rows = []
    for b, (n, p_sum, yes) in enumerate(_bin_sums(forecasts)):
        if not n:
            continue
        interval = wilson_interval(yes, int(n))
        assert interval is not None
        rows.append(
            {
                "bin": [b / RELIABILITY_BINS, (b + 1) / RELIABILITY_BINS],
                "n": int(n),
                "mean_p": p_sum / n,
                "observed": yes / n,
                "low": interval[0],
                "high": interval[1],
            }
        )
    return rows


def paired_brier(a: Mapping[int, tuple[float, int]], b: Mapping[int, tuple[float, int]]) -> dict[str, Any]:
    """A's Brier score minus B's, paired by image (two sessions are dealt different streams of one
    image): per image each session's mean Brier score on its own stream, and the mean of the
    differences over the images both gave p on, with a normal 95% interval. `a`, `b`: per image, the
    sum of Brier scores and their count. Negative: A's probabilities are the better."""
    differences = [a[i][0] / a[i][1] - b[i][0] / b[i][1] for i in a.keys() & b.keys() if a[i][1] and b[i][1]]
    n = len(differences)
    if n == 0:
        return {"difference": None, "low": None, "high": None, "images": 0}
    mean = sum(differences) / n
    if n < 2:
        return {"difference": mean, "low": None, "high": None, "images": 1}
    sd = math.sqrt(sum((d - mean) ** 2 for d in differences) / (n - 1))
    half = Z95 * sd / math.sqrt(n)
    return {"difference": mean, "low": mean - half, "high": mean + half, "images": n}
