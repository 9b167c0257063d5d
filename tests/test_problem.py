"""Tests for fullbandit.problems.classes (the top-k decision class), against brute force over all k-subsets."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fullbandit.problems.classes import TopK
from fullbandit.util.validation import InvalidParameterError

# --- brute-force references written independently of the module -------------------------

def brute_best(theta, k):
    """Max of theta(M) over all k-subsets; among maximisers the lexicographically first tuple.

    itertools.combinations enumerates in lexicographic order and we keep the first strict
    maximum. With ties in theta, "ties go to the lower index" selects exactly the
    lexicographically smallest optimal subset (choosing the lowest indices among the tied
    arms at the boundary makes every sorted position as small as possible).
    """
    best, best_value = None, -math.inf
    for subset in itertools.combinations(range(len(theta)), k):
        value = sum(theta[i] for i in subset)
        if value > best_value:
            best, best_value = subset, value
    return best, best_value


def brute_runner_up_value(theta, k, best):
    return max(sum(theta[i] for i in s) for s in itertools.combinations(range(len(theta)), k) if s != best)


# Integer-valued thetas make every subset sum exact, so ties are true ties.
int_theta = st.integers(min_value=3, max_value=8).flatmap(
    lambda n: st.tuples(st.just(n), st.lists(st.integers(-3, 3), min_size=n, max_size=n),
                        st.integers(1, n - 1)))


@settings(max_examples=150, deadline=None)
@given(int_theta)
def test_best_matches_brute_force_with_ties(case):
    n, theta, k = case
    problem = TopK(n, k)
    expected, expected_value = brute_best(theta, k)
    assert problem.best(theta) == expected
    assert problem.maximize(theta) == expected
    assert problem.value(problem.best(theta), theta) == expected_value


@settings(max_examples=150, deadline=None)
@given(int_theta)
def test_runner_up_value_matches_brute_force_with_ties(case):
    n, theta, k = case
    problem = TopK(n, k)
    best, runner_up = problem.best_and_runner_up(theta)
    assert best == brute_best(theta, k)[0]
    assert runner_up != best
    assert runner_up == problem.check_super_arm(runner_up)  # a valid sorted k-subset
    assert problem.value(runner_up, theta) == brute_runner_up_value(theta, k, best)


def test_best_and_runner_up_exact_subsets_without_ties():
    # Continuous random theta: no ties almost surely, so the maximisers are unique.
    rng = np.random.default_rng(12345)
    for _ in range(200):
        n = int(rng.integers(2, 9))
        k = int(rng.integers(1, n))
        theta = rng.normal(size=n)
        problem = TopK(n, k)
        subsets = list(itertools.combinations(range(n), k))
        values = [theta[list(s)].sum() for s in subsets]
        order = np.argsort(values)[::-1]
        best, runner_up = problem.best_and_runner_up(theta)
        assert best == subsets[order[0]]
        assert runner_up == subsets[order[1]]


@settings(max_examples=100, deadline=None)
@given(st.integers(2, 8).flatmap(
    lambda n: st.tuples(st.just(n),
                        st.lists(st.floats(-10, 10, allow_nan=False), min_size=n, max_size=n),
                        st.integers(1, n - 1))))
def test_gap_is_brute_force_gap(case):
    n, theta, k = case
    problem = TopK(n, k)
    _, opt = brute_best(theta, k)
    best = problem.best(theta)
    assert problem.gap(best, theta) == 0.0  # both values summed in the same order: exactly zero
    for subset in itertools.combinations(range(n), k):
        assert problem.gap(subset, theta) == pytest.approx(opt - sum(theta[i] for i in subset), abs=1e-9)


@settings(max_examples=100, deadline=None)
@given(int_theta)
def test_is_optimal_is_brute_force_optimality_with_ties(case):
    # integer means: sums are exact, so "optimal up to rounding" is exactly "attains the maximum"
    n, theta, k = case
    problem = TopK(n, k)
    _, opt = brute_best(theta, k)
    for subset in itertools.combinations(range(n), k):
        assert problem.is_optimal(subset, theta) == (sum(theta[i] for i in subset) == opt)


def test_size_is_binomial_coefficient():
    for n in range(2, 14):
        for k in range(1, n):
            assert TopK(n, k).size == math.comb(n, k) == len(list(itertools.combinations(range(n), k)))
    assert TopK(111, 10).size == math.comb(111, 10)  # exact integer, beyond float precision
    assert isinstance(TopK(111, 10).size, int)


def test_indicator_and_value():
    problem = TopK(6, 3)
    theta = np.array([0.5, -1.0, 2.0, 3.0, 0.25, 7.0])
    for subset in itertools.combinations(range(6), 3):
        x = problem.indicator(subset)
        assert x.shape == (6,)
        assert set(np.flatnonzero(x)) == set(subset) and x.sum() == 3
        assert problem.value(subset, theta) == pytest.approx(float(x @ theta))
    # order of the given members does not matter
    assert problem.value((5, 0, 2), theta) == problem.value((0, 2, 5), theta)


@pytest.mark.parametrize("k", [0, 5, 6, -1])
def test_k_out_of_range_raises_with_range_in_message(k):
    with pytest.raises(InvalidParameterError, match=rf"^k={k} must satisfy 1 <= k < n=5$"):
        TopK(5, k)


def test_k_zero_exact_message():
    with pytest.raises(InvalidParameterError) as info:
        TopK(5, 0)
    assert str(info.value) == "k=0 must satisfy 1 <= k < n=5"
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize("k", [2.0, 2.5, True, False, "2", None])
def test_k_not_an_integer_raises_type_error(k):
    with pytest.raises(TypeError, match=r"\bk must be an integer"):
        TopK(5, k)


def test_numpy_integer_k_accepted():
    assert TopK(5, np.int64(2)).size == 10


@pytest.mark.parametrize("n", [1, 0, -3])
def test_n_too_small_raises(n):
    with pytest.raises(InvalidParameterError, match=r"n="):
        TopK(n, 1)


@pytest.mark.parametrize("super_arm, pattern", [
    ((0, 1), r"must hold 3 distinct arms"),          # too short
    ((0, 1, 2, 3), r"must hold 3 distinct arms"),    # too long
    ((0, 1, 1), r"must hold 3 distinct arms"),       # repeated
    ((0, 1, 5), r"arm indices in 0\.\.4"),           # out of range
    ((-1, 1, 2), r"arm indices in 0\.\.4"),          # negative
])
def test_bad_super_arm_raises(super_arm, pattern):
    problem = TopK(5, 3)
    theta = np.zeros(5)
    with pytest.raises(InvalidParameterError, match=pattern):
        problem.check_super_arm(super_arm)
    with pytest.raises(InvalidParameterError):
        problem.value(super_arm, theta)
    with pytest.raises(InvalidParameterError):
        problem.gap(super_arm, theta)
    with pytest.raises(InvalidParameterError):
        problem.indicator(super_arm)


@pytest.mark.parametrize("super_arm", [(0.7, 1, 2), (0, 1, 2.5)])
def test_non_integer_arm_index_raises(super_arm):
    # An index such as 0.7 is not an arm; silently truncating it to 0 would evaluate a
    # different super-arm than the caller meant.
    with pytest.raises((InvalidParameterError, TypeError)):
        TopK(5, 3).check_super_arm(super_arm)


def test_check_super_arm_sorts():
    assert TopK(5, 3).check_super_arm([4, 0, 2]) == (0, 2, 4)


@pytest.mark.parametrize("theta", [np.zeros(4), np.zeros(6), np.zeros((5, 1)), [0, 0, np.nan, 0, 0],
                                   [0, 0, np.inf, 0, 0]])
def test_bad_theta_raises(theta):
    with pytest.raises(InvalidParameterError, match="theta"):
        TopK(5, 2).best(theta)


def test_module_examples_run():
    import doctest

    from fullbandit.problems import classes as problem
    failures, attempted = doctest.testmod(problem, verbose=False, report=False)
    assert attempted > 0 and failures == 0
