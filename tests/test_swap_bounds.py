"""The swap-direction bounds (fullbandit.full.swap_bounds) against brute force, and SwapBound's rule.

Soundness is checked the way the proofs argue it: draw a truth ``theta`` inside the
confidence event of a bound (every direction of its union covered by its radius) and check
that the bound is at least the true gap of ``M_hat``. The truths are random points pushed
to the boundary of the event, the ellipsoid points that make one challenger's width exact,
and, on fewer instances, the exact worst case over the event (a linear programme per
challenger).
"""

from __future__ import annotations

import itertools
import math
from functools import cache

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.optimize import linprog
from swap_directions import swap_directions

import fullbandit as fb
from fullbandit.core import registry
from fullbandit.full import ICB, SwapBound
from fullbandit.full.swap_bounds import (
    coupled_swap_terms,
    graded_bound,
    graded_deltas,
    icb_bound,
    max_swaps,
    max_weight_matching,
    n_pair_directions,
    n_swap_directions,
    pair_bound,
    pair_widths,
    projected_lambda_max,
    swap_gains,
    swap_rows,
    team_bound,
)
from fullbandit.linalg.least_squares import LeastSquaresEstimate
from fullbandit.linalg.radius import confidence_radius
from fullbandit.linalg.static_design import StaticDesign

TOLERANCE = 1e-9


# --- enumeration helpers ------------------------------------------------------------------
@cache
def _subsets(n: int, k: int) -> np.ndarray:
    rows = np.zeros((math.comb(n, k), n))
    for row, members in enumerate(itertools.combinations(range(n), k)):
        rows[row, list(members)] = 1.0
    return rows


def _widths(directions: np.ndarray, Q: np.ndarray) -> np.ndarray:
    return np.sqrt(np.clip(np.einsum("ij,jk,ik->i", directions, Q, directions), 0.0, None))


def _true_gaps(thetas: np.ndarray, best, k: int) -> np.ndarray:
    """theta(M*) - theta(M_hat) for each row of ``thetas``."""
    top = -np.sort(-thetas, axis=1)[:, :k].sum(axis=1)
    return top - thetas[:, list(best)].sum(axis=1)


# --- random instances -----------------------------------------------------------------------
def _random_gram_inverse(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    kind = rng.integers(3)
    if kind == 0:  # a static design of k-subsets with random counts, as the algorithms build
        while True:
            support = [tuple(rng.choice(n, size=k, replace=False)) for _ in range(rng.integers(n, 3 * n + 1))]
            matrix = StaticDesign(n, support).matrix
            gram = matrix.T @ (rng.integers(1, 50, size=len(support))[:, None] * matrix)
            if np.linalg.matrix_rank(gram) == n:
                return np.linalg.inv(gram)
    if kind == 1:  # Wishart
        B = rng.normal(size=(n, n + 2))
        return np.linalg.inv(B @ B.T + 1e-3 * np.eye(n)) * rng.uniform(0.01, 1.0)
    # ill-conditioned with a random eigenbasis
    U, _ = np.linalg.qr(rng.normal(size=(n, n)))
    return (U * np.exp(rng.normal(0.0, 2.0, n))) @ U.T * 0.01


def _random_instance(rng: np.random.Generator, max_n: int = 8):
    n = int(rng.integers(2, max_n + 1))
    k = int(rng.integers(1, n))
    theta_hat = rng.normal(0.0, rng.choice([0.01, 0.1, 1.0]), n)
    if rng.random() < 0.3:  # ties
        theta_hat = np.round(theta_hat, 1)
    best = fb.TopK(n, k).best(theta_hat) if rng.random() < 0.8 else \
        tuple(sorted(int(i) for i in rng.choice(n, size=k, replace=False)))  # the bounds hold for any k-subset
    return n, k, theta_hat, _random_gram_inverse(rng, n, k), best


def _truths_on_event(rng, theta_hat, Q, directions, radii, challengers, samples=24):
    """Truths theta with |y.(theta - theta_hat)| <= radius_y ||y||_Q for every direction y given.

    Random perturbations scaled to the boundary of the event, plus for each challenger
    direction y the ellipsoid point C Q y / ||y||_Q, C the smallest radius (inside every
    constraint by Cauchy-Schwarz), which makes y's own constraint tight.
    """
    n = theta_hat.size
    limits = radii * _widths(directions, Q)
    perturbations = rng.normal(size=(samples, n)) * rng.exponential(1.0, size=(samples, n))
    projections = np.abs(directions @ perturbations.T)
    with np.errstate(divide="ignore"):
        scale = np.min(np.where(projections > 0, limits[:, None] / projections, np.inf), axis=0)
    scale = np.where(np.isfinite(scale), scale, 0.0) * np.where(rng.random(samples) < 0.8, 1.0, rng.random(samples))
    points = [perturbations * scale[:, None]]
    norms = _widths(challengers, Q)
    keep = norms > 0
    points.append(radii.min() * (challengers[keep] @ Q) / norms[keep, None])
    return theta_hat + np.concatenate(points)


def _challengers(n: int, k: int, best) -> np.ndarray:
    return _subsets(n, k) - np.isin(np.arange(n), best).astype(float)


# --- counts ---------------------------------------------------------------------------------
@pytest.mark.parametrize("n", range(2, 9))
def test_direction_counts_match_enumeration_for_every_k(n):
    assert n_pair_directions(n) == len(swap_directions(n, 1))
    for m in range(1, n // 2 + 1):
        assert n_swap_directions(n, m) == len(swap_directions(n, m))
    # A union over every possible M_hat and partner would need all of Y_m (independent of k), far more
    # than the C(k, m) C(n - k, m) directed swaps of one fixed optimal team the rules use.
    for k in range(1, n):
        rows = _subsets(n, k)
        for m in range(1, max_swaps(n, k) + 1):
            found = set()
            for a, b in itertools.combinations(range(len(rows)), 2):
                y = rows[a] - rows[b]
                if np.abs(y).sum() == 2 * m:
                    found.add(max(tuple(y), tuple(-y)))
            assert len(found) == n_swap_directions(n, m)
            assert math.comb(k, m) * math.comb(n - k, m) <= len(found)


@pytest.mark.parametrize("m_max", [1, 3, 50])
def test_graded_levels_sum_to_delta_at_most(m_max):
    levels = graded_deltas(0.3, m_max)
    assert levels.size == m_max and levels.sum() == pytest.approx(0.3, rel=1e-12)  # to rounding
    assert np.all(np.diff(levels) < 0)  # the single swaps, which decide most runs, get the most
    assert levels == pytest.approx(0.3 / np.arange(1, m_max + 1) ** 2 / sum(1 / m ** 2 for m in range(1, m_max + 1)))


# --- the pieces against brute force -----------------------------------------------------------
def _brute_matching(weights: np.ndarray) -> float:
    rows, cols = weights.shape
    best = 0.0
    for size in range(1, min(rows, cols) + 1):
        for chosen in itertools.combinations(range(rows), size):
            for targets in itertools.permutations(range(cols), size):
                best = max(best, float(sum(weights[r, c] for r, c in zip(chosen, targets, strict=True))))
    return best


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(arrays(np.float64, st.tuples(st.integers(1, 4), st.integers(1, 5)),
              elements=st.floats(-3.0, 3.0, allow_nan=False, allow_infinity=False)))
def test_matching_equals_brute_force_over_all_pairings(weights):
    value, edges = max_weight_matching(weights)
    assert value == pytest.approx(_brute_matching(weights), abs=1e-12)
    assert len({r for r, _ in edges}) == len(edges) == len({c for _, c in edges})
    assert value == pytest.approx(sum(weights[r, c] for r, c in edges), abs=1e-12)
    assert all(weights[r, c] > 0 for r, c in edges)


def test_pair_bound_equals_brute_force_over_swaps_and_pairings():
    # W = max over M and over pairings of M's swaps of sum g+ (the bound of the proof, by enumeration).
    rng = np.random.default_rng(1)
    for _ in range(200):
        n, k, theta_hat, Q, best = _random_instance(rng)
        radius = rng.uniform(0.0, 3.0)
        widths = pair_widths(Q)
        outside = [j for j in range(n) if j not in best]
        brute = 0.0
        for m in range(1, max_swaps(n, k) + 1):
            for removed in itertools.combinations(best, m):
                for added in itertools.permutations(outside, m):
                    total = sum(max(theta_hat[j] - theta_hat[i] + radius * widths[i, j], 0.0)
                                for i, j in zip(removed, added, strict=True))
                    brute = max(brute, total)
        assert pair_bound(theta_hat, Q, best, radius).value == pytest.approx(brute, abs=1e-12)


def test_swap_gains_and_lambda_bound_against_enumeration():
    rng = np.random.default_rng(2)
    for _ in range(200):
        n, k, theta_hat, Q, best = _random_instance(rng)
        challengers = _challengers(n, k, best)
        swaps = np.abs(challengers).sum(axis=1) // 2
        gains = challengers @ theta_hat
        expected = [gains[swaps == m].max() for m in range(1, max_swaps(n, k) + 1)]
        assert np.allclose(swap_gains(theta_hat, best), expected, atol=1e-12)
        lam = projected_lambda_max(Q)
        for m in range(1, n // 2 + 1):
            assert np.all(_widths(swap_directions(n, m), Q) ** 2 <= 2 * m * lam * (1 + 1e-9) + 1e-15)


def test_row_bound_and_coupled_terms_against_enumeration():
    # sum of r_a over J and I >= ||e_J - e_I||^2 for every swap of M_hat, with equality for a
    # diagonal A^-1; the coupled terms bound T_m = max over m-swaps of gain + C_m width.
    rng = np.random.default_rng(6)
    for trial in range(300):
        n, k, theta_hat, Q, best = _random_instance(rng)
        if trial % 5 == 0:
            Q = np.diag(np.diag(Q))
        m_max = max_swaps(n, k)
        out_rows, in_rows = swap_rows(Q, best)
        assert out_rows.shape == (m_max, n - k) and in_rows.shape == (m_max, k)
        radii = rng.uniform(0.0, 3.0, m_max)
        challengers = _challengers(n, k, best)
        swaps = np.abs(challengers).sum(axis=1).astype(int) // 2
        widths = _widths(challengers, Q)
        outside = [j for j in range(n) if j not in best]
        row_of = {a: (out_rows, outside.index(a)) if a in outside else (in_rows, list(best).index(a)) for a in range(n)}
        for y, m, width in zip(challengers, swaps, widths, strict=True):
            if m == 0:
                continue
            total = sum(row_of[a][0][m - 1, row_of[a][1]] for a in np.flatnonzero(y))
            assert width ** 2 <= total + 1e-12 * (1 + abs(total))
            if trial % 5 == 0:
                assert width ** 2 == pytest.approx(total, rel=1e-12, abs=1e-15)
        coupled = coupled_swap_terms(theta_hat, Q, best, radii)
        exact = [max(challengers[swaps == m] @ theta_hat + radii[m - 1] * widths[swaps == m])
                 for m in range(1, m_max + 1)]
        assert np.all(coupled >= np.array(exact) - 1e-12 * (1 + np.abs(exact)))


def test_icb_bound_is_icbs_statistic():
    rng = np.random.default_rng(3)
    for _ in range(100):
        n, k, theta_hat, Q, _ = _random_instance(rng)
        radius = rng.uniform(0.0, 3.0)
        estimate = LeastSquaresEstimate(theta_hat, np.linalg.inv(Q), Q, pulls=10)
        value, best, _ = ICB(fb.TopK(n, k))._rule(estimate, radius)
        assert icb_bound(theta_hat, Q, best, radius) == pytest.approx(value, abs=1e-12)


# --- soundness: each bound >= the true gap on its confidence event ---------------------------
def _families(n: int, k: int, rng) -> dict:
    """(directions, per-direction radii) of each bound's event, with random radii."""
    m_max = max_swaps(n, k)
    pair_radius = rng.uniform(0.0, 3.0)
    graded_radii = rng.uniform(0.0, 3.0, m_max)
    icb_radius = rng.uniform(0.0, 3.0)
    swaps = [swap_directions(n, m) for m in range(1, m_max + 1)]
    families = {
        "pair": (swap_directions(n, 1), np.full(n_pair_directions(n), pair_radius), pair_radius),
        "graded": (np.concatenate(swaps), np.concatenate([np.full(len(y), c) for y, c in zip(swaps, graded_radii,
                                                                                              strict=True)]),
                   graded_radii),
        "icb": (np.eye(n), np.full(n, icb_radius), icb_radius),
    }
    families["spectral"] = families["graded"]  # the graded rule without the row bound
    return families


def _bound(name: str, theta_hat, Q, best, radius) -> float:
    if name == "pair":
        return pair_bound(theta_hat, Q, best, radius).value
    if name in ("graded", "spectral"):
        return graded_bound(theta_hat, Q, best, radius, rows=name == "graded").value
    return icb_bound(theta_hat, Q, best, radius)


@pytest.mark.slow
def test_each_bound_is_at_least_the_true_gap_on_its_event():
    rng = np.random.default_rng(4)
    checked = 0
    for _ in range(1500):
        n, k, theta_hat, Q, best = _random_instance(rng)
        challengers = _challengers(n, k, best)
        for name, (directions, radii, radius) in _families(n, k, rng).items():
            bound = _bound(name, theta_hat, Q, best, radius)
            truths = _truths_on_event(rng, theta_hat, Q, directions, radii, challengers)
            # every truth drawn is on the event (within rounding) ...
            slack = radii[:, None] * _widths(directions, Q)[:, None] - np.abs(directions @ (truths - theta_hat).T)
            assert slack.min() >= -1e-9 * (1.0 + np.abs(truths).max())
            # ... and the bound covers its gap
            gaps = _true_gaps(truths, best, k)
            assert np.all(bound >= gaps - TOLERANCE * (1.0 + abs(bound))), \
                f"{name}: bound {bound} < gap {gaps.max()} (n={n}, k={k}, best={best})"
            checked += len(truths)
    assert checked > 50_000


def _worst_gap(theta_hat, Q, best, k, directions, radii) -> float:
    """max over theta on the event of theta(M*) - theta(M_hat): one LP per challenger M."""
    limits = radii * _widths(directions, Q)
    constraints = np.concatenate([directions, -directions])
    bounds = np.concatenate([limits, limits])
    worst = 0.0
    for y in _challengers(theta_hat.size, k, best):
        if not y.any():
            continue
        solution = linprog(-y, A_ub=constraints, b_ub=bounds, bounds=(None, None), method="highs")
        assert solution.status == 0, solution.message
        worst = max(worst, float(y @ theta_hat - solution.fun))
    return worst


@pytest.mark.slow
def test_each_bound_covers_the_exact_worst_case_of_its_event():
    rng = np.random.default_rng(5)
    ratios: dict[str, list[float]] = {"pair": [], "graded": [], "spectral": [], "icb": []}
    for _ in range(40):
        n, k, theta_hat, Q, best = _random_instance(rng, max_n=6)  # n <= 6 keeps the LP count small
        for name, (directions, radii, radius) in _families(n, k, rng).items():
            bound = _bound(name, theta_hat, Q, best, radius)
            worst = _worst_gap(theta_hat, Q, best, k, directions, radii)
            assert bound >= worst - 1e-7 * (1.0 + abs(worst)), f"{name}: bound {bound} < worst case {worst}"
            if bound > 0:
                ratios[name].append(worst / bound)
    # Sharpness of the check: on some instances the worst case over the event attains each bound,
    # so a bound that undercut its proof by any margin would be caught here.
    assert all(max(values) > 0.999 for values in ratios.values()), {k: max(v) for k, v in ratios.items()}


# --- the algorithm's rule -------------------------------------------------------------------
def _estimate(n: int, k: int, seed: int):
    rng = np.random.default_rng(seed)
    algorithm = SwapBound(fb.TopK(n, k), noise_scale=0.7, delta=0.09, support="random",
                          confidence="tight", seed=seed)
    environment = fb.GaussianSum(rng.uniform(0, 1, n), sigma=0.7, seed=seed)
    algorithm.setup()
    while not algorithm.done and algorithm.n_pulls < 40 * n:
        pull = algorithm.ask(1 << 20)
        algorithm.tell(pull, environment.pull(pull.arms, count=pull.count))
    return algorithm, algorithm.stopping_check()


@pytest.mark.parametrize("n, k", [(6, 2), (9, 4), (12, 7)])
def test_rule_uses_the_directed_radii_and_stops_on_the_team_bound(n, k):
    algorithm, check = _estimate(n, k, seed=n)
    t, details, R, delta = check.pulls, check.details, 0.7, 0.09
    estimate = check.estimate
    levels = graded_deltas(delta, max_swaps(n, k))
    # One-sided unions over the C(k, m) C(n - k, m) directions to a fixed optimal team, by hand for m = 1.
    assert details["C_pair"] == pytest.approx(
        R * math.sqrt(2 * math.log(math.pi ** 2 * t * t * k * (n - k) / (6 * levels[0]))), rel=1e-12)
    radii = [confidence_radius(t, float(level), R, math.comb(k, m) * math.comb(n - k, m), one_sided=True)
             for m, level in enumerate(levels, start=1)]
    best = algorithm.problem.best(estimate.theta)
    Q = estimate.gram_inverse
    expected = team_bound(estimate.theta, Q, best, radii)
    assert check.gap_bound == pytest.approx(expected.value, rel=1e-12, abs=1e-12)
    assert check.answer == best and details["binding_swaps"] == expected.swaps
    # Combining the rules per swap size is never worse than either rule alone.
    assert check.gap_bound <= min(pair_bound(estimate.theta, Q, best, radii[0]).value,
                                  graded_bound(estimate.theta, Q, best, radii).value) + 1e-12
    union = sum(math.comb(k, m) * math.comb(n - k, m) for m in range(1, max_swaps(n, k) + 1))
    assert algorithm.constants()["union_bound"] == union


@pytest.mark.parametrize("rules", ["pair", "graded", "all"])
def test_the_levels_of_each_rule(rules):
    algorithm = registry.build("swap", fb.TopK(7, 3), rules=rules, delta=0.05, noise_scale=1.0)
    expected = [0.05] if rules == "pair" else graded_deltas(0.05, 3).tolist()
    assert algorithm.levels().tolist() == pytest.approx(expected, rel=1e-15)
    assert sum(expected) <= 0.05
    directions = [math.comb(3, m) * math.comb(4, m) for m in range(1, len(expected) + 1)]
    assert algorithm.setup().constants()["union_bound"] == sum(directions)


def test_swap_is_certified_top_k_only():
    spec = registry.get("swap")
    assert (spec.guarantee, spec.feedback, spec.setting) == ("certified", "full", "fixed-confidence")
    assert spec.supports(fb.TopK(5, 2)) and not spec.supports(fb.PartitionMatroid((0, 0, 1, 1), (1, 1), 2))
