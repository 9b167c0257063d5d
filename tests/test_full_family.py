"""SA-FOA, ICB, Exhaustive and G-allocation against brute force and closed forms."""

import itertools
import math

import numpy as np
import pytest

import fullbandit as fb
from fullbandit.design.goptimal import g_optimal_allocation, kiefer_wolfowitz_variances
from fullbandit.design.rounding import efficient_rounding
from fullbandit.design.support import random_support
from fullbandit.full.gap_objective import exact_maximum, gap_value, triangle_bound


def _plain_objective(theta, Q, best, radius, arms):
    """theta(M) - theta(M_hat) + C ||x_M - x_M_hat||_Q for one super-arm, written out."""
    y = np.zeros(len(theta))
    y[list(arms)] += 1.0
    y[list(best)] -= 1.0
    return theta[list(arms)].sum() - theta[list(best)].sum() + radius * math.sqrt(y @ Q @ y)


def _brute_force_objective(problem, theta, Q, best, radius):
    """max over the class of the objective (5), by a plain loop."""
    return max(_plain_objective(theta, Q, best, radius, arms)
               for arms in itertools.combinations(range(problem.n), problem.k) if problem._is_member(arms) is None)


def _random_estimate(n, seed):
    rng = np.random.default_rng(seed)
    B = rng.standard_normal((n, n))
    return rng.uniform(0, 1, n), B @ B.T / n + 0.05 * np.eye(n)


@pytest.mark.parametrize("seed", range(8))
def test_exhaustive_statistic_equals_brute_force_objective(seed):
    n, k = 8, 3
    theta, Q = _random_estimate(n, seed)
    problem = fb.TopK(n, k)
    best = problem.best(theta)
    arm, value = exact_maximum(problem, theta, Q, best, 0.7)
    assert value == pytest.approx(_brute_force_objective(problem, theta, Q, best, 0.7))
    assert _plain_objective(theta, Q, best, 0.7, arm) == pytest.approx(value)  # the arm returned attains it
    for arms in itertools.combinations(range(n), k):
        assert gap_value(theta, Q, best, 0.7, arms) == pytest.approx(_plain_objective(theta, Q, best, 0.7, arms))


def _checks_of(algorithm, environment):
    """Run with ask/tell and yield (check, estimate, radius) at every stopping check."""
    seen = 0
    while not algorithm.done:
        pull = algorithm.ask()
        algorithm.tell(pull, environment.pull(pull.arms))
        if algorithm.n_checks > seen:
            seen = algorithm.n_checks
            check = algorithm.last_check
            yield check, check.estimate, check.details["C_t"]


@pytest.mark.parametrize("seed", range(3))
def test_certified_safoa_bounds_the_exact_maximum_and_the_heuristic_stays_below_it(seed):
    theta = np.array([0.9, 0.85, 0.8, 0.5, 0.45, 0.4, 0.3, 0.1])
    problem = fb.TopK(8, 3)
    checked = 0
    for mode in ("certified", "heuristic"):
        algorithm = fb.SAFOA(problem, mode=mode, epsilon=0.05, noise_scale=0.3, seed=seed, budget=20_000,
                             support="random")
        for check, estimate, radius in _checks_of(algorithm, fb.GaussianSum(theta, sigma=0.3, seed=seed + 10)):
            best = problem.best(estimate.theta)
            exact = _brute_force_objective(problem, estimate.theta, estimate.gram_inverse, best, radius)
            statistic = check.gap_bound
            if mode == "certified":
                assert statistic >= exact - 1e-9
            else:
                assert statistic <= exact + 1e-9
            checked += 1
    assert checked > 20


def test_triangle_bound_dominates_the_objective_on_a_partition_matroid():
    problem = fb.PartitionMatroid(groups=(0, 0, 0, 1, 1, 1, 2, 2), capacities=(1, 2, 1), k=3)
    for seed in range(10):
        theta, Q = _random_estimate(8, seed)
        best = problem.best(theta)
        assert triangle_bound(problem, theta, Q, best, 0.5) >= _brute_force_objective(problem, theta, Q, best, 0.5)


def test_partition_matroid_greedy_is_the_brute_force_best_feasible_team():
    problem = fb.PartitionMatroid(groups=(0, 0, 0, 1, 1, 2, 2, 2, 2), capacities=(2, 1, 1), k=4)
    rng = np.random.default_rng(0)
    feasible = [arms for arms in itertools.combinations(range(9), 4) if problem._is_member(arms) is None]
    assert problem.size == len(feasible)
    for _ in range(50):
        theta = rng.uniform(size=9)
        brute = max(feasible, key=lambda arms: theta[list(arms)].sum())
        assert problem.best(theta) == brute


def test_icb_on_a_partition_matroid_returns_the_best_feasible_team():
    # The unconstrained top 2 are both in group 0; at most one of them may be chosen.
    theta = np.array([0.95, 0.9, 0.85, 0.6, 0.3, 0.55, 0.2])
    problem = fb.PartitionMatroid(groups=(0, 0, 0, 1, 1, 2, 2), capacities=(1, 1, 1), k=2)
    feasible = [arms for arms in itertools.combinations(range(7), 2) if problem._is_member(arms) is None]
    brute = max(feasible, key=lambda arms: theta[list(arms)].sum())
    for seed in range(5):
        result = fb.run(fb.ICB(problem, epsilon=0.0, seed=seed), fb.GaussianSum(theta, sigma=0.2, seed=seed),
                        progress=False)
        assert result.stop_reason == "stopping rule"
        assert result.answer == brute == (0, 3)
        assert fb.TopK(7, 2).best(theta) == (0, 1)  # what ignoring the constraint would give


def test_icb_objective_is_the_exact_maximum_of_its_linear_bound():
    problem = fb.TopK(7, 3)
    theta, Q = _random_estimate(7, 3)
    algorithm = fb.ICB(problem, noise_scale=1.0, seed=0).setup()
    from fullbandit.linalg.least_squares import LeastSquaresEstimate
    estimate = LeastSquaresEstimate(theta=theta, gram=np.linalg.inv(Q), gram_inverse=Q, pulls=10)
    objective, _, _ = algorithm._rule(estimate, 0.4)
    best = problem.best(theta)
    beta = 0.4 * np.sqrt(np.diag(Q))
    brute = max(theta[list(a)].sum() - theta[list(best)].sum() + beta[list(set(a) ^ set(best))].sum()
                for a in itertools.combinations(range(7), 3))
    assert objective == pytest.approx(brute)


def test_exhaustive_refuses_large_classes_clearly():
    with pytest.raises(ValueError, match=r"Exhaustive enumerates all 3268760 super-arms of n=25, k=10"):
        fb.Exhaustive(fb.TopK(25, 10), limit=1_000_000, noise_scale=1.0).ask()


@pytest.mark.parametrize("n, k, seed", [(6, 2, 0), (9, 3, 1), (12, 4, 2), (20, 5, 3)])
def test_g_allocation_satisfies_kiefer_wolfowitz(n, k, seed):
    support = random_support(n, k, seed)
    weights = g_optimal_allocation(n, support)
    X = np.zeros((len(support), n))
    for row, arm in enumerate(support):
        X[row, list(arm)] = 1
    variances = kiefer_wolfowitz_variances(X, weights)
    # x^T A(p)^-1 x for every row, one row at a time
    inverse = np.linalg.inv(X.T @ (weights[:, None] * X))
    np.testing.assert_allclose(variances, [x @ inverse @ x for x in X], rtol=1e-9)
    # sum_j p_j x_j^T A(p)^-1 x_j = trace(A(p)^-1 A(p)) = n for any weights; on the simplex the
    # largest variance is then >= n, and G-optimality is max = n, attained wherever p_j > 0
    # (weights of the wrong scale would miss n on the support)
    assert weights @ variances == pytest.approx(n, rel=1e-9)
    assert variances.max() <= n * (1 + 1e-5)
    assert variances[weights > 1e-3].min() >= n * (1 - 1e-3)


def test_g_allocation_on_all_subsets_is_uniform():
    # By symmetry the uniform distribution over all k-subsets is G-optimal for the top-k class.
    support = list(itertools.combinations(range(6), 2))
    assert g_optimal_allocation(6, support) == pytest.approx(np.full(15, 1 / 15), abs=1e-4)


@pytest.mark.parametrize("weights, total", [([0.5, 0.3, 0.2], 10), ([1 / 3] * 3, 10), ([0.7, 0.2, 0.1, 0.0], 7),
                                            ([0.05] * 20, 33), ([0.9, 0.05, 0.05], 5)])
def test_efficient_rounding_gives_exactly_n_pulls_and_the_apportionment_property(weights, total):
    counts = efficient_rounding(weights, total)
    w = np.asarray(weights) / np.sum(weights)
    assert counts.sum() == total
    assert np.all(counts[w == 0] == 0) and np.all(counts[w > 0] >= 1)
    positive = w > 0
    assert np.max((counts[positive] - 1) / w[positive]) <= np.min(counts[positive] / w[positive]) + 1e-12


def test_efficient_rounding_matches_the_textbook_example():
    # ceil((N - p/2) w) then adjust: for w = (1/2, 1/3, 1/6), N = 7: ceil(5.5 w) = (3, 2, 1), sum 6 < 7,
    # increase argmin m/w = (6, 6, 6) -> first index: (4, 2, 1).
    assert efficient_rounding([1 / 2, 1 / 3, 1 / 6], 7).tolist() == [4, 2, 1]


def test_rounding_rejects_bad_input():
    with pytest.raises(ValueError, match="total=2 must be at least the number of positive weights"):
        efficient_rounding([0.5, 0.3, 0.2], 2)
    with pytest.raises(ValueError, match="weights must be"):
        efficient_rounding([0.5, -0.3], 5)


@pytest.mark.parametrize("name", ["saqm", "icb", "safoa", "exhaustive"])
def test_g_optimal_allocation_runs_and_stays_correct(name):
    theta = np.array([1.0, 0.9, 0.5, 0.4, 0.3, 0.2, 0.1])
    algorithm = fb.registry.build(name, fb.TopK(7, 2), epsilon=0.05, seed=2, allocation="g-optimal",
                                         support="random")
    result = fb.run(algorithm, fb.GaussianSum(theta, sigma=0.2, seed=1), progress=False)
    assert result.stop_reason == "stopping rule" and result.answer == (0, 1)
    assert result.constants["allocation"] == "g-optimal"


@pytest.mark.parametrize("module", ["fullbandit.full.gap_objective", "fullbandit.datasets.instances"])
def test_module_examples_run(module):
    import doctest
    import importlib
    failures, attempted = doctest.testmod(importlib.import_module(module), verbose=False, report=False)
    assert attempted > 0 and failures == 0
