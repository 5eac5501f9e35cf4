"""The chain of nested populations, computed by hand."""

from __future__ import annotations

import numpy as np

from kernel.estimates import chain, chain_arrays, powers, weighted_sum, weighted_sums


def test_each_level_is_shrunk_towards_the_one_above():
    # p0 = 3/10; p1 = (1 + 4 * 0.3) / (2 + 4) = 2.2 / 6; an empty level leaves p where it was.
    estimate = chain([(3, 10), (1, 2), (0, 0)], strength=4.0, weighted_strength=0.5)
    assert estimate.p == (1 + 4 * (3 / 10)) / (2 + 4)
    assert abs(estimate.p - 0.366666666) < 1e-8
    assert estimate.population == 10
    assert estimate.levels == ((3, 10), (1, 2), (0, 0))


def test_a_large_level_outweighs_a_small_prior():
    estimate = chain([(50, 100), (900, 1000)], strength=40.0, weighted_strength=1.0)
    assert abs(estimate.p - 900.5 / 1001) < 1e-15


def test_the_last_level_the_weighted_one_has_a_strength_of_its_own():
    # p0 = 0.5; p1 = (2 + 40 * 0.5) / (4 + 40) = 0.5; p2 = (3 + 2 * 0.5) / (4 + 2) = 4 / 6.
    estimate = chain([(5, 10), (2, 4), (3, 4)], strength=40.0, weighted_strength=2.0)
    assert estimate.p == (3 + 2 * ((2 + 40 * 0.5) / (4 + 40))) / (4 + 2)
    p, _ = chain_arrays(
        [(np.array([5]), np.array([10])), (np.array([2]), np.array([4])), (np.array([3]), np.array([4]))],
        40.0,
        2.0,
    )
    assert p[0] == estimate.p
    # A one-level chain has no finer level to shrink.
    assert chain([(1, 4)], strength=40.0, weighted_strength=2.0).p == 0.25


def test_no_population_means_no_estimate():
    assert chain([(0, 0), (0, 0)], strength=40.0, weighted_strength=2.0).p is None
    p, population = chain_arrays(
        [(np.array([0, 2]), np.array([0, 4])), (np.array([0, 1]), np.array([0, 1]))], 40.0, 2.0
    )
    assert np.isnan(p[0]) and population[0] == 0
    assert p[1] == chain([(2, 4), (1, 1)], 40.0, 2.0).p == (1 + 2 * 0.5) / 3


def test_arrays_and_scalars_agree_to_the_last_digit():
    rng = np.random.default_rng(5)
    n = [rng.integers(1, 500, 200)]
    for _ in range(3):
        n.append(rng.integers(0, n[-1] + 1))
    levels = [(rng.integers(0, size + 1), size) for size in n]
    p, _ = chain_arrays(levels, 40.0, 3.0)
    for i in range(200):
        assert p[i] == chain([(int(y[i]), int(m[i])) for y, m in levels], 40.0, 3.0).p


def test_weighted_sums_in_python_and_numpy_agree_to_the_last_digit():
    rng = np.random.default_rng(9)
    weights = powers(0.7, 30)
    counts = rng.integers(0, 50, (100, 31)) * (rng.random((100, 31)) < 0.3)
    by_numpy = weighted_sums(counts, weights)
    for i in range(100):
        assert (
            by_numpy[i]
            == weighted_sum(counts[i], weights)
            == sum(int(c) * weights[d] for d, c in enumerate(counts[i]))
        )
