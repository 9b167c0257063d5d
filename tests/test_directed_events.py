"""The directed confidence events and the per-swap-size team bound (fullbandit.full.swap_bounds), against enumeration.

The rules need, for one fixed optimal team ``M*``, only the one-sided events
``(x_M* - x_M) . (theta - theta_hat) <= C_m ||x_M* - x_M||_{A^-1}`` (``m = |M* \\ M|``). The
soundness test draws truths ``theta``, finds their optimal team, keeps those on which these
events hold (including truths that make an event tight) and checks that every team's bound
covers its true gap; the same test with the radii halved must find a violation (it can fail).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

import fullbandit as fb
from fullbandit.full.swap_bounds import (
    exact_swap_terms,
    graded_bound,
    max_swaps,
    n_directed_swaps,
    pair_bound,
    pair_gains,
    pair_terms,
    team_bound,
)


def _teams(n: int, k: int) -> list[tuple[int, ...]]:
    return list(itertools.combinations(range(n), k))


def _indicator(n: int, team) -> np.ndarray:
    row = np.zeros(n)
    row[list(team)] = 1.0
    return row


def _gram_inverse(rng, n: int, k: int) -> np.ndarray:
    while True:
        support = [rng.choice(n, size=k, replace=False) for _ in range(int(rng.integers(n, 3 * n + 1)))]
        X = np.array([_indicator(n, member) for member in support])
        A = X.T @ (rng.integers(1, 20, size=len(support))[:, None] * X)
        if np.linalg.matrix_rank(A) == n:
            return np.linalg.inv(A)


def _random_case(rng, max_n: int, *, empirical_best: bool = False):
    """``(n, k, theta_hat, A^-1, team)``: a random size, estimate, design and team (the empirical best if asked)."""
    n = int(rng.integers(2, max_n + 1))
    k = int(rng.integers(1, n))
    theta, Q = rng.normal(size=n), _gram_inverse(rng, n, k)
    team = fb.TopK(n, k).best(theta) if empirical_best else \
        tuple(sorted(int(i) for i in rng.choice(n, size=k, replace=False)))
    return n, k, theta, Q, team


@pytest.mark.parametrize("n", range(2, 9))
def test_directed_counts_match_enumeration(n):
    for k in range(1, n):
        teams = _teams(n, k)
        for star in teams[:: max(1, len(teams) // 4)]:
            for m in range(1, max_swaps(n, k) + 1):
                found = {tuple(_indicator(n, star) - _indicator(n, team)) for team in teams
                         if len(set(star) - set(team)) == m}
                assert len(found) == n_directed_swaps(n, k, m)


def test_pair_terms_are_the_best_matchings_of_each_size():
    rng = np.random.default_rng(11)
    for _ in range(150):
        _, _, theta, Q, team = _random_case(rng, 7)
        radius = rng.uniform(0.0, 3.0)
        gains, _, _ = pair_gains(theta, Q, team, radius)
        rows, cols = gains.shape
        brute = []
        for m in range(1, min(rows, cols) + 1):
            brute.append(max(sum(gains[r, c] for r, c in zip(chosen, targets, strict=True))
                             for chosen in itertools.combinations(range(rows), m)
                             for targets in itertools.permutations(range(cols), m)))
        assert pair_terms(theta, Q, team, radius) == pytest.approx(brute, abs=1e-10)
        assert pair_bound(theta, Q, team, radius).value == pytest.approx(max(0.0, max(brute)), abs=1e-10)


def test_exact_terms_are_the_maximum_over_the_swaps_of_each_size():
    rng = np.random.default_rng(12)
    for _ in range(150):
        n, k, theta, Q, team = _random_case(rng, 8)
        radii = rng.uniform(0.0, 3.0, max_swaps(n, k))
        base = _indicator(n, team)
        brute = np.full(radii.size, -np.inf)
        for other in _teams(n, k):
            y = _indicator(n, other) - base
            m = int(np.abs(y).sum()) // 2
            if m:
                brute[m - 1] = max(brute[m - 1], y @ theta + radii[m - 1] * math.sqrt(max(y @ Q @ y, 0.0)))
        assert exact_swap_terms(theta, Q, team, radii) == pytest.approx(brute, abs=1e-10)


def _directed_event_holds(theta, theta_hat, Q, radii, k) -> bool:
    n = theta.size
    star = _indicator(n, np.argsort(-theta, kind="stable")[:k])
    for team in _teams(n, k):
        y = star - _indicator(n, team)
        m = int(np.abs(y).sum()) // 2
        if m and y @ (theta - theta_hat) > radii[m - 1] * math.sqrt(max(y @ Q @ y, 0.0)) + 1e-10:
            return False
    return True


def _truths(rng, theta_hat, Q, radii, team, k, samples=12) -> list[np.ndarray]:
    """Random truths near the estimate, and truths that make one directed event from ``team`` tight."""
    n = theta_hat.size
    truths = [theta_hat + rng.normal(size=n) * math.sqrt(np.diag(Q).mean()) * rng.uniform(0.1, 3.0)
              for _ in range(samples)]
    base = _indicator(n, team)
    for other in _teams(n, k):
        y = _indicator(n, other) - base
        m = int(np.abs(y).sum()) // 2
        if m:
            width = math.sqrt(max(y @ Q @ y, 0.0))
            if width > 0:
                truths.append(theta_hat + radii[m - 1] * (Q @ y) / width)
    return truths


def _covered(rng, trials: int, radius_factor: float) -> tuple[int, int, float]:
    """(truths on the directed event checked, bound violations, largest gap / bound) for team_bound."""
    checked, violations, sharpest = 0, 0, 0.0
    for _ in range(trials):
        n = int(rng.integers(3, 8))
        k = int(rng.integers(1, n))
        theta_hat, Q = rng.normal(0.0, 0.3, n), _gram_inverse(rng, n, k)
        radii = np.sort(rng.uniform(0.5, 3.0, max_swaps(n, k)))
        team = tuple(sorted(int(i) for i in (np.argsort(-theta_hat)[:k] if rng.random() < 0.7
                                             else rng.choice(n, size=k, replace=False))))
        bound = team_bound(theta_hat, Q, team, radii * radius_factor).value
        for theta in _truths(rng, theta_hat, Q, radii, team, k):
            if not _directed_event_holds(theta, theta_hat, Q, radii, k):
                continue
            checked += 1
            gap = float(np.sort(theta)[::-1][:k].sum() - theta[list(team)].sum())
            violations += gap > bound + 1e-9 * (1.0 + abs(bound))
            if bound > 0:
                sharpest = max(sharpest, gap / bound)
    return checked, violations, sharpest


def test_every_team_bound_covers_its_gap_on_the_directed_events():
    checked, violations, sharpest = _covered(np.random.default_rng(13), trials=120, radius_factor=1.0)
    assert checked > 1000 and violations == 0
    assert sharpest > 0.999  # some truth on the events attains the bound: a bound below its proof would be caught


def test_negative_control_halved_radii_do_not_cover():
    _, violations, _ = _covered(np.random.default_rng(13), trials=120, radius_factor=0.5)
    assert violations > 0


def test_the_combination_is_never_above_either_rule():
    rng = np.random.default_rng(14)
    for _ in range(200):
        n, k, theta, Q, team = _random_case(rng, 9, empirical_best=True)
        radii = np.sort(rng.uniform(0.0, 3.0, max_swaps(n, k)))
        combined = team_bound(theta, Q, team, radii).value
        pair = pair_bound(theta, Q, team, float(radii[0])).value
        graded = graded_bound(theta, Q, team, radii).value
        assert combined <= min(pair, graded) + 1e-12
        # Not bounded below by the exact terms: a pair term at C_1 may undercut an exact one at C_m > C_1
        # (the soundness test above is what the combination must pass).


def test_team_bound_refuses_unknown_rules():
    with pytest.raises(ValueError, match="rules must be"):
        team_bound([1.0, 0.0], np.eye(2), (0,), [1.0], rules=("pairs",))
