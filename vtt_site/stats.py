"""Small statistics shared by the apps that report proportions (operators' agreement, scores)."""

from __future__ import annotations

import math


def wilson_interval(successes: int, trials: int, z: float = 1.959963984540054) -> tuple[float, float] | None:
    """The Wilson score interval of a proportion (95% by default); None without trials."""
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


def proportion(successes: int, trials: int) -> dict[str, float | int | None]:
    """{"value", "successes", "trials", "low", "high"}: a proportion with its 95% Wilson interval."""
    interval = wilson_interval(successes, trials)
    return {
        "value": successes / trials if trials else None,
        "successes": successes,
        "trials": trials,
        "low": interval[0] if interval else None,
        "high": interval[1] if interval else None,
    }
