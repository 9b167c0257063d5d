"""Tests for fullbandit.linalg.radius, .least_squares and .static_design: the confidence radius C_t and least
squares over a static design.

Statistical tests are seeded; each states its number of runs and a tolerance chosen so
that a correct implementation fails with probability < 1e-6 for a random seed.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from fullbandit.linalg.least_squares import LeastSquaresEstimate, SingularDesignError
from fullbandit.linalg.radius import confidence_radius
from fullbandit.linalg.static_design import StaticDesign
from fullbandit.util.validation import InvalidParameterError

# --- confidence_radius ---------------------------------------------------------------------

def paper_formula(t, delta, R, X):
    return 2 * math.sqrt(2) * R * math.sqrt(math.log(6 * t ** 2 * X / (math.pi ** 2 * delta)))


def tight_formula(t, delta, R, X):
    return R * math.sqrt(2 * math.log(math.pi ** 2 * t ** 2 * X / (3 * delta)))


GRID = list(itertools.product([1, 2, 17, 1000, 10 ** 6], [1e-6, 0.01, 0.05, 0.1, 0.5],
                              [0.1, 0.5, 1.0, 3.7], [1, 2, 20, 190, 10 ** 12]))


@pytest.mark.parametrize("t, delta, R, X", GRID[::7] + [(1, 0.05, 1.0, 1), (10 ** 6, 1e-6, 3.7, 10 ** 12)])
def test_confidence_radius_matches_closed_forms(t, delta, R, X):
    assert confidence_radius(t, delta, R, X, confidence="tight") == pytest.approx(tight_formula(t, delta, R, X),
                                                                               rel=1e-12)
    assert confidence_radius(t, delta, R, X) == pytest.approx(tight_formula(t, delta, R, X), rel=1e-12)
    assert confidence_radius(t, delta, R, X, confidence="paper") == pytest.approx(paper_formula(t, delta, R, X),
                                                                               rel=1e-12)


def test_confidence_radius_whole_grid_closed_forms_and_tight_below_paper():
    for t, delta, R, X in GRID:
        tight = confidence_radius(t, delta, R, X, confidence="tight")
        paper = confidence_radius(t, delta, R, X, confidence="paper")
        assert tight == pytest.approx(tight_formula(t, delta, R, X), rel=1e-12)
        assert paper == pytest.approx(paper_formula(t, delta, R, X), rel=1e-12)
        # tight^2 / R^2 = 2 (L + log(pi^2/3)), paper^2 / R^2 = 8 (L + log(6/pi^2)) with
        # L = log(t^2 |X| / delta): tight < paper as soon as L > 1.06, i.e. for every
        # typical (t, delta, |X|); in this grid L >= log(1/0.5) = 0.69 only at t=|X|=1.
        if math.log(t * t * X / delta) > 1.1:
            assert tight < paper


def test_confidence_radius_huge_integer_directions():
    K = math.comb(111, 10)
    X = K * K  # |X| for pairwise directions with n = 111, k = 10 (about 2e27)
    log_X = 2 * math.log(K)
    expected = 1.0 * math.sqrt(2 * (math.log(math.pi ** 2 * 50 ** 2 / (3 * 0.05)) + log_X))
    assert confidence_radius(50, 0.05, 1.0, X) == pytest.approx(expected, rel=1e-12)
    expected_paper = 2 * math.sqrt(2) * math.sqrt(math.log(6 * 50 ** 2 / (math.pi ** 2 * 0.05)) + log_X)
    assert confidence_radius(50, 0.05, 1.0, X, confidence="paper") == pytest.approx(expected_paper, rel=1e-12)
    # far beyond float range: C(2000, 1000)^2 ~ 10^1200; log from lgamma, independently
    big = math.comb(2000, 1000) ** 2
    with pytest.raises(OverflowError):
        float(big)
    log_big = 2 * (math.lgamma(2001) - 2 * math.lgamma(1001))
    expected = math.sqrt(2 * (math.log(math.pi ** 2 / (3 * 0.1)) + log_big))
    assert confidence_radius(1, 0.1, 1.0, big) == pytest.approx(expected, rel=1e-10)


def test_confidence_radius_monotone_and_linear_in_R():
    for confidence in ("tight", "paper"):
        base = confidence_radius(100, 0.05, 1.0, 50, confidence=confidence)
        assert confidence_radius(101, 0.05, 1.0, 50, confidence=confidence) > base
        assert confidence_radius(100, 0.04, 1.0, 50, confidence=confidence) > base
        assert confidence_radius(100, 0.05, 1.0, 51, confidence=confidence) > base
        assert confidence_radius(100, 0.05, 2.5, 50, confidence=confidence) == pytest.approx(2.5 * base, rel=1e-14)


@pytest.mark.parametrize("t", [0, -1, -100])
def test_confidence_radius_bad_t_raises(t):
    with pytest.raises(InvalidParameterError, match=rf"t={t} must satisfy 1 <= t"):
        confidence_radius(t, 0.1, 1.0, 10)


@pytest.mark.parametrize("t", [math.nan, math.inf])
def test_confidence_radius_non_finite_t_raises(t):
    # A NaN/inf round count is a caller error; returning a NaN/inf radius would silently
    # disable (NaN compares False) or freeze a stopping rule.
    with pytest.raises((InvalidParameterError, TypeError)):
        confidence_radius(t, 0.1, 1.0, 10)


@pytest.mark.parametrize("n_directions", [math.nan, math.inf])
def test_confidence_radius_non_finite_directions_raises(n_directions):
    with pytest.raises((InvalidParameterError, TypeError)):
        confidence_radius(10, 0.1, 1.0, n_directions)


@pytest.mark.parametrize("delta", [0.0, 1.0, -0.1, 1.5, math.nan])
def test_confidence_radius_bad_delta_raises(delta):
    with pytest.raises(InvalidParameterError, match=r"delta=.* must"):
        confidence_radius(10, delta, 1.0, 10)


@pytest.mark.parametrize("R", [0.0, -1.0, math.nan, math.inf])
def test_confidence_radius_bad_noise_scale_raises(R):
    with pytest.raises(InvalidParameterError, match="noise_scale"):
        confidence_radius(10, 0.1, R, 10)


@pytest.mark.parametrize("X", [0, -3])
def test_confidence_radius_bad_directions_raises(X):
    with pytest.raises(InvalidParameterError, match=rf"n_directions={X} must satisfy 1 <= n_directions"):
        confidence_radius(10, 0.1, 1.0, X)


def test_confidence_radius_bad_confidence_raises():
    with pytest.raises(InvalidParameterError, match=r"confidence=.loose. is not one of the allowed values"):
        confidence_radius(10, 0.1, 1.0, 10, confidence="loose")
    with pytest.raises(TypeError, match="constant"):  # the old name is gone, not silently ignored
        confidence_radius(10, 0.1, 1.0, 10, constant="tight")


def test_paper_confidence_refuses_a_non_positive_logarithm():
    # 6 t^2 |X| / (pi^2 delta) = 6 / (0.9 pi^2) < 1 at t = |X| = 1: the paper's radius is undefined
    with pytest.raises(InvalidParameterError, match="use confidence='tight'"):
        confidence_radius(1, 0.9, 1.0, 1, confidence="paper")
    assert confidence_radius(1, 0.9, 1.0, 1) == pytest.approx(tight_formula(1, 0.9, 1.0, 1), rel=1e-12)


def test_confidence_radius_type_errors():
    with pytest.raises(TypeError):
        confidence_radius(10, "0.1", 1.0, 10)
    with pytest.raises(TypeError):
        confidence_radius(10, 0.1, "1", 10)


# --- StaticDesign --------------------------------------------------------------------------

def spanning_support(n, k, rng, size):
    while True:
        support = [tuple(sorted(rng.choice(n, size=k, replace=False).tolist())) for _ in range(size)]
        matrix = np.zeros((size, n))
        for row, arm in enumerate(support):
            matrix[row, list(arm)] = 1
        if np.linalg.matrix_rank(matrix) == n:
            return support, matrix


def test_noiseless_rewards_recover_theta_exactly():
    rng = np.random.default_rng(31)
    for _ in range(30):
        n = int(rng.integers(3, 10))
        k = int(rng.integers(1, n))
        support, matrix = spanning_support(n, k, rng, size=int(rng.integers(n, 3 * n)))
        theta = rng.normal(size=n) * 3
        design = StaticDesign(n, support)
        counts = rng.integers(1, 6, size=len(support))
        for member in rng.permutation(np.repeat(np.arange(len(support)), counts)):
            design.record(int(member), float(matrix[member] @ theta))
        estimate = design.estimate()
        assert isinstance(estimate, LeastSquaresEstimate)
        assert estimate.pulls == design.pulls == counts.sum()
        assert np.allclose(estimate.theta, theta, atol=1e-9, rtol=0)
        expected_gram = sum(c * np.outer(x, x) for c, x in zip(counts, matrix, strict=True))
        assert np.array_equal(estimate.gram, expected_gram)
        assert np.allclose(estimate.gram_inverse, np.linalg.inv(expected_gram),
                           rtol=0, atol=1e-9 * np.abs(np.linalg.inv(expected_gram)).max())
        assert np.array_equal(estimate.gram_inverse, estimate.gram_inverse.T)
        x = matrix[0]
        assert estimate.width(x) == pytest.approx(math.sqrt(x @ np.linalg.inv(expected_gram) @ x), rel=1e-9)
        assert design.rank() == n


def test_counts_and_sums_bookkeeping():
    design = StaticDesign(3, [(0, 1), (1, 2), (0, 2)])
    for member, reward in [(0, 1.5), (0, 2.5), (2, -1.0)]:
        design.record(member, reward)
    assert design.counts.tolist() == [2, 0, 1]
    assert design.reward_sums.tolist() == [4.0, 0.0, -1.0]
    assert design.pulls == 3
    assert design.rank() == 2  # member 1 not pulled yet


@pytest.mark.slow
def test_least_squares_unbiased_with_gaussian_noise():
    # Fixed design (n = 5, k = 2, 8 support members, 40 pulls per run), noise N(0, R^2).
    # theta_hat_i ~ N(theta_i, R^2 (A^-1)_ii) exactly, so the mean over M = 2000 runs has
    # standard error R sqrt((A^-1)_ii / M); tolerance 5.5 standard errors per coordinate,
    # two-sided 3.8e-8 each, 5 coordinates: failure probability < 2e-7.
    rng = np.random.default_rng(41)
    n, k, R, runs = 5, 2, 0.8, 2000
    support, matrix = spanning_support(n, k, rng, size=8)
    sequence = np.concatenate([np.arange(8), rng.integers(0, 8, size=32)])  # fixed before any reward
    theta = rng.uniform(-1, 1, size=n)
    noise_rng = np.random.default_rng(42)
    estimates = np.empty((runs, n))
    for run in range(runs):
        design = StaticDesign(n, support)
        noise = R * noise_rng.standard_normal(sequence.size)
        for s, member in enumerate(sequence):
            design.record(int(member), float(matrix[member] @ theta + noise[s]))
        estimate = design.estimate()
        estimates[run] = estimate.theta
    inverse = estimate.gram_inverse
    standard_errors = R * np.sqrt(np.diag(inverse) / runs)
    assert np.all(np.abs(estimates.mean(axis=0) - theta) <= 5.5 * standard_errors)
    # The spread matches the width: (runs - 1) s_i^2 / (R^2 (A^-1)_ii) ~ chi2(runs - 1);
    # tails 5e-8 each, 5 coordinates: failure probability 5e-7.
    statistic = (runs - 1) * estimates.var(axis=0, ddof=1) / (R ** 2 * np.diag(inverse))
    assert np.all(statistic >= stats.chi2.ppf(5e-8, runs - 1))
    assert np.all(statistic <= stats.chi2.isf(5e-8, runs - 1))


def _gram_is_singular(n, support):
    matrix = np.zeros((len(support), n))
    for row, arm in enumerate(support):
        matrix[row, list(arm)] = 1
    return np.linalg.matrix_rank(matrix) < n


SINGULAR_SUPPORTS = {
    # arm 3 never appears: the Gram matrix has a zero row
    "missing-arm": (4, [(0, 1), (1, 2), (0, 2)]),
    # edges of the bipartite graph K_{2,3} (sides {0,1} and {2,3,4}): x = (1,1,-1,-1,-1) is
    # orthogonal to every member, rank 4 < 5
    "bipartite-K23": (5, [(0, 2), (0, 3), (0, 4), (1, 2), (1, 3), (1, 4)]),
    # cyclic windows with gcd(n, k) > 1 (e.g. x = (1, -1, 1, -1) is orthogonal to all)
    "cyclic-4-2": (4, [(0, 1), (1, 2), (2, 3), (0, 3)]),
    "cyclic-6-2": (6, [tuple(sorted(((i + j) % 6) for j in range(2))) for i in range(6)]),
    "cyclic-6-3": (6, [tuple(sorted(((i + j) % 6) for j in range(3))) for i in range(6)]),
    "cyclic-6-4": (6, [tuple(sorted(((i + j) % 6) for j in range(4))) for i in range(6)]),
    "cyclic-9-3": (9, [tuple(sorted(((i + j) % 9) for j in range(3))) for i in range(9)]),
    "cyclic-10-8": (10, [tuple(sorted(((i + j) % 10) for j in range(8))) for i in range(10)]),
}


@pytest.mark.parametrize("name", list(SINGULAR_SUPPORTS))
@pytest.mark.parametrize("count_seed", [None, 1, 2, 3])
def test_non_spanning_design_raises_singular_design_error(name, count_seed):
    n, support = SINGULAR_SUPPORTS[name]
    assert _gram_is_singular(n, support)  # the reference says: not identifiable
    design = StaticDesign(n, support)
    counts = (np.ones(len(support), dtype=int) if count_seed is None
              else np.random.default_rng(count_seed).integers(1, 5, size=len(support)))
    for member, count in enumerate(counts):
        for _ in range(count):
            design.record(member, 1.0)
    rank = design.rank()
    assert rank < n
    with pytest.raises(SingularDesignError, match=rf"rank {rank} < n={n}"):
        design.estimate()


def test_unpulled_member_makes_design_singular():
    # the support spans R^3 but only the pulled members count
    design = StaticDesign(3, [(0, 1), (1, 2), (0, 2)])
    with pytest.raises(SingularDesignError, match="rank 0"):
        design.estimate()
    design.record(0, 1.0)
    design.record(1, 1.0)
    with pytest.raises(SingularDesignError, match="rank 2 < n=3") as info:
        design.estimate()
    assert isinstance(info.value, ValueError) and isinstance(info.value, InvalidParameterError)
    design.record(2, 1.0)
    assert np.allclose(design.estimate().theta, [0.5, 0.5, 0.5])


# --- coverage of the confidence bound ---------------------------------------------------------

N_RUNS_COVERAGE = 400
DELTA_COVERAGE = 0.1
# If P(a run violates the bound) <= delta = 0.1, the number of violating runs out of 400 is
# stochastically below Binomial(400, 0.1): the smallest m with P(Binomial(400, 0.1) > m) <= 1e-6
# (m = 71, probability 7.8e-7) bounds it for a correct implementation.
MAX_VIOLATING_RUNS = int(stats.binom.isf(1e-6, N_RUNS_COVERAGE, DELTA_COVERAGE))


@pytest.mark.slow
def test_confidence_bound_coverage_all_super_arms_all_checkpoints():
    # Class: all 20 super-arms of n = 6, k = 3. Fixed design: 9 support members pulled in a
    # sequence drawn once, before any reward (every member first, then a skewed mix).
    # Noise N(0, R^2) is R-sub-Gaussian. A run violates if at some checkpoint t some x has
    # |x.(theta - theta_hat_t)| > C_t ||x||_{A_t^-1}; with |X| = 20 at most delta of runs may.
    # 400 runs; tolerance: at most MAX_VIOLATING_RUNS = 71 violating runs (one-sided binomial, see above).
    n, k, R, delta = 6, 3, 0.7, DELTA_COVERAGE
    rng = np.random.default_rng(2020)
    support, matrix = spanning_support(n, k, rng, size=9)
    proportions = rng.dirichlet(np.ones(9))
    sequence = np.concatenate([np.arange(9), rng.choice(9, size=291, p=proportions)])
    checkpoints = [9, 20, 60, 150, 300]
    X = np.array([[1.0 if i in s else 0.0 for i in range(n)] for s in itertools.combinations(range(n), k)])
    theta = rng.normal(size=n)
    radii = {c: {t: confidence_radius(t, delta, R, len(X), confidence=c) for t in checkpoints}
             for c in ("tight", "paper")}
    violations = {"tight": 0, "paper": 0}
    worst_ratio = 0.0
    noise_rng = np.random.default_rng(2021)
    for _ in range(N_RUNS_COVERAGE):
        design = StaticDesign(n, support)
        noise = R * noise_rng.standard_normal(sequence.size)
        violated = {"tight": False, "paper": False}
        for s, member in enumerate(sequence):
            design.record(int(member), float(matrix[member] @ theta + noise[s]))
            t = s + 1
            if t in radii["tight"]:
                estimate = design.estimate()
                deviations = np.abs(X @ (theta - estimate.theta))
                widths = np.sqrt(np.einsum("ij,jk,ik->i", X, estimate.gram_inverse, X))
                ratio = float(np.max(deviations / widths))
                worst_ratio = max(worst_ratio, ratio / radii["tight"][t])
                for c in violated:
                    violated[c] |= ratio > radii[c][t]
        for c in violated:
            violations[c] += violated[c]
    assert violations["tight"] <= MAX_VIOLATING_RUNS
    assert violations["paper"] <= MAX_VIOLATING_RUNS
    # Sanity of the experiment itself: the deviations are of the order of the widths
    # (a standardised deviation beyond 0.3 C_t somewhere in 400 runs x 100 checks is
    # certain for a correct width; a width inflated 10x would make this fail).
    assert worst_ratio > 0.3


def test_standardised_deviation_is_standard_normal():
    # For a fixed design and Gaussian noise, z = x.(theta_hat - theta) / (R ||x||_{A^-1}) is
    # exactly N(0, 1). 1000 runs: |mean| <= 5.5 / sqrt(1000) (two-sided 3.8e-8) and
    # 999 s^2 within the chi2(999) quantiles at 2.5e-7 per tail.
    rng = np.random.default_rng(77)
    n, k, R, runs = 4, 2, 1.3, 1000
    support, matrix = spanning_support(n, k, rng, size=5)
    sequence = np.concatenate([np.arange(5), rng.integers(0, 5, size=15)])
    theta = rng.normal(size=n)
    x = np.array([1.0, 0.0, 1.0, 0.0])
    noise_rng = np.random.default_rng(78)
    z = np.empty(runs)
    for run in range(runs):
        design = StaticDesign(n, support)
        noise = R * noise_rng.standard_normal(sequence.size)
        for s, member in enumerate(sequence):
            design.record(int(member), float(matrix[member] @ theta + noise[s]))
        estimate = design.estimate()
        z[run] = x @ (estimate.theta - theta) / (R * estimate.width(x))
    assert abs(z.mean()) <= 5.5 / math.sqrt(runs)
    statistic = (runs - 1) * z.var(ddof=1)
    assert stats.chi2.ppf(2.5e-7, runs - 1) <= statistic <= stats.chi2.isf(2.5e-7, runs - 1)


@pytest.mark.parametrize("name", ["radius", "least_squares", "static_design"])
def test_module_examples_run(name):
    import doctest
    import importlib

    module = importlib.import_module(f"fullbandit.linalg.{name}")
    failures, attempted = doctest.testmod(module, verbose=False, report=False)
    assert attempted > 0 and failures == 0


def _geometric_checks(first: int, last: int, growth: float) -> list[int]:
    checks = [first]
    while checks[-1] < last:
        checks.append(max(checks[-1] + 1, math.ceil((1 + growth) * checks[-1])))
    return checks


@pytest.mark.slow
def test_stitched_radius_covers_every_check_and_a_halved_one_does_not():
    # Fixed design: 9 support members of n = 6, k = 3, pulled round robin; the rule is checked
    # on the geometric schedule of the static algorithms (growth 0.05, from 9 to 3,000 pulls:
    # 119 checks). The union is over the 20 super-arms and over the checks (confidence
    # "stitched"). 300 runs, delta = 0.1: a correct radius makes at most
    # binom.isf(1e-6, 300, 0.1) = 58 violating runs with probability 1 - 1e-6. Negative
    # control: half that radius must violate in more runs than that (it does in nearly all).
    n, k, R, delta, runs = 6, 3, 0.7, 0.1, 300
    rng = np.random.default_rng(7)
    support, matrix = spanning_support(n, k, rng, size=9)
    checks = _geometric_checks(9, 3000, 0.05)
    X = np.array([[1.0 if i in s else 0.0 for i in range(n)] for s in itertools.combinations(range(n), k)])
    radii = np.array([confidence_radius(t, delta, R, len(X), "stitched", check=j)
                      for j, t in enumerate(checks, start=1)])
    assert np.all(radii < [confidence_radius(t, delta, R, len(X)) for t in checks])  # never larger than "tight"
    tolerance = int(stats.binom.isf(1e-6, runs, delta))
    noise_rng = np.random.default_rng(8)
    violating = {"stitched": 0, "halved": 0}
    for _ in range(runs):
        noise = R * noise_rng.standard_normal((9, checks[-1] // 9 + 1))
        cumulative = np.cumsum(noise, axis=1)
        worst = 0.0
        for j, t in enumerate(checks):
            counts = np.full(9, t // 9) + (np.arange(9) < t % 9)  # round robin: lowest index first
            gram = matrix.T @ (counts[:, None] * matrix)
            noise_sums = cumulative[np.arange(9), counts - 1]
            inverse = np.linalg.inv(gram)
            error = inverse @ (matrix.T @ noise_sums)  # theta_hat - theta
            widths = np.sqrt(np.einsum("ij,jk,ik->i", X, inverse, X))
            worst = max(worst, float(np.max(np.abs(X @ error) / widths)) / radii[j])
        violating["stitched"] += worst > 1.0
        violating["halved"] += worst > 0.5
    assert violating["stitched"] <= tolerance
    assert violating["halved"] > tolerance
