"""Tests for fullbandit.dks.optimum: brute force, the HiGHS MILP, and the networkx front end.

Input validation shared by every entry point is in test_dks_weights.py and test_dks_conformance.py.
"""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sparse
from hypothesis import given, settings
from hypothesis import strategies as st
from test_dks_references import naive_optimum

import fullbandit.dks.optimum as exact_module
from fullbandit.dks import induced_weight
from fullbandit.dks.bounds import degree_bound, edge_bound, spectral_bound
from fullbandit.dks.optimum import ExactResult, brute_force_matrix, exact, milp_matrix
from fullbandit.util.validation import InvalidParameterError

# --- instances ----------------------------------------------------------------------------------

def random_weights(rng, n, kind):
    if kind == "uniform":
        W = rng.random((n, n))
    elif kind == "sparse":
        W = rng.random((n, n)) * (rng.random((n, n)) < 0.3)
    elif kind == "integer":  # exact sums: ties are true ties
        W = rng.integers(0, 4, size=(n, n)).astype(float)
    elif kind == "unweighted":
        W = (rng.random((n, n)) < 0.5).astype(float)
    elif kind == "planted":
        W = rng.random((n, n)) * 0.2
        clique = rng.choice(n, size=min(n, max(2, n // 3)), replace=False)
        W[np.ix_(clique, clique)] += 1.0
    else:
        raise AssertionError(kind)
    W = np.triu(W, 1)
    return W + W.T


KINDS = ("uniform", "sparse", "integer", "unweighted", "planted")


@st.composite
def instances(draw, max_n=10, kinds=KINDS):
    n = draw(st.integers(1, max_n))
    k = draw(st.integers(1, n))
    kind = draw(st.sampled_from(kinds))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    return random_weights(np.random.default_rng(seed), n, kind), k


def check_k_set(vertices, n, k):
    vertices = list(vertices)
    assert len(vertices) == k == len(set(vertices))
    assert vertices == sorted(vertices)
    assert all(0 <= v < n for v in vertices)


# --- brute force ----------------------------------------------------------------------------

@settings(max_examples=150, deadline=None)
@given(instances())
def test_brute_force_equals_naive_enumeration(instance):
    W, k = instance
    vertices, weight = brute_force_matrix(W, k)
    check_k_set(vertices.tolist(), W.shape[0], k)
    _, optimum = naive_optimum(W, k)
    assert weight == pytest.approx(optimum, rel=1e-12, abs=1e-12)
    assert weight == induced_weight(W, vertices)


@settings(max_examples=100, deadline=None)
@given(instances(kinds=("integer", "unweighted")))
def test_brute_force_returns_the_lexicographically_first_optimum(instance):
    # integer weights: every sum is exact, ties are true ties
    W, k = instance
    vertices, weight = brute_force_matrix(W, k)
    expected, optimum = naive_optimum(W, k)
    assert (vertices.tolist(), weight) == (expected, optimum)


@pytest.mark.parametrize("seed", range(4))
def test_brute_force_spans_several_chunks(seed, monkeypatch):
    # a whole instance usually fits one chunk: shrink it to exercise the merging of chunks,
    # with 0/1 weights so that ties across chunks must go to the lexicographically first set
    W = random_weights(np.random.default_rng(seed), 12, "unweighted")
    monkeypatch.setattr(exact_module, "_CHUNK_ENTRIES", 6 * 7)  # 7 subsets per chunk at k = 4
    vertices, weight = brute_force_matrix(W, 4)
    assert (vertices.tolist(), weight) == naive_optimum(W, 4)


def test_brute_force_sparse_input_and_ignored_diagonal():
    rng = np.random.default_rng(4)
    W = random_weights(rng, 9, "sparse")
    with_loops = W + np.diag(rng.random(9) * 100)
    expected = brute_force_matrix(W, 4)
    for variant in (with_loops, sparse.csr_array(with_loops), sparse.coo_matrix(W)):
        vertices, weight = brute_force_matrix(variant, 4)
        assert vertices.tolist() == expected[0].tolist()
        assert weight == pytest.approx(expected[1], rel=1e-12)


def test_brute_force_refuses_above_limit_naming_it():
    W = random_weights(np.random.default_rng(0), 12, "uniform")
    with pytest.raises(InvalidParameterError, match=r"C\(n=12, k=6\) = 924 .*limit=900"):
        brute_force_matrix(W, 6, limit=900)
    assert brute_force_matrix(W, 6, limit=924)[0].shape == (6,)  # exactly at the limit: runs


# --- MILP -------------------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(instances(max_n=10))
def test_milp_equals_brute_force(instance):
    W, k = instance
    result = milp_matrix(W, k)
    _, optimum = brute_force_matrix(W, k)
    check_k_set(result.vertices, W.shape[0], k)
    assert isinstance(result, ExactResult) and result.method == "milp"
    assert result.weight == induced_weight(W, result.vertices)
    assert result.weight == pytest.approx(optimum, rel=1e-6, abs=1e-9)
    assert result.optimal and result.status == "optimal"
    assert result.weight <= result.upper_bound <= optimum * (1 + 1e-6) + 1e-9
    assert result.gap <= 1e-6 and result.seconds >= 0


@pytest.mark.parametrize("valid_inequalities", [True, False])
@pytest.mark.parametrize("as_sparse", [False, True])
def test_milp_variants_agree_with_brute_force(valid_inequalities, as_sparse):
    rng = np.random.default_rng(11)
    for n, k in [(9, 3), (10, 5), (8, 7), (7, 2)]:
        W = random_weights(rng, n, "sparse")
        _, optimum = brute_force_matrix(W, k)
        matrix = sparse.csr_array(W) if as_sparse else W
        result = milp_matrix(matrix, k, valid_inequalities=valid_inequalities)
        assert result.weight == pytest.approx(optimum, rel=1e-6, abs=1e-9)
        assert result.weight == pytest.approx(induced_weight(W, result.vertices), rel=1e-12, abs=1e-15)
        assert result.optimal


def test_milp_trivial_instances():
    W = np.zeros((5, 5))
    result = milp_matrix(W, 3)  # no edge: every 3-set is optimal with weight 0
    assert (result.vertices, result.weight, result.upper_bound, result.optimal) == ((0, 1, 2), 0.0, 0.0, True)
    W = random_weights(np.random.default_rng(1), 6, "uniform")
    result = milp_matrix(W, 1)
    assert len(result.vertices) == 1 and result.weight == 0.0 and result.optimal
    result = milp_matrix(W, 6)
    assert result.vertices == tuple(range(6))
    assert result.weight == pytest.approx(np.triu(W, 1).sum(), rel=1e-12)


def test_milp_is_scale_invariant_on_tiny_weights():
    # weights of 1e-9: without rescaling, HiGHS's absolute tolerances would call anything optimal
    rng = np.random.default_rng(5)
    W = random_weights(rng, 10, "uniform")
    _, optimum = brute_force_matrix(W, 4)
    result = milp_matrix(W * 1e-9, 4)
    assert result.weight == pytest.approx(optimum * 1e-9, rel=1e-6)


def test_milp_time_limit_on_a_large_dense_instance():
    rng = np.random.default_rng(0)
    n, k = 60, 10
    W = random_weights(rng, n, "uniform")
    result = milp_matrix(W, k, time_limit=0.05)
    check_k_set(result.vertices, n, k)
    assert result.weight == induced_weight(W, result.vertices)
    assert result.status == "time limit" and not result.optimal
    assert result.weight <= result.upper_bound
    # the bound is the best of HiGHS's and the certified ones, never worse than those
    assert result.upper_bound <= min(degree_bound(W, k), edge_bound(W, k), spectral_bound(W, k))
    assert result.gap > 0
    assert result.seconds < 5


def test_milp_time_limit_bound_covers_a_known_optimum():
    # a planted 10-clique of weight 1 among lighter edges (< 1): OPT = C(10, 2) = 45 exactly
    rng = np.random.default_rng(1)
    n, k = 60, 10
    W = random_weights(rng, n, "uniform") * 0.9
    clique = rng.choice(n, size=k, replace=False)
    W[np.ix_(clique, clique)] = 1.0
    np.fill_diagonal(W, 0.0)
    for time_limit in (1e-3, 0.05):
        result = milp_matrix(W, k, time_limit=time_limit)
        check_k_set(result.vertices, n, k)
        assert result.weight == induced_weight(W, result.vertices)
        assert result.upper_bound >= 45.0 * (1 - 1e-12)
        assert result.weight <= 45.0 + 1e-12


def test_milp_time_limit_bound_covers_brute_force_optimum():
    # C(24, 6) = 134596 subsets: brute force gives OPT; a tiny time limit must still bound it
    for seed in range(3):
        W = random_weights(np.random.default_rng(seed), 24, "uniform")
        _, optimum = brute_force_matrix(W, 6)
        result = milp_matrix(W, 6, time_limit=1e-3 if seed else 0.2)
        assert result.weight <= optimum + 1e-12
        assert result.upper_bound >= optimum * (1 - 1e-9)
        assert result.optimal == (result.status == "optimal")
        if result.optimal:
            assert result.weight == pytest.approx(optimum, rel=1e-6)


def test_milp_uses_the_solvers_dual_bound_with_the_right_sign(monkeypatch):
    # Force the cheap bounds to be useless: the returned bound then comes from HiGHS alone
    # and must still cover the optimum and close on it at optimality.
    monkeypatch.setattr(exact_module, "degree_bound", lambda W, k: math.inf)
    monkeypatch.setattr(exact_module, "edge_bound", lambda W, k: math.inf)
    monkeypatch.setattr(exact_module, "spectral_bound", lambda W, k: math.inf)
    W = random_weights(np.random.default_rng(7), 10, "uniform")
    _, optimum = brute_force_matrix(W, 4)
    result = milp_matrix(W, 4)
    assert result.optimal
    assert result.upper_bound == pytest.approx(optimum, rel=1e-6)
    W = random_weights(np.random.default_rng(8), 40, "uniform")
    result = milp_matrix(W, 8, time_limit=0.3)
    if not result.optimal:  # HiGHS's dual bound: finite, above the incumbent
        assert result.weight < result.upper_bound < math.inf


@pytest.mark.parametrize("kwargs, name", [
    ({"time_limit": 0}, "time_limit"),
    ({"time_limit": -1.0}, "time_limit"),
    ({"mip_rel_gap": -1e-3}, "mip_rel_gap"),
])
def test_milp_rejects_bad_options(kwargs, name):
    W = random_weights(np.random.default_rng(0), 5, "uniform")
    with pytest.raises(InvalidParameterError, match=name):
        milp_matrix(W, 2, **kwargs)


# --- networkx front end --------------------------------------------------------------------

def labelled_graph(rng, labels, p=0.6):
    G = nx.Graph()
    G.add_nodes_from(labels)
    for u, v in itertools.combinations(labels, 2):
        if rng.random() < p:
            G.add_edge(u, v, weight=float(rng.integers(1, 10)))
    return G


def graph_optimum(G, k):
    return max(G.subgraph(S).size(weight="weight") for S in itertools.combinations(G.nodes, k))


LABEL_SETS = [
    ["a", "b", "c", "d", "e", "f", "g"],
    [("x", 1), ("x", 2), ("y", 1), ("y", 2), ("z", 0), ("z", 9)],
    [frozenset({1}), frozenset({1, 2}), frozenset(), frozenset({3})],
    [0, "zero", 1.5, (2, 3), ("nested", (1, 2)), b"bytes"],  # mixed types
    [10, 3, 7, -1, 42, 5, 8, 100],
]


@pytest.mark.parametrize("labels", LABEL_SETS)
@pytest.mark.parametrize("method", ["auto", "brute-force", "milp"])
def test_exact_preserves_labels_and_finds_the_optimum(labels, method):
    rng = np.random.default_rng(len(labels))
    G = labelled_graph(rng, labels)
    for k in range(1, len(labels) + 1):
        result = exact(G, k, method=method)
        assert isinstance(result.vertices, frozenset)
        assert len(result.vertices) == k and result.vertices <= set(G.nodes)
        assert result.weight == pytest.approx(G.subgraph(result.vertices).size(weight="weight"), abs=1e-9)
        assert result.weight == pytest.approx(graph_optimum(G, k), abs=1e-6)
        assert result.optimal and result.status == "optimal"
        assert result.method == ("milp" if method == "milp" else "brute-force")


def test_exact_auto_switches_to_milp_above_the_limit_and_uses_weight_attribute():
    rng = np.random.default_rng(9)
    G = labelled_graph(rng, list("abcdefghij"))
    for *_, data in G.edges(data=True):
        data["cost"] = data.pop("weight") * 0.5
    G.add_edge("a", "a", cost=1000.0)  # self-loops are ignored
    small = exact(G, 4, weight="cost")
    large = exact(G, 4, weight="cost", brute_force_limit=math.comb(10, 4) - 1)
    assert small.method == "brute-force" and large.method == "milp"
    assert small.weight == pytest.approx(large.weight, rel=1e-6)
    H = nx.Graph()
    H.add_nodes_from(G)
    H.add_weighted_edges_from((u, v, d["cost"]) for u, v, d in G.edges(data=True) if u != v)
    assert small.weight == pytest.approx(graph_optimum(H, 4), rel=1e-9)
    assert small.weight == pytest.approx(H.subgraph(small.vertices).size(weight="weight"), rel=1e-12)


def test_exact_missing_weights_count_one():
    G = nx.complete_graph(["p", "q", "r", "s"])
    G.add_edge("s", "t")
    result = exact(G, 3, method="milp")
    assert result.weight == 3.0 and result.vertices <= {"p", "q", "r", "s"}


def test_exact_time_limit_returns_a_valid_certified_set():
    rng = np.random.default_rng(0)
    n, k = 60, 10
    W = random_weights(rng, n, "uniform")
    G = nx.relabel_nodes(nx.from_numpy_array(W), {i: f"v{i}" for i in range(n)})
    result = exact(G, k, time_limit=0.05)
    assert result.method == "milp" and result.status == "time limit" and not result.optimal
    assert len(result.vertices) == k and result.vertices <= set(G.nodes)
    assert result.weight == pytest.approx(G.subgraph(result.vertices).size(weight="weight"), rel=1e-12)
    assert result.upper_bound >= result.weight


def test_exact_rejects_bad_options_naming_them():
    G = nx.path_graph(5)
    with pytest.raises(InvalidParameterError, match="method='greedy'"):
        exact(G, 2, method="greedy")
    with pytest.raises(InvalidParameterError, match=r"brute_force_limit=5"):
        exact(G, 2, method="brute-force", brute_force_limit=5)
    with pytest.raises(InvalidParameterError, match="time_limit"):
        exact(G, 2, time_limit=0.0)
    with pytest.raises(InvalidParameterError, match="brute_force_limit"):
        exact(G, 2, brute_force_limit=0)
    with pytest.raises(InvalidParameterError, match=r"k=6 must satisfy 1 <= k <= 5"):  # G and k: check_graph
        exact(G, 6)


def test_exact_result_is_frozen_and_reports_gap():
    result = ExactResult((0, 1), 3.0, 4.0, False, "time limit", "milp", 0.1)
    assert result.gap == pytest.approx(0.25)
    assert ExactResult((0,), 0.0, 0.0, True, "optimal", "milp", 0.0).gap == 0.0
    with pytest.raises(AttributeError):
        result.weight = 5.0  # type: ignore[misc]
    assert hash(result) == hash(ExactResult((0, 1), 3.0, 4.0, False, "time limit", "milp", 0.1))


def test_brute_force_refuses_above_the_package_enumeration_limit():
    from fullbandit.util.enumeration import ENUMERATION_LIMIT
    n, k = 24, 8  # C(24, 8) = 735,471 subsets
    assert math.comb(n, k) > ENUMERATION_LIMIT
    with pytest.raises(ValueError, match=f"limit={ENUMERATION_LIMIT}"):
        brute_force_matrix(np.ones((n, n)) - np.eye(n), k)
