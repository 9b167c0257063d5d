"""The two readings of Kuroki et al.'s lost constants (experiments/kuroki_readings.py), against enumeration."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import fullbandit as fb
from fullbandit.experiments import kuroki_samples
from fullbandit.experiments.kuroki_readings import READINGS, ICBSuperArmUnion, SAQMRatioOne, reading
from fullbandit.linalg.least_squares import LeastSquaresEstimate
from fullbandit.linalg.radius import confidence_radius


def _estimate(seed: int, n: int, k: int) -> LeastSquaresEstimate:
    """theta_hat and the inverse Gram matrix of a random design of top-k super-arms with random counts."""
    rng = np.random.default_rng(seed)
    members = [np.isin(np.arange(n), subset).astype(float) for subset in itertools.combinations(range(n), k)]
    rows = [members[i] for i in rng.choice(len(members), size=3 * n)]
    counts = rng.integers(1, 20, size=len(rows))
    gram = sum(count * np.outer(row, row) for count, row in zip(counts, rows, strict=True))
    gram = gram + 1e-6 * np.eye(n)  # full rank whatever the draw
    return LeastSquaresEstimate(rng.normal(0.0, 1.0, n), gram, np.linalg.inv(gram), int(counts.sum()))


def _largest_width(estimate: LeastSquaresEstimate, k: int) -> float:
    """max_M ||x_M||_{A^-1} over every size-k subset, by enumeration."""
    n = len(estimate.theta)
    return max(math.sqrt(estimate.gram_inverse[np.ix_(subset, subset)].sum())
               for subset in map(list, itertools.combinations(range(n), k)))


def test_icb_with_the_super_arm_union_has_the_radius_of_c_n_k_directions():
    problem = fb.TopK(9, 4)
    literal = ICBSuperArmUnion(problem, epsilon=0.1, delta=0.05, noise_scale=1.0).setup()
    default = fb.ICB(problem, epsilon=0.1, delta=0.05, noise_scale=1.0).setup()
    for t in (10, 1_000, 100_000):
        assert literal.radius(t) == pytest.approx(confidence_radius(t, 0.05, 1.0, math.comb(9, 4), "tight"))
        assert literal.radius(t) > default.radius(t)
    assert literal.guarantee == "certified" and literal.label() == "icb[super-arm union]"


def test_icb_with_the_super_arm_union_is_certified_and_samples_more():
    environment = fb.GaussianSum([0.9, 0.8, 0.7, 0.3, 0.2, 0.1], sigma=0.5, seed=5)
    literal = fb.run(ICBSuperArmUnion(fb.TopK(6, 3), epsilon=0.05, seed=1), environment, progress=False)
    environment = fb.GaussianSum([0.9, 0.8, 0.7, 0.3, 0.2, 0.1], sigma=0.5, seed=5)
    default = fb.run(fb.ICB(fb.TopK(6, 3), epsilon=0.05, seed=1), environment, progress=False)
    assert literal.answer == default.answer == (0, 1, 2)
    assert literal.certified and literal.pulls > default.pulls


def test_saqm_with_ratio_one_takes_the_oracle_value_a_lower_bound_so_it_is_heuristic():
    """On 60 seeded designs (n = 6..8): its width sqrt(Z_t) never exceeds the exact largest width, the
    certified SAQM's never falls below it, and the oracle's value falls strictly short at least once."""
    short = 0
    for seed in range(60):
        n = 6 + seed % 3
        k = 2 + seed % (n - 3)
        problem = fb.TopK(n, k)
        estimate = _estimate(seed, n, k)
        exact = _largest_width(estimate, k)
        optimistic = SAQMRatioOne(problem, noise_scale=1.0).setup()._rule(estimate, 1.0)[2]["U_t"]
        certified = fb.SAQM(problem, noise_scale=1.0).setup()._rule(estimate, 1.0)[2]["U_t"]
        assert optimistic <= exact * (1 + 1e-9) and certified >= exact * (1 - 1e-9)
        short += optimistic < exact * (1 - 1e-6)
    assert short >= 1
    assert SAQMRatioOne(fb.TopK(5, 2)).guarantee == "heuristic"


def test_table2_runs_the_readings_beside_the_defaults():
    grid = kuroki_samples.table2_grid(1)
    assert set(READINGS) <= set(grid.algorithms)
    problem = fb.TopK(8, 3)
    assert isinstance(reading(problem, 0, label="icb[super-arm union]", epsilon=0.5), ICBSuperArmUnion)
    assert isinstance(reading(problem, 0, label="saqm[ratio one]", epsilon=0.5), SAQMRatioOne)
