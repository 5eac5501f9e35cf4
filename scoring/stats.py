"""Small statistics of proportions and means, written once for every report (scores, the test card,
operators' agreement, the engine's audit)."""

from __future__ import annotations

import math

Z95 = 1.959963984540054  # the standard normal's 97.5% quantile


def wilson_interval(successes: float, trials: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of a proportion (95% by default); None without trials. `successes` may
    be an expected count (a sum of probabilities)."""
    if trials <= 0:
        return None
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    # At 0 and at all successes the bound is exactly 0 (or 1); rounding would leave 1e-17.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return (low, high)


def proportion(successes: float, trials: int) -> dict[str, float | int | None]:
    """{"value", "successes", "trials", "low", "high"}: a proportion with its 95% Wilson interval."""
    interval = wilson_interval(successes, trials)
    return {
        "value": successes / trials if trials else None,
        "successes": successes,
        "trials": trials,
        "low": interval[0] if interval else None,
        "high": interval[1] if interval else None,
    }


def mean_interval(values: list[int] | list[float]) -> dict[str, float | int | None]:
    """A mean with its normal 95% interval (mean +- 1.96 s / sqrt(n)): a mean is not a proportion, so
    Wilson does not apply to it. No interval from fewer than two values."""
    n = len(values)
    if n == 0:
        return {"mean": None, "streams": 0, "low": None, "high": None}
    mean = sum(values) / n
    if n == 1:
        return {"mean": mean, "streams": 1, "low": None, "high": None}
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = Z95 * sd / math.sqrt(n)
    return {"mean": mean, "streams": n, "low": mean - half, "high": mean + half}


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value for b and c discordant pairs: under "no difference" each
    discordant pair is a fair coin, so p = 2 P(Binomial(b + c, 1/2) <= min(b, c)), capped at 1.
    McNemar's exact test is the sign test on the discordant pairs."""
    return sign_test_exact(b, c)


def sign_test_exact(plus: int, minus: int) -> float:
    """Two-sided exact sign test: `plus` pairs where the first member did better, `minus` where the
    second did (ties are left out before). Under "no difference" each untied pair is a fair coin:
    p = 2 P(Binomial(plus + minus, 1/2) <= min(plus, minus)), capped at 1 (scipy.stats.binomtest with
    p = 1/2 gives the same; scipy is not imported here: the scoring core stays free of numpy)."""
    b, c = plus, minus
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    # C(n, i) from C(n, i - 1), exactly: a big integer times a small one per term, where math.comb
    # starts over each time (the leaderboard of a 1,000-image test: 0.21 s for its rows' comparisons).
    term = total = 1
    for i in range(1, k + 1):
        term = term * (n - i + 1) // i
        total += term
    return min(1.0, 2 * (total / (1 << n)))
