"""Tests for fullbandit.dks.bounds: every certified upper bound on the DkS optimum."""

from __future__ import annotations

import math
import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sparse
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse.linalg import eigsh
from test_dks_references import naive_optimum

import fullbandit.dks.bounds as bounds_module
from fullbandit.dks.bounds import (
    BOUNDS,
    SDP_AUTO_MAX_N,
    bound,
    bound_matrix,
    certified_ratio,
    degree_bound,
    edge_bound,
    sdp_bound,
    spectral_bound,
)
from fullbandit.util.validation import InvalidParameterError

# --- references and graph families -----------------------------------------------------------

def optimum(W, k):
    """max_{|S| = k} w(S) by plain enumeration."""
    return naive_optimum(W, k)[1]


def symmetric(upper):
    upper = np.triu(upper, 1)
    return upper + upper.T


def family(name, n, rng):
    """Weight matrices on ``n`` vertices; several make some bound tight."""
    if name == "dense":
        return symmetric(rng.random((n, n)))
    if name == "sparse":
        return symmetric(rng.random((n, n)) * (rng.random((n, n)) < 0.25))
    if name == "unweighted":
        return symmetric((rng.random((n, n)) < 0.5).astype(float))
    if name == "integer":
        return symmetric(rng.integers(0, 5, size=(n, n)).astype(float))
    if name == "star":
        W = np.zeros((n, n))
        W[0, 1:] = W[1:, 0] = rng.random(n - 1) + 0.5
        return W
    if name == "complete":
        return np.ones((n, n)) - np.eye(n)
    if name == "cliques":  # disjoint equal-weight cliques of random sizes
        W = np.zeros((n, n))
        start = 0
        while start < n:
            size = int(rng.integers(1, n + 1))
            W[start:start + size, start:start + size] = 1.0
            start += size
        np.fill_diagonal(W, 0.0)
        return W
    if name == "planted":
        W = symmetric(rng.random((n, n)) * 0.3)
        clique = rng.choice(n, size=min(n, max(2, n // 2)), replace=False)
        W[np.ix_(clique, clique)] = 1.0
        np.fill_diagonal(W, 0.0)
        return W
    if name == "empty":
        return np.zeros((n, n))
    raise AssertionError(name)


FAMILIES = ("dense", "sparse", "unweighted", "integer", "star", "complete", "cliques", "planted", "empty")
CHEAP = {"spectral": spectral_bound, "degree": degree_bound, "edge": edge_bound}


@st.composite
def instances(draw, max_n=9, families=FAMILIES):
    n = draw(st.integers(1, max_n))
    k = draw(st.integers(1, n))
    name = draw(st.sampled_from(families))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    return family(name, n, np.random.default_rng(seed)), k


def at_least(bound_value, opt):
    # the brute-force optimum is itself a float sum: allow its own rounding
    return bound_value >= opt * (1 - 1e-12) - 1e-12


# --- every cheap bound is an upper bound --------------------------------------------------------

@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(instances())
def test_cheap_bounds_are_upper_bounds_dense_and_sparse(instance):
    W, k = instance
    opt = optimum(W, k)
    for name, function in CHEAP.items():
        dense_value = function(W, k)
        sparse_value = function(sparse.csr_array(W), k)
        assert at_least(dense_value, opt), (name, dense_value, opt)
        assert at_least(sparse_value, opt), (name, sparse_value, opt)
        assert sparse_value == pytest.approx(dense_value, rel=1e-10, abs=1e-12), name


@settings(max_examples=50, deadline=None)
@given(instances(max_n=7))
def test_bounds_are_monotone_in_k_and_zero_for_one_vertex(instance):
    # OPT_k is non-decreasing in k; so are the degree and edge bounds by construction
    W, k = instance
    for function in CHEAP.values():
        assert function(W, 1) == 0.0
    if k < W.shape[0]:
        assert degree_bound(W, k) <= degree_bound(W, k + 1) + 1e-12
        assert edge_bound(W, k) <= edge_bound(W, k + 1) + 1e-12


def test_hand_computed_values():
    # edges: 01:4, 02:2, 12:2, 23:5. Degrees 6, 6, 9, 5.
    W = np.array([[0, 4, 2, 0], [4, 0, 2, 0], [2, 2, 0, 5], [0, 0, 5, 0]], dtype=float)
    # k = 2: heaviest edge 5; c_i = min(d_i, top_1) = 4, 4, 5, 5 -> (5 + 5) / 2
    assert edge_bound(W, 2) == pytest.approx(5.0, rel=1e-14)
    assert degree_bound(W, 2) == pytest.approx(5.0, rel=1e-14)
    # k = 3: 5 + 4 + 2 = 11; top_2 rows: 6, 6, 7, 5 -> (7 + 6 + 6) / 2
    assert edge_bound(W, 3) == pytest.approx(11.0, rel=1e-14)
    assert degree_bound(W, 3) == pytest.approx(9.5, rel=1e-14)
    # k = 4: every edge; degrees sum / 2
    assert edge_bound(W, 4) == pytest.approx(13.0, rel=1e-14)
    assert degree_bound(W, 4) == pytest.approx(13.0, rel=1e-14)
    lam = np.linalg.eigvalsh(W)[-1]
    for k in (2, 3, 4):
        assert spectral_bound(W, k) == pytest.approx(k * lam / 2, rel=1e-12)
    # the min(d_i, .) cap: a vertex whose top-(k-1) exceeds ... never happens for W >= 0,
    # but the cap on k-1 matters: one heavy and many light edges
    star = np.zeros((5, 5))
    star[0, 1:] = star[1:, 0] = [10.0, 1.0, 1.0, 1.0]
    # k = 2: c = (10, 10, 1, 1, 1) -> 10; k = 3: c = (11, 10, 1, 1, 1) -> (11 + 10 + 1) / 2
    assert degree_bound(star, 2) == pytest.approx(10.0, rel=1e-14)
    assert degree_bound(star, 3) == pytest.approx(11.0, rel=1e-14)
    assert optimum(star, 3) == 11.0  # tight on a star


def test_diagonal_is_ignored():
    rng = np.random.default_rng(0)
    W = family("dense", 8, rng)
    looped = W + np.diag(rng.random(8) * 50)
    for function in CHEAP.values():
        assert function(looped, 3) == function(W, 3)
        assert function(sparse.csr_array(looped), 3) == pytest.approx(function(W, 3), rel=1e-12)


# --- tightness: each bound is exact on some family (so it cannot be loose by design) --------

@pytest.mark.parametrize("n, k, w", [(6, 3, 1.0), (9, 4, 2.5), (12, 12, 0.1), (7, 2, 3.0)])
def test_edge_bound_is_tight_on_equal_weight_complete_graphs(n, k, w):
    W = w * (np.ones((n, n)) - np.eye(n))
    assert edge_bound(W, k) == pytest.approx(math.comb(k, 2) * w, rel=1e-13)
    assert degree_bound(W, k) == pytest.approx(math.comb(k, 2) * w, rel=1e-13)
    assert spectral_bound(W, k) >= math.comb(k, 2) * w  # k (n-1) w / 2: tight only if k = n
    if k == n:
        assert spectral_bound(W, k) == pytest.approx(math.comb(k, 2) * w, rel=1e-12)


@pytest.mark.parametrize("k", [2, 3, 5, 8])
def test_spectral_bound_is_tight_on_a_k_clique_component(k):
    # a k-clique of weight w plus lighter components (a star, a path, a sparse random graph)
    # whose largest eigenvalues stay below (k - 1) w: OPT = C(k, 2) w = k lambda_max / 2
    w = 2.0
    parts = [w * nx.to_numpy_array(nx.complete_graph(k)),
             nx.to_numpy_array(nx.star_graph(max(1, (k - 1) ** 2 // 2))),  # lambda = sqrt(leaves)
             nx.to_numpy_array(nx.path_graph(6)),
             0.1 * family("dense", 7, np.random.default_rng(k))]
    W = np.asarray(sparse.block_diag(parts).todense())
    expected = math.comb(k, 2) * w
    for matrix in (W, sparse.csr_array(W)):
        value = spectral_bound(matrix, k)
        assert value >= expected
        assert value == pytest.approx(expected, rel=1e-12)
    assert degree_bound(W, k) >= expected


def test_degree_bound_is_tight_on_disjoint_cliques_and_stars():
    W = np.asarray(sparse.block_diag([np.ones((4, 4)) - np.eye(4)] * 3).todense())
    assert degree_bound(W, 4) == pytest.approx(6.0, rel=1e-13)
    assert optimum(W, 4) == 6.0
    star = nx.to_numpy_array(nx.star_graph(9))
    for k in range(2, 11):
        assert degree_bound(star, k) == pytest.approx(k - 1, rel=1e-13)


# --- the spectral bound's rigour ---------------------------------------------------------------

VARIED_GRAPHS = {
    "gnp": lambda: nx.gnp_random_graph(80, 0.1, seed=1),
    "disconnected": lambda: nx.gnp_random_graph(200, 0.008, seed=2),
    "bipartite": lambda: nx.complete_bipartite_graph(3, 40),
    "lollipop": lambda: nx.lollipop_graph(25, 150),  # Perron vector decays like 24^-d on the tail
    "tree": lambda: nx.balanced_tree(3, 5),
    "barabasi-albert": lambda: nx.barabasi_albert_graph(300, 3, seed=3),
}


@pytest.mark.parametrize("name", ["gnp", "disconnected", "bipartite", "lollipop",
                                  pytest.param("tree", marks=pytest.mark.slow),
                                  pytest.param("barabasi-albert", marks=pytest.mark.slow)])
def test_spectral_bound_matches_lambda_max_on_varied_graphs(name):
    G = VARIED_GRAPHS[name]()
    rng = np.random.default_rng(0)
    for u, v in G.edges:
        G[u][v]["weight"] = float(rng.random() + 0.1)
    W = nx.to_numpy_array(G)
    lam = np.linalg.eigvalsh(W)[-1]
    for matrix in (W, sparse.csr_array(W)):
        value = spectral_bound(matrix, 5)
        assert value >= 5 * lam / 2 * (1 - 1e-14), name
        assert value == pytest.approx(5 * lam / 2, rel=1e-9), name


@pytest.mark.slow
def test_spectral_bound_on_large_components_uses_arpack_and_stays_rigorous():
    # components above 1000 vertices take the ARPACK path; the tail needs the M-matrix step
    G = nx.lollipop_graph(20, 1100)
    W = nx.to_scipy_sparse_array(G, format="csr", dtype=float)
    lam = np.linalg.eigvalsh(W.toarray())[-1]
    value = spectral_bound(W, 4)
    assert value >= 2 * lam * (1 - 1e-14)
    assert value == pytest.approx(2 * lam, rel=1e-9)
    H = nx.barabasi_albert_graph(1500, 2, seed=0)
    A = nx.to_scipy_sparse_array(H, format="csr", dtype=float)
    lam = np.linalg.eigvalsh(A.toarray())[-1]
    assert spectral_bound(A, 4) >= 2 * lam * (1 - 1e-14)
    assert spectral_bound(A, 4) == pytest.approx(2 * lam, rel=1e-7)


@pytest.mark.parametrize("guess", ["random", "wrong-eigenvalue", "negative", "failure"])
def test_collatz_wielandt_certificate_survives_a_bad_eigen_guess(guess, monkeypatch):
    # the bound must never rely on the eigensolver: feed it garbage, it stays >= lambda_max
    rng = np.random.default_rng(1)
    W = family("dense", 30, rng) * (rng.random((30, 30)) < 0.5)
    W = np.maximum(W, W.T)
    lam = np.linalg.eigvalsh(W)[-1]
    bad = {
        "random": lambda B: (1.0, rng.random(B.shape[0])),
        "wrong-eigenvalue": lambda B: (lam / 2, np.linalg.eigh(B)[1][:, -1]),
        "negative": lambda B: (lam, -np.abs(rng.standard_normal(B.shape[0]))),
        "failure": lambda B: (0.0, None),
    }[guess]
    monkeypatch.setattr(bounds_module, "_perron_guess", bad)
    value = spectral_bound(W, 4)
    assert value >= 2 * lam * (1 - 1e-14)
    assert value <= 2 * W.sum(axis=1).max() * (1 + 1e-12)  # never worse than the max degree


def perturbed_guess(spread, rng):
    """The eigenvector guess with every entry multiplied by a random factor in e^[-spread, spread]."""
    exact_guess = bounds_module._perron_guess

    def guess(B):
        theta, v = exact_guess(B)
        return theta, v * np.exp(rng.uniform(-spread, spread, v.size))
    return guess


@pytest.mark.parametrize("as_sparse", [False, True])
def test_spectral_power_steps_repair_a_poor_eigenvector(as_sparse, monkeypatch):
    W = nx.to_numpy_array(nx.gnp_random_graph(60, 0.2, seed=1))
    lam = np.linalg.eigvalsh(W)[-1]
    matrix = sparse.csr_array(W) if as_sparse else W
    monkeypatch.setattr(bounds_module, "_perron_guess", perturbed_guess(1.0, np.random.default_rng(0)))
    monkeypatch.setattr(bounds_module, "_shifted_solve", lambda B, target: None)  # M-matrix step off
    value = spectral_bound(matrix, 4)
    assert value >= 2 * lam * (1 - 1e-14)
    assert value == pytest.approx(2 * lam, rel=1e-9)
    monkeypatch.setattr(bounds_module, "_SMOOTHING_STEPS", 0)
    assert spectral_bound(matrix, 4) > 2 * lam * (1 + 1e-3)  # the raw guess: loose, yet valid


@pytest.mark.parametrize("as_sparse", [False, True])
def test_spectral_m_matrix_step_repairs_a_localised_perron_vector(as_sparse, monkeypatch):
    # a clique with a tail: the Perron vector decays like 19^-d along the tail; a guess with
    # relative errors there cannot be repaired by a few power steps (one hop per step)
    W = nx.to_numpy_array(nx.lollipop_graph(20, 60))
    lam = np.linalg.eigvalsh(W)[-1]
    matrix = sparse.csr_array(W) if as_sparse else W
    monkeypatch.setattr(bounds_module, "_perron_guess", perturbed_guess(1.0, np.random.default_rng(0)))
    value = spectral_bound(matrix, 4)
    assert value >= 2 * lam * (1 - 1e-14)
    assert value == pytest.approx(2 * lam, rel=1e-9)
    monkeypatch.setattr(bounds_module, "_shifted_solve", lambda B, target: None)
    assert spectral_bound(matrix, 4) > 2 * lam * (1 + 1e-3)  # power steps alone: loose, yet valid


# --- SDP ------------------------------------------------------------------------------------------

@settings(max_examples=10, deadline=None)
@given(instances(max_n=8))
def test_sdp_bound_is_an_upper_bound_and_below_edge_and_spectral(instance):
    W, k = instance
    opt = optimum(W, k)
    value = sdp_bound(W, k)
    assert at_least(value, opt)
    # provable for the relaxation (sum_{i<j} X_ij = C(k,2) with 0 <= X <= 1; X PSD, trace k);
    # the certified value may exceed the relaxation by the solver's inaccuracy
    slack = 1e-5 * max(1.0, opt) + 1e-7
    assert value <= edge_bound(W, k) + slack
    assert value <= spectral_bound(W, k) + slack


@pytest.mark.slow
@pytest.mark.parametrize("solver", ["CLARABEL", "SCS"])
def test_sdp_bound_with_each_solver(solver):
    rng = np.random.default_rng(2)
    for name in ("dense", "sparse", "planted"):
        W = family(name, 10, rng)
        for k in (2, 4, 7):
            opt = optimum(W, k)
            value = sdp_bound(W, k, solver=solver)
            assert at_least(value, opt)
            assert value <= min(edge_bound(W, k), spectral_bound(W, k)) * (1 + 1e-4) + 1e-6


def test_sdp_bound_is_tight_on_a_clique_with_isolated_vertices():
    W = np.zeros((9, 9))
    W[:4, :4] = 1.5 * (np.ones((4, 4)) - np.eye(4))
    assert sdp_bound(W, 4) == pytest.approx(9.0, rel=1e-6)
    assert sdp_bound(W, 4) >= 9.0
    assert sdp_bound(sparse.csr_array(W), 4) == pytest.approx(9.0, rel=1e-6)


def test_sdp_bound_beats_the_cheap_bounds_somewhere():
    # the point of the SDP: strictly tighter than every cheap bound on a random graph
    W = family("dense", 12, np.random.default_rng(4))
    cheap = min(function(W, 4) for function in CHEAP.values())
    value = sdp_bound(W, 4)
    assert optimum(W, 4) <= value < cheap * 0.99


def test_sdp_certificate_is_valid_for_arbitrary_multipliers():
    # weak duality with the trace bound holds for ANY multipliers, feasible or not
    rng = np.random.default_rng(5)
    for trial in range(30):
        n = int(rng.integers(3, 8))
        k = int(rng.integers(2, n))
        W = family("dense" if trial % 2 else "sparse", n, rng)
        opt = optimum(W, k)
        scale = float(rng.choice([1e-3, 1.0, 10.0]))
        R = scale * rng.standard_normal((n, n))
        value = bounds_module._certify(W, k, scale * rng.standard_normal(), scale * rng.standard_normal(),
                                       scale * rng.standard_normal(n), scale * rng.standard_normal(n),
                                       (R + R.T) / 2)
        assert at_least(value, opt)
    # zero multipliers: S = -C, lambda_min = -lambda_max(W) / 2: the bound is (k+1) lambda_max / 2
    W = family("dense", 6, rng)
    zero = bounds_module._certify(W, 3, 0.0, 0.0, np.zeros(6), np.zeros(6), np.zeros((6, 6)))
    assert zero == pytest.approx(4 * np.linalg.eigvalsh(W)[-1] / 2, rel=1e-12)


def reference_relaxation(W, k):
    """The relaxation written out independently (primal value, Clarabel)."""
    import cvxpy as cp
    n = W.shape[0]
    x = cp.Variable(n)
    X = cp.Variable((n, n), symmetric=True)
    M = cp.bmat([[np.ones((1, 1)), cp.reshape(x, (1, n), order="C")], [cp.reshape(x, (n, 1), order="C"), X]])
    constraints = [M >> 0, cp.diag(X) == x, cp.sum(x) == k, X @ np.ones(n) == k * x, X >= 0, X <= 1]
    problem = cp.Problem(cp.Maximize(cp.sum(cp.multiply(W, X)) / 2), constraints)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "may be inaccurate" on degenerate instances
        problem.solve(solver="CLARABEL")
    return problem.value


def test_sdp_bound_certifies_the_relaxation_value_itself():
    # certified >= the relaxation's optimum, and no more than the solver's accuracy above it
    rng = np.random.default_rng(8)
    for name, n, k in [("dense", 9, 3), ("sparse", 10, 4), ("planted", 8, 5), ("unweighted", 10, 6),
                       ("cliques", 9, 3), ("star", 7, 3)]:
        W = family(name, n, rng)
        if not W.any():
            continue
        relaxation = reference_relaxation(W, k)
        value = sdp_bound(W, k, solver="CLARABEL")
        assert value >= relaxation - 1e-6 * max(1.0, relaxation), name
        assert value == pytest.approx(relaxation, rel=1e-6, abs=1e-8), name


def test_sdp_uses_the_solver_duals_with_the_right_sign():
    # the solver's own multipliers, certified, land next to the relaxation's value; a sign
    # error in reading cvxpy's duals gives a bound several times larger
    W = family("dense", 10, np.random.default_rng(6))
    multipliers = bounds_module._solve_relaxation(W, 4, "CLARABEL", {})
    certified = bounds_module._certify(W, 4, *multipliers)
    t, s, u, r, R = multipliers
    flipped = bounds_module._certify(W, 4, -t, -s, -u, -r, R)
    assert optimum(W, 4) <= certified <= edge_bound(W, 4)
    assert flipped > 1.5 * certified


def test_sdp_guards():
    W = family("dense", 12, np.random.default_rng(0))
    with pytest.raises(InvalidParameterError, match="max_n=10"):
        sdp_bound(W, 3, max_n=10)
    with pytest.raises(InvalidParameterError, match="solver='NOT-A-SOLVER'"):
        sdp_bound(W, 3, solver="not-a-solver")
    with pytest.raises(TypeError, match="solver"):
        sdp_bound(W, 3, solver=3)
    big = sparse.random(SDP_AUTO_MAX_N * 10, SDP_AUTO_MAX_N * 10, density=0.01, random_state=0)
    with pytest.raises(InvalidParameterError, match="max_n=200"):
        sdp_bound(big + big.T, 3)
    assert sdp_bound(W, 1) == 0.0
    assert sdp_bound(np.zeros((5, 5)), 3) == 0.0
    assert sdp_bound(W, 12) == pytest.approx(np.triu(W, 1).sum(), rel=1e-12)


# --- front ends -----------------------------------------------------------------------------------

def weighted_graph(seed, n=10, labels=None):
    rng = np.random.default_rng(seed)
    G = nx.gnp_random_graph(n, 0.5, seed=seed)
    for u, v in G.edges:
        G[u][v]["w"] = float(rng.integers(1, 20)) / 4
    if labels is not None:
        G = nx.relabel_nodes(G, dict(enumerate(labels)))
    return G


def test_bound_on_a_graph_equals_bound_matrix_on_its_adjacency():
    G = weighted_graph(0, labels=[f"n{i}" for i in range(10)])
    G.add_edge("n0", "n0", w=100.0)  # self-loops are ignored by both
    for k in (2, 4, 7):
        from_graph = bound(G, k, weight="w")
        dense = bound_matrix(nx.to_numpy_array(G, weight="w"), k)
        adjacency = bound_matrix(nx.to_scipy_sparse_array(G, weight="w", format="csr"), k)
        assert list(from_graph) == list(dense) == list(adjacency) == list(BOUNDS)  # n <= 25: sdp too
        for name in BOUNDS:
            assert from_graph[name] == pytest.approx(dense[name], rel=1e-10), name
            assert from_graph[name] == pytest.approx(adjacency[name], rel=1e-10), name
        W = nx.to_numpy_array(G, weight="w")
        np.fill_diagonal(W, 0.0)
        opt = optimum(W, k)
        assert all(at_least(value, opt) for value in from_graph.values())


def test_default_methods_skip_sdp_on_larger_graphs_unless_asked():
    G = nx.gnp_random_graph(SDP_AUTO_MAX_N + 5, 0.2, seed=1)
    assert list(bound(G, 3)) == ["spectral", "degree", "edge"]
    assert list(bound(G, 3, methods=["sdp", "edge"])) == ["edge", "sdp"]  # in BOUNDS order
    assert list(bound(G, 3, methods="degree")) == ["degree"]


def test_bound_rejects_bad_methods_naming_them():
    # W, G and k go through the shared validators (test_dks_weights.py)
    G = nx.path_graph(5)
    with pytest.raises(InvalidParameterError, match="methods='trace'"):
        bound(G, 2, methods=["edge", "trace"])
    with pytest.raises(InvalidParameterError, match="methods"):
        bound_matrix(np.ones((3, 3)), 2, methods=[])


@pytest.mark.slow
def test_large_sparse_graph_bounds_are_fast_and_valid():
    G = nx.barabasi_albert_graph(20_000, 3, seed=0)
    values = bound(G, 10)
    assert set(values) == {"spectral", "degree", "edge"}
    assert values["edge"] == pytest.approx(45.0)  # unweighted: C(10, 2) edges of weight 1
    assert values["degree"] == pytest.approx(45.0)  # c_i = min(d_i, 9): 9 on the >= 10 hubs
    # a Ritz value is a lower estimate of lambda_max: the certified bound must not go below it
    ritz = eigsh(nx.to_scipy_sparse_array(G, format="csr", dtype=float), k=1, which="LA")[0][0]
    assert values["spectral"] >= 5 * ritz
    assert values["spectral"] == pytest.approx(5 * ritz, rel=1e-6)


def test_certified_ratio():
    assert certified_ratio(3.0, {"edge": 4.0, "degree": 6.0}) == 0.75
    assert certified_ratio(3.0, [6.0, 4.0]) == 0.75
    assert certified_ratio(2.0, 4.0) == 0.5
    assert certified_ratio(0.0, {"edge": 0.0}) == 1.0
    assert certified_ratio(4.0 * (1 + 1e-12), {"edge": 4.0}) == 1.0  # rounding: capped at 1
    with pytest.raises(InvalidParameterError, match="exceeds"):
        certified_ratio(5.0, {"edge": 4.0})
    with pytest.raises(InvalidParameterError, match="at least one"):
        certified_ratio(1.0, {})
    with pytest.raises(InvalidParameterError, match="weight"):
        certified_ratio(-1.0, {"edge": 4.0})
    with pytest.raises(InvalidParameterError, match="bounds"):
        certified_ratio(1.0, {"edge": math.inf})


def test_certified_ratio_of_an_oracle_is_below_its_true_ratio():
    from fullbandit.dks import densest_k_subgraph_matrix
    rng = np.random.default_rng(7)
    for _ in range(10):
        W = family("dense", 9, rng)
        weight = densest_k_subgraph_matrix(W, 4).weight
        ratio = certified_ratio(weight, bound_matrix(W, 4))
        assert 0.0 < ratio <= weight / optimum(W, 4) * (1 + 1e-9)
