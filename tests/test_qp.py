"""Tests for fullbandit.full.qp: Algorithm 1 (QP through DkS), Theorem 1, Lemma 6 and the certified bounds.

References are brute force over all k-subsets (n <= 10) and the closed forms of Kuroki et
al. (2020), Lemmas 4-6 and Theorem 1 (derived in the docstrings of fullbandit.full.qp).
Floating-point comparisons use a relative slack of 1e-9.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fullbandit.dks import proven_peeling_ratio
from fullbandit.full.qp import (
    approximate_qp,
    brute_force_qp,
    cauchy_schwarz_bound,
    certified_bounds,
    check_positive_definite,
    dks_weights,
    quadratic_value,
    row_bound,
    spectral_bound,
    theorem1_ratio,
)
from fullbandit.util.enumeration import ENUMERATION_LIMIT
from fullbandit.util.validation import InvalidParameterError

SLACK = 1e-9


# --- matrix families -----------------------------------------------------------------------

def _symmetric(M):
    return (M + M.T) / 2.0


def random_pd(family: str, n: int, rng: np.random.Generator) -> np.ndarray:
    if family == "wishart":
        B = rng.normal(size=(n, n + 2))
        return _symmetric(B @ B.T / n + 1e-3 * np.eye(n))
    if family == "ill-conditioned":
        U, _ = np.linalg.qr(rng.normal(size=(n, n)))
        eigenvalues = np.geomspace(1.0, 10.0 ** -rng.uniform(3, 8), n) * rng.uniform(0.1, 10)
        return _symmetric(U @ np.diag(eigenvalues) @ U.T)
    if family == "diagonal-dominant":
        off = _symmetric(rng.uniform(-1, 1, size=(n, n)))
        np.fill_diagonal(off, 0.0)
        return off + np.diag(np.abs(off).sum(axis=1) + rng.uniform(0.01, 1.0, size=n))
    if family == "diagonal":
        return np.diag(rng.uniform(0.1, 5.0, size=n))
    if family == "inverse-gram":
        # A^-1 of a full-bandit design: random k'-subsets with random counts, spanning R^n
        k_design = int(rng.integers(1, n))
        while True:
            m = int(rng.integers(n, 3 * n + 1))
            support = [rng.choice(n, size=k_design, replace=False) for _ in range(m)]
            X = np.zeros((m, n))
            for row, arm in enumerate(support):
                X[row, arm] = 1.0
            if np.linalg.matrix_rank(X) == n:
                break
        counts = rng.integers(1, 50, size=m)
        return _symmetric(np.linalg.inv(X.T @ (counts[:, None] * X)))
    if family == "negative-off-diagonal":
        # graph Laplacian plus a ridge: every off-diagonal entry <= 0
        W = _symmetric(rng.uniform(0, 1, size=(n, n)))
        np.fill_diagonal(W, 0.0)
        return np.diag(W.sum(axis=1)) - W + rng.uniform(0.01, 0.5) * np.eye(n)
    raise AssertionError(family)


FAMILIES = ["wishart", "ill-conditioned", "diagonal-dominant", "diagonal", "inverse-gram",
            "negative-off-diagonal"]


@st.composite
def qp_instances(draw, max_n=10):
    family = draw(st.sampled_from(FAMILIES))
    n = draw(st.integers(3, max_n))
    k = draw(st.one_of(st.sampled_from([1, 2, n - 1]), st.integers(1, n - 1)))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    Q = random_pd(family, n, np.random.default_rng(seed))
    return family, Q, k


def naive_value(Q, subset):
    return sum(Q[i][j] for i in subset for j in subset)


def naive_brute_force(Q, k):
    best, best_value = None, -math.inf
    for subset in itertools.combinations(range(Q.shape[0]), k):
        value = naive_value(Q, subset)
        if value > best_value:
            best, best_value = subset, value
    return best, best_value


# --- Algorithm 1 and Theorem 1 -------------------------------------------------------------

@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(qp_instances())
def test_approximate_qp_reaches_theorem1_ratio(instance):
    family, Q, k = instance
    n = Q.shape[0]
    solution = approximate_qp(Q, k)
    _, opt = brute_force_qp(Q, k)
    subset = solution.subset
    assert len(subset) == k and len(set(subset)) == k and all(0 <= i < n for i in subset)
    assert solution.value == pytest.approx(naive_value(Q, subset), rel=1e-12)
    assert solution.value <= opt * (1 + SLACK)
    eigenvalues = np.linalg.eigvalsh(Q)
    assert solution.eigenvalue_min == pytest.approx(eigenvalues[0], rel=1e-6)
    assert solution.eigenvalue_max == pytest.approx(eigenvalues[-1], rel=1e-9)
    # closed form of Theorem 1 with the peeling oracle's proven ratio
    if k == 1:
        expected_ratio = 1.0
    elif k == 2:
        expected_ratio = proven_peeling_ratio(n, k)
    else:
        expected_ratio = proven_peeling_ratio(n, k) / (1 + (k - 2) * eigenvalues[-1] / eigenvalues[0])
    assert solution.theorem1_ratio == pytest.approx(expected_ratio, rel=1e-6)
    assert 0.0 < solution.theorem1_ratio <= 1.0
    assert solution.value >= solution.theorem1_ratio * opt * (1 - SLACK)
    # the DkS weight reported is w(subset) in the graph of Algorithm 1
    W = dks_weights(Q)
    assert solution.dks_weight == pytest.approx(
        sum(W[i, j] for i, j in itertools.combinations(subset, 2)), rel=1e-12, abs=0.0)
    if k == 1:
        assert solution.value == pytest.approx(opt, rel=1e-12)  # exact for k = 1


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(qp_instances())
def test_certified_bounds_dominate_brute_force_optimum(instance):
    family, Q, k = instance
    solution = approximate_qp(Q, k)
    _, opt = brute_force_qp(Q, k)
    bounds = certified_bounds(Q, k, solution)
    assert set(bounds) >= {"theorem1", "spectral", "cauchy-schwarz", "row", "oracle-ratio"}
    for name, bound in bounds.items():
        assert bound >= opt * (1 - SLACK), (name, bound, opt, family)
    # and every bound is at least the value actually reached
    assert min(bounds.values()) >= solution.value * (1 - SLACK)


def test_bounds_closed_forms_and_tightness_on_diagonal():
    rng = np.random.default_rng(3)
    for _ in range(30):
        n = int(rng.integers(3, 9))
        k = int(rng.integers(1, n))
        d = rng.uniform(0.1, 5.0, size=n)
        Q = np.diag(d)
        opt = np.sort(d)[-k:].sum()
        assert brute_force_qp(Q, k)[1] == pytest.approx(opt, rel=1e-12)
        assert spectral_bound(Q, k) == pytest.approx(k * d.max(), rel=1e-12)
        assert cauchy_schwarz_bound(Q, k) == pytest.approx(np.sort(np.sqrt(d))[-k:].sum() ** 2, rel=1e-12)
        assert row_bound(Q, k) == pytest.approx(opt, rel=1e-12)  # no positive off-diagonal entries: tight
        # On a diagonal Q peeling is exact: weighted degree in the remaining set R is
        # ((|R| - 2) d_i + sum_R d) / 2, minimal at the smallest d_i, and |R| >= 3 when k >= 2.
        assert approximate_qp(Q, k).value == pytest.approx(opt, rel=1e-12)


def test_spectral_and_cauchy_schwarz_formulas():
    rng = np.random.default_rng(4)
    for family in FAMILIES:
        Q = random_pd(family, 7, rng)
        for k in (1, 3, 6):
            assert spectral_bound(Q, k) == pytest.approx(k * np.linalg.eigvalsh(Q)[-1], rel=1e-9)
            assert cauchy_schwarz_bound(Q, k) == pytest.approx(
                sum(sorted(math.sqrt(Q[i, i]) for i in range(7))[-k:]) ** 2, rel=1e-12)
            rows = [Q[i, i] + sum(sorted((max(Q[i, j], 0.0) for j in range(7) if j != i), reverse=True)[:k - 1])
                    for i in range(7)]
            assert row_bound(Q, k) == pytest.approx(sum(sorted(rows)[-k:]), rel=1e-12)


def test_identity_matrix_closed_form():
    for n in range(3, 9):
        for k in range(1, n):
            Q = np.eye(n)
            solution = approximate_qp(Q, k)
            assert solution.value == pytest.approx(k)
            assert brute_force_qp(Q, k)[1] == pytest.approx(k)
            assert all(b >= k * (1 - SLACK) for b in certified_bounds(Q, k, solution).values())


def test_theorem1_ratio_function():
    assert theorem1_ratio(1, 0.7, 1.0, 50.0) == 0.7
    assert theorem1_ratio(2, 0.7, 1.0, 50.0) == 0.7
    assert theorem1_ratio(5, 0.6, 2.0, 10.0) == pytest.approx(0.6 / (1 + 3 * 5.0))


# --- the graph of Algorithm 1 --------------------------------------------------------------

@settings(max_examples=100, deadline=None)
@given(qp_instances(), st.integers(0, 2 ** 32 - 1))
def test_dks_weights_identity_positivity_and_lemma6(instance, seed):
    family, Q, _ = instance
    n = Q.shape[0]
    W = dks_weights(Q)
    eigenvalues = np.linalg.eigvalsh(Q)
    lam_min, lam_max = eigenvalues[0], eigenvalues[-1]
    assert np.array_equal(W, W.T)
    assert np.all(np.diag(W) == 0.0)
    off = ~np.eye(n, dtype=bool)
    # w(i,j) = (e_i + e_j)^T Q (e_i + e_j) / 2 >= lambda_min ||e_i + e_j||^2 / 2 = lambda_min > 0
    assert np.all(W[off] > 0)
    assert np.all(W[off] >= lam_min * (1 - 1e-6) - 1e-12 * np.abs(Q).max())
    for i, j in [(0, 1), (n - 1, 0), (1, n - 1)]:
        e = np.zeros(n)
        e[[i, j]] = 1.0
        assert W[i, j] == pytest.approx(e @ Q @ e / 2, rel=1e-12)
    rng = np.random.default_rng(seed)
    for _ in range(10):
        k = int(rng.integers(1, n))
        S = sorted(rng.choice(n, size=k, replace=False).tolist())
        x = np.zeros(n)
        x[S] = 1.0
        xQx = float(x @ Q @ x)
        w_S = sum(W[i, j] for i, j in itertools.combinations(S, 2))
        scale = np.abs(Q).max() * k * k
        # 2 w(S) = x^T Q x + (k - 2) sum_{i in S} Q_ii
        assert 2 * w_S == pytest.approx(xQx + (k - 2) * sum(Q[i, i] for i in S), abs=1e-10 * scale)
        assert quadratic_value(Q, S) == pytest.approx(xQx, abs=1e-12 * scale)
        if k >= 2:
            # x^T Q x <= 2 w(S) <= (1 + (k - 2) lambda_max / lambda_min) x^T Q x   (Lemma 6)
            assert xQx <= 2 * w_S + 1e-10 * scale
            assert 2 * w_S <= (1 + (k - 2) * lam_max / lam_min) * xQx * (1 + 1e-9) + 1e-10 * scale


# --- brute force ---------------------------------------------------------------------------

@settings(max_examples=100, deadline=None)
@given(qp_instances())
def test_brute_force_matches_naive_loop(instance):
    _, Q, k = instance
    subset, value = brute_force_qp(Q, k)
    ref_subset, ref_value = naive_brute_force(Q, k)
    assert value == pytest.approx(ref_value, rel=1e-12)
    assert naive_value(Q, subset) == pytest.approx(ref_value, rel=1e-12)
    values = sorted((naive_value(Q, s) for s in itertools.combinations(range(Q.shape[0]), k)), reverse=True)
    if len(values) == 1 or values[0] - values[1] > 1e-9 * abs(values[0]):
        assert subset == ref_subset  # unique maximiser


@pytest.mark.slow
def test_brute_force_many_chunks():
    # C(20, 6) = 38760 subsets: several chunks of the enumeration
    rng = np.random.default_rng(8)
    Q = random_pd("wishart", 20, rng)
    subset, value = brute_force_qp(Q, 6)
    values = {s: Q[np.ix_(s, s)].sum() for s in itertools.combinations(range(20), 6)}
    best = max(values, key=values.get)
    assert value == pytest.approx(values[best], rel=1e-12)
    assert subset == best


def test_brute_force_refuses_above_limit():
    Q = np.eye(8)
    with pytest.raises(InvalidParameterError, match=r"C\(n=8, k=4\) = 70 evaluations > limit=69"):
        brute_force_qp(Q, 4, limit=69)
    assert brute_force_qp(Q, 4, limit=70)[1] == pytest.approx(4.0)
    big = np.eye(30)  # C(30, 15) = 155117520 > default limit
    with pytest.raises(InvalidParameterError, match=rf"limit={ENUMERATION_LIMIT}"):
        brute_force_qp(big, 15)
    with pytest.raises(InvalidParameterError, match="limit"):
        brute_force_qp(Q, 4, limit=0)


# --- validation ----------------------------------------------------------------------------

@pytest.mark.parametrize("Q, pattern", [
    (np.ones((3, 4)), "square"),
    (np.ones(4), "square"),
    (np.array([[2.0, 1.0], [0.0, 2.0]]), "symmetric"),
    (np.array([[1.0, 2.0], [2.0, 1.0]]), "positive definite"),     # indefinite
    (-np.eye(3), "positive definite"),                              # negative definite
    (np.zeros((3, 3)), "positive definite"),
    (np.ones((3, 3)), "positive definite"),                         # PSD, rank 1
    (np.array([[1.0, np.nan], [np.nan, 1.0]]), "finite"),
])
def test_bad_Q_raises(Q, pattern):
    with pytest.raises(InvalidParameterError, match=pattern):
        check_positive_definite(Q)
    with pytest.raises(InvalidParameterError, match=pattern):
        approximate_qp(Q, 1)


def test_singular_psd_Q_is_rejected():
    # The Gram matrix of the cyclic windows {0,1},{1,2},{2,3},{3,0} is PSD and singular
    # (x = (1,-1,1,-1) is in its kernel). Accepting it gives lambda_min <= 0 and a
    # negative "certified" Theorem-1 bound below the optimum.
    G = np.array([[2, 1, 0, 1], [1, 2, 1, 0], [0, 1, 2, 1], [1, 0, 1, 2]], dtype=float)
    assert np.allclose(G @ np.array([1, -1, 1, -1]), 0.0)
    with pytest.raises(InvalidParameterError, match="positive definite"):
        approximate_qp(G, 3)


def test_accepted_Q_bounds_hold_for_near_singular_gram():
    # Same structure with a tiny ridge: PD, must be accepted, and its bounds must hold.
    G = np.array([[2, 1, 0, 1], [1, 2, 1, 0], [0, 1, 2, 1], [1, 0, 1, 2]], dtype=float) + 1e-6 * np.eye(4)
    solution = approximate_qp(G, 3)
    _, opt = brute_force_qp(G, 3)
    assert all(b >= opt * (1 - SLACK) for b in certified_bounds(G, 3, solution).values())


@pytest.mark.parametrize("k", [0, 4, 5, -1])
def test_bad_k_raises(k):
    with pytest.raises(InvalidParameterError, match=rf"k={k} must satisfy 1 <= k < n=4"):
        approximate_qp(np.eye(4), k)
    with pytest.raises(InvalidParameterError, match=rf"k={k} must satisfy 1 <= k < n=4"):
        brute_force_qp(np.eye(4), k)


def test_bad_k_type_raises():
    with pytest.raises(TypeError, match="k must be an integer"):
        approximate_qp(np.eye(4), 2.0)


def test_unknown_oracle_raises():
    with pytest.raises(InvalidParameterError, match=r"oracle='magic' is not one of the allowed values: 'peeling'"):
        approximate_qp(np.eye(4), 2, oracle="magic")


def test_given_eigenvalues_are_used():
    # Recomputing the eigenvalues would give back the true ones: pass different ones and
    # check they are the ones reported (and that a non-positive one is refused).
    rng = np.random.default_rng(6)
    Q = random_pd("wishart", 6, rng)
    eigenvalues = np.linalg.eigvalsh(Q)
    a = approximate_qp(Q, 3)
    b = approximate_qp(Q, 3, eigenvalues=2.0 * eigenvalues)
    assert a.subset == b.subset  # the eigenvalues only enter the certificate
    assert b.eigenvalue_min == 2.0 * eigenvalues[0] and b.eigenvalue_max == 2.0 * eigenvalues[-1]
    with pytest.raises(InvalidParameterError, match="positive definite"):
        approximate_qp(Q, 3, eigenvalues=np.concatenate([[-1.0], eigenvalues[1:]]))


def test_module_examples_run():
    import doctest

    from fullbandit.full import qp
    failures, attempted = doctest.testmod(qp, verbose=False, report=False)
    assert attempted > 0 and failures == 0
