"""One estimate from nested populations: each finer level shrunk towards the one above it.

A level may be *weighted by consistency*: an item (an image, or the object or pair bound in an image)
counts lambda^d, where d is the number of the history's instantiation answers its image disagrees with
and lambda = `consistency_weight`. Such a level is kept as counts per d and summed in the order
d = 0, 1, 2, ... (`weighted_sums`), so any implementation that sums in that order gets the same bits.

Every question has a chain of populations, from the coarsest (the pooled one of docs/method.md section
7, many images or objects that agree with little of the history) to the finest (few images that agree
with all of it). Level i counts y_i yes answers out of n_i decidable items. The estimate is

    p_0 = y_0 / n_0
    p_i = (y_i + s_i * p_(i-1)) / (n_i + s_i)      for i = 1 .. k
    p   = p_k

with s_i = prior_strength for every level but the last, and s_k = weighted_strength for the last one,
which in every chain is the level weighted by consistency (relationship_strength in a relationship
question's chain, whose last level counts fewer images: decision 0059). So a finer level moves the estimate only as
far as its own evidence allows: with n_i much larger than s_i it is the level's relative frequency, with
n_i = 0 it is the level above. The population reported (and compared with `min_population`) is n_0:
the number of items behind the estimate as a whole. docs/engine.md states it for every kind of
question; decisions 0034, 0055 and 0059 say why.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


@dataclass(frozen=True)
class Estimate:
    """P_H(X_q = 1), the population behind it and the (yes, population) of each level, coarsest first."""

    p: float | None
    population: int
    levels: tuple[tuple[float, float], ...] = ()


def powers(weight: float, disagreements: int) -> list[float]:
    """lambda^d for d = 0 .. disagreements, as Python computes them."""
    return [weight**d for d in range(disagreements + 1)]


def weighted_sums(by_disagreement: IntArray, weights: Sequence[float]) -> FloatArray:
    """For counts shaped (items, d), sum over d of count * lambda^d, in the order d = 0, 1, ...

    Columns that are zero throughout are skipped: adding 0.0 changes no sum, so the result is the same
    bits, and a history leaves only a few distinct disagreement counts."""
    total = np.zeros(by_disagreement.shape[0], dtype=np.float64)
    for d in np.flatnonzero(by_disagreement.any(axis=0)):
        total = total + by_disagreement[:, d] * weights[int(d)]
    return total


def weighted_sum(by_disagreement: IntArray, weights: Sequence[float]) -> float:
    """`weighted_sums` for one item, in Python floats (the same bits)."""
    total = 0.0
    for d in np.flatnonzero(by_disagreement):
        total = total + int(by_disagreement[d]) * weights[int(d)]
    return total


def strengths(count: int, strength: float, weighted_strength: float) -> list[float]:
    """The strength each of `count` finer levels is shrunk with: the last (weighted) level's own."""
    return [strength] * (count - 1) + [weighted_strength] if count else []


def chain(levels: Sequence[tuple[float, float]], strength: float, weighted_strength: float) -> Estimate:
    """The shrunk estimate of one question from its levels' (yes, population), coarsest first."""
    yes0, population = levels[0]
    if population == 0:
        return Estimate(None, 0, tuple(levels))
    p = yes0 / population
    for (yes, n), s in zip(levels[1:], strengths(len(levels) - 1, strength, weighted_strength), strict=True):
        p = (yes + s * p) / (n + s)
    return Estimate(p, int(population), tuple(levels))


def chain_arrays(
    levels: Sequence[tuple[npt.NDArray[np.float64] | IntArray, npt.NDArray[np.float64] | IntArray]],
    strength: float,
    weighted_strength: float,
) -> tuple[FloatArray, IntArray]:
    """`chain` for many questions at once: (p, population) arrays; p is nan where the population is 0.

    The arithmetic is the scalar one, element by element and in the same order, so both give the same
    floating-point numbers."""
    yes0, population = levels[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        p = yes0.astype(np.float64) / population.astype(np.float64)
        for (yes, n), s in zip(
            levels[1:], strengths(len(levels) - 1, strength, weighted_strength), strict=True
        ):
            p = (yes.astype(np.float64) + s * p) / (n.astype(np.float64) + s)
    return np.where(population > 0, p, np.nan), population.astype(np.int64)
