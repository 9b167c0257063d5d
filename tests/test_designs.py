"""Tests for fullbandit.design.xy: the XY-optimal design for the swap directions and its certificate."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import fullbandit as fb
from fullbandit.design.goptimal import g_optimal_allocation
from fullbandit.design.support import cyclic_windows, random_support
from fullbandit.design.xy import (
    XY_TOLERANCE,
    swap_variances,
    xy_lower_bound,
    xy_objective,
    xy_optimal_allocation,
    xy_optimal_design,
)
from fullbandit.full.static import G_OPTIMAL_DROP, _proportions
from fullbandit.util.validation import InvalidParameterError


def design_matrix(n, support):
    matrix = np.zeros((len(support), n))
    for row, arm in enumerate(support):
        matrix[row, list(arm)] = 1.0
    return matrix


def plain_objective(n, support, weights):
    """max over i < j of (e_i - e_j)^T A^-1 (e_i - e_j), written out with numpy.linalg.inv."""
    X = design_matrix(n, support)
    inverse = np.linalg.inv(X.T @ (np.asarray(weights)[:, None] * X))
    best = 0.0
    for i, j in itertools.combinations(range(n), 2):
        y = np.zeros(n)
        y[i], y[j] = 1.0, -1.0
        best = max(best, float(y @ inverse @ y))
    return best


def plain_bound(n, support, weights, direction_weights):
    """(sum_y lam_y y^T A^-1 y)^2 / max_x sum_y lam_y (x^T A^-1 y)^2, written out."""
    X = design_matrix(n, support)
    inverse = np.linalg.inv(X.T @ (np.asarray(weights)[:, None] * X))
    phi, d = 0.0, np.zeros(len(support))
    for i, j in itertools.combinations(range(n), 2):
        lam = direction_weights[i, j]
        if lam:
            y = np.zeros(n)
            y[i], y[j] = 1.0, -1.0
            phi += lam * float(y @ inverse @ y)
            d += lam * (X @ inverse @ y) ** 2
    return phi, d


# Random supports on which the design is checked: (n, k, size, seed).
CASES = [(6, 2, 12, 0), (7, 3, 16, 1), (8, 3, 20, 2), (9, 4, 30, 3), (10, 3, 40, 4), (12, 5, 48, 5)]


@pytest.fixture(scope="module")
def designs():
    out = {}
    for n, k, size, seed in CASES:
        support = random_support(n, k, seed=seed, size=size)
        out[n, k, size, seed] = support, xy_optimal_design(n, support)
    return out


# --- objective ----------------------------------------------------------------------------------

def test_swap_variances_match_the_written_out_formula():
    rng = np.random.default_rng(0)
    for _ in range(10):
        n = int(rng.integers(3, 9))
        k = int(rng.integers(1, n))
        support = random_support(n, k, rng, size=min(2 * n, math.comb(n, k)))
        weights = rng.dirichlet(np.ones(len(support)))
        X = design_matrix(n, support)
        inverse = np.linalg.inv(X.T @ (weights[:, None] * X))
        V = swap_variances(n, support, weights)
        for i, j in itertools.product(range(n), repeat=2):
            y = np.zeros(n)
            y[i] += 1.0
            y[j] -= 1.0
            assert V[i, j] == pytest.approx(float(y @ inverse @ y), rel=1e-9, abs=1e-12)
        assert xy_objective(n, support, weights) == pytest.approx(plain_objective(n, support, weights), rel=1e-9)


def test_objective_is_infinite_on_a_singular_design():
    support = [(0, 1), (1, 2), (0, 2)]
    assert xy_objective(3, support, [0.5, 0.5, 0.0]) == math.inf
    with pytest.raises(InvalidParameterError, match="singular"):
        swap_variances(3, support, [0.5, 0.5, 0.0])


# --- the optimum --------------------------------------------------------------------------------

def test_weights_form_a_distribution_and_the_reported_value_is_the_objective(designs):
    for (n, _, _, _), (support, design) in designs.items():
        assert design.weights.shape == (len(support),)
        assert np.all(design.weights >= 0) and design.weights.sum() == pytest.approx(1.0, abs=1e-12)
        assert design.value == pytest.approx(plain_objective(n, support, design.weights), rel=1e-9)


def test_optimum_is_no_worse_than_the_uniform_and_the_g_optimal_allocations(designs):
    for (n, _, _, _), (support, design) in designs.items():
        m = len(support)
        uniform = plain_objective(n, support, np.full(m, 1.0 / m))
        g_optimal = plain_objective(n, support, g_optimal_allocation(n, support))
        assert design.value <= uniform * (1 + 1e-12)
        assert design.value <= g_optimal * (1 + 1e-12)
        # and on these random supports it is strictly better than both
        assert design.value < 0.999 * min(uniform, g_optimal)


def test_duality_gap_is_certified(designs):
    # The bound recomputed independently from (p, lambda): weak duality makes it a lower
    # bound on the optimum, so value / bound - 1 bounds the suboptimality.
    for (n, _, _, _), (support, design) in designs.items():
        lam = design.direction_weights
        assert np.all(lam >= 0) and lam.sum() == pytest.approx(1.0) and np.all(np.tril(lam) == 0)
        phi, d = plain_bound(n, support, design.weights, lam)
        assert design.lower_bound == pytest.approx(phi ** 2 / d.max(), rel=1e-9)
        assert design.gap <= XY_TOLERANCE
        assert design.value <= (1 + XY_TOLERANCE) * design.lower_bound


def test_equivalence_theorem_holds_at_the_optimum(designs):
    # Optimality of p with multipliers lambda (Pukelsheim 1993, ch. 7): lambda lives on the
    # active swaps (sum_y lam_y ||y||^2 = f(p)) and no member has d_x above f(p).
    for (n, _, _, _), (support, design) in designs.items():
        phi, d = plain_bound(n, support, design.weights, design.direction_weights)
        assert phi >= design.value * (1 - XY_TOLERANCE)
        assert d.max() <= design.value * (1 + XY_TOLERANCE)
        # complementary slackness: the members that carry weight reach the maximum
        heavy = design.weights >= 1e-2 * design.weights.max()
        assert np.all(d[heavy] >= design.value * (1 - 10 * XY_TOLERANCE))


def test_the_bound_is_a_lower_bound_for_any_weights_and_multipliers():
    # Weak duality, checked: for arbitrary (p, lambda) the bound never exceeds f(q) for any q.
    rng = np.random.default_rng(3)
    n, k = 7, 3
    support = random_support(n, k, seed=9, size=18)
    optimum = xy_optimal_design(n, support).value
    for _ in range(30):
        p = rng.dirichlet(np.full(len(support), 0.5)) + 1e-3
        lam = np.triu(rng.exponential(size=(n, n)) * (rng.uniform(size=(n, n)) < 0.3), 1)
        lam[0, 1] += 1e-3
        bound = xy_lower_bound(n, support, p, lam)
        assert bound <= optimum * (1 + 1e-9)
        q = rng.dirichlet(np.ones(len(support)))
        assert bound <= plain_objective(n, support, q) * (1 + 1e-9)


def test_matches_an_sdp_solved_by_cvxpy():
    # min t s.t. B >= A(p)^-1 (Schur complement) and B_ii + B_jj - 2 B_ij <= t: an exact SDP
    # formulation, solved by a conic solver, against the barrier method.
    import cvxpy as cp

    for n, k, size, seed in [(5, 2, 10, 0), (7, 3, 14, 1), (8, 4, 20, 2)]:
        support = random_support(n, k, seed=seed, size=size)
        X = design_matrix(n, support)
        p = cp.Variable(len(support), nonneg=True)
        B = cp.Variable((n, n), symmetric=True)
        t = cp.Variable()
        rows, cols = np.triu_indices(n, 1)
        constraints = [cp.sum(p) == 1, cp.bmat([[B, np.eye(n)], [np.eye(n), X.T @ cp.diag(p) @ X]]) >> 0,
                       cp.diag(B)[rows] + cp.diag(B)[cols] - 2 * B[rows, cols] <= t]
        reference = cp.Problem(cp.Minimize(t), constraints).solve(solver="CLARABEL")
        design = xy_optimal_design(n, support)
        assert design.lower_bound <= reference * (1 + 1e-5)
        assert design.value == pytest.approx(reference, rel=1e-4)


@pytest.mark.parametrize("n, k", [(5, 2), (7, 3), (8, 3)])
def test_symmetric_supports_give_the_uniform_design(n, k):
    # Cyclic windows and the whole class are invariant under a transitive group of arm
    # permutations, and the problem is convex, so the uniform design is optimal.
    whole = list(itertools.combinations(range(n), k))
    design = xy_optimal_design(n, whole)
    np.testing.assert_allclose(design.weights, 1.0 / len(whole), rtol=1e-3)
    # A = a I + b J on the whole class: every swap variance is 2 / a, a = C(n-2, k-1) / C(n, k)
    assert design.value == pytest.approx(2 * math.comb(n, k) / math.comb(n - 2, k - 1), rel=1e-9)
    windows = cyclic_windows(n, k)
    design = xy_optimal_design(n, windows)
    assert design.value == pytest.approx(xy_objective(n, windows, np.full(n, 1.0 / n)), rel=1e-6)


def test_a_tighter_tolerance_is_certified():
    support = random_support(10, 4, seed=2, size=40)
    design = xy_optimal_design(10, support, tolerance=1e-6)
    assert design.gap <= 1e-6


def test_allocation_returns_the_design_weights():
    support = random_support(8, 3, seed=4, size=24)
    np.testing.assert_array_equal(xy_optimal_allocation(8, support), xy_optimal_design(8, support).weights)


@pytest.mark.parametrize("support, message", [([(0, 1), (1, 2), (2, 3), (0, 3)], "spans rank 3"),
                                              ([], "must not be empty")])
def test_bad_supports_raise(support, message):
    with pytest.raises(InvalidParameterError, match=message):
        xy_optimal_design(4, support)


@pytest.mark.parametrize("tolerance", [0.0, 1.0, -0.1])
def test_bad_tolerance_raises(tolerance):
    with pytest.raises(InvalidParameterError, match="tolerance"):
        xy_optimal_design(4, list(itertools.combinations(range(4), 2)), tolerance=tolerance)


def test_bad_weights_raise():
    support = list(itertools.combinations(range(4), 2))
    with pytest.raises(InvalidParameterError, match="weights"):
        xy_objective(4, support, np.ones(5))
    with pytest.raises(InvalidParameterError, match="weights"):
        xy_objective(4, support, [1, 1, 1, 1, 1, -1])
    with pytest.raises(InvalidParameterError, match="direction_weights"):
        xy_lower_bound(4, support, np.ones(6), np.ones((3, 3)))
    with pytest.raises(InvalidParameterError, match="at least one swap"):
        xy_lower_bound(4, support, np.ones(6), np.eye(4))


# --- in the static algorithms -------------------------------------------------------------------

def test_proportions_drop_only_negligible_members_while_spanning():
    n, k = 9, 3
    arms = random_support(n, k, seed=6, size=36)
    kept, weights = _proportions(n, arms, "xy-optimal")
    full = xy_optimal_allocation(n, arms)
    expected = [arm for arm, w in zip(arms, full, strict=True) if w >= G_OPTIMAL_DROP * full.max()]
    assert kept == expected and len(kept) < len(arms)  # something is dropped here
    assert np.linalg.matrix_rank(design_matrix(n, kept)) == n
    np.testing.assert_allclose(weights, full[full >= G_OPTIMAL_DROP * full.max()])


def test_icb_with_the_xy_allocation_stops_with_the_right_answer():
    theta = [0.9, 0.85, 0.8, 0.3, 0.2, 0.1, 0.5, 0.45]
    environment = fb.GaussianSum(theta, sigma=0.5, seed=1)
    algorithm = fb.ICB(fb.TopK(8, 3), epsilon=0.0, delta=0.05, seed=2, allocation="xy-optimal", support="random")
    result = fb.run(algorithm, environment, progress=False)
    assert result.stop_reason == "stopping rule"
    assert result.answer == (0, 1, 2)
    assert result.constants["allocation"] == "xy-optimal"
    # the proportions in use are the XY-optimal design over the members kept
    support = list(algorithm.support_arms)
    assert xy_objective(8, support, algorithm._proportions / algorithm._proportions.sum()) <= \
        1.001 * xy_optimal_design(8, support).value


@pytest.mark.slow
@pytest.mark.parametrize("n, k, factor", [(111, 10, 4), (120, 2, 4), (120, 3, 8)])
def test_large_supports_are_certified(n, k, factor):
    support = random_support(n, k, seed=0, size=factor * n)
    design = xy_optimal_design(n, support)
    assert design.gap <= XY_TOLERANCE
    assert design.value < xy_objective(n, support, np.full(len(support), 1.0 / len(support)))
