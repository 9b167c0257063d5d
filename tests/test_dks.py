"""Tests for fullbandit.dks: greedy peeling (matrix path and networkx front end) and its proven ratio."""

from __future__ import annotations

import doctest
import itertools
import math
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import fullbandit.dks.peeling as peeling_module
from fullbandit._validation import InvalidParameterError
from fullbandit.dks import ORACLES, get_oracle, greedy_peeling, induced_weight, peel_dense, proven_peeling_ratio


# --- references ----------------------------------------------------------------------------

def naive_weight(W, vertices):
    vertices = list(vertices)
    return sum(W[u][v] for a, u in enumerate(vertices) for v in vertices[a + 1:])


def brute_force_dks(W, k):
    n = len(W)
    return max(naive_weight(W, s) for s in itertools.combinations(range(n), k))


def naive_peel(W, k):
    """Delete a vertex of minimum weighted degree (recomputed from scratch), ties to the lowest index."""
    remaining = list(range(len(W)))
    while len(remaining) > k:
        degrees = [sum(W[v][u] for u in remaining if u != v) for v in remaining]
        position = min(range(len(remaining)), key=lambda i: (degrees[i], remaining[i]))
        remaining.pop(position)
    return remaining


def random_weights(rng, n, kind):
    """Symmetric non-negative weights, zero diagonal.

    "integer", "dyadic-sparse" and "dyadic-planted" use small multiples of 1/8, so every
    weighted degree is computed exactly in floating point whatever the order of the
    additions and subtractions: exact ties are frequent and are true ties. "continuous"
    has no exact ties except the unavoidable one between the last two vertices (k = 1).
    """
    if kind == "integer":
        W = rng.integers(0, 4, size=(n, n)).astype(float)
    elif kind == "dyadic-sparse":
        W = rng.integers(1, 9, size=(n, n)) / 8.0 * (rng.random((n, n)) < 0.3)
    elif kind == "dyadic-planted":  # a heavy clique hidden among light edges and a heavy star
        W = rng.integers(0, 3, size=(n, n)) / 8.0
        clique = rng.choice(n, size=max(2, n // 3), replace=False)
        W[np.ix_(clique, clique)] += 1.0
        hub = int(rng.integers(n))
        W[hub, :] += 0.75
        W[:, hub] += 0.75
    elif kind == "continuous":
        W = rng.exponential(1.0, size=(n, n))
    else:
        raise AssertionError(kind)
    W = np.triu(W, 1)
    return W + W.T


EXACT_KINDS = ["integer", "dyadic-sparse", "dyadic-planted"]
KINDS = EXACT_KINDS + ["continuous"]


@st.composite
def dks_instances(draw, max_n=9, kinds=tuple(KINDS), min_k=1):
    n = draw(st.integers(max(2, min_k), max_n))
    k = draw(st.integers(min_k, n))
    kind = draw(st.sampled_from(kinds))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    return random_weights(np.random.default_rng(seed), n, kind), k


# --- the matrix path -----------------------------------------------------------------------

@settings(max_examples=200, deadline=None)
@given(dks_instances())
def test_peeling_returns_k_distinct_vertices_and_reaches_proven_ratio(instance):
    W, k = instance
    n = W.shape[0]
    kept = peel_dense(W, k)
    assert len(kept) == k == len(set(kept.tolist()))
    assert list(kept) == sorted(kept) and all(0 <= v < n for v in kept)
    weight = induced_weight(W, kept)
    assert weight == pytest.approx(naive_weight(W, kept), rel=1e-12, abs=1e-12)
    opt = brute_force_dks(W, k)
    assert weight <= opt + 1e-12
    assert weight >= proven_peeling_ratio(n, k) * opt * (1 - 1e-12) - 1e-12


@settings(max_examples=200, deadline=None)
@given(dks_instances(max_n=12, kinds=tuple(EXACT_KINDS)))
def test_peeling_matches_naive_reference(instance):
    # exact arithmetic: ties are true ties and must go to the lowest index
    W, k = instance
    assert peel_dense(W, k).tolist() == naive_peel(W, k)


@settings(max_examples=100, deadline=None)
@given(dks_instances(max_n=12, kinds=("continuous",), min_k=2))
def test_peeling_matches_naive_reference_continuous_weights(instance):
    # generic real weights, k >= 2: no ties almost surely
    W, k = instance
    assert peel_dense(W, k).tolist() == naive_peel(W, k)


@pytest.mark.parametrize("weights, k, expected", [
    # edges (0,1) (0,2) (0,3) (1,2) (1,3) (2,3). Degrees 0.4, 0.4, 0.5, 0.5: delete 0 (tie,
    # lowest index); then 0.4 - 0.1 = 0.3 (vertex 1), 0.4 (vertex 2), 0.5 - 0.2 = 0.3
    # (vertex 3): a true tie, so vertex 1 goes and {2, 3} remains.
    ((0.1, 0.1, 0.2, 0.2, 0.1, 0.2), 2, [2, 3]),
    # edges (0,1) (0,2) (1,2): degrees 0.3, 0.3, 0.4: delete 0; then 0.2 and 0.2: delete 1.
    ((0.1, 0.2, 0.2), 1, [2]),
])
def test_ties_go_to_lowest_index_with_decimal_weights(weights, k, expected):
    # Exact ties in decimal weights (as a user would type them) must go to the lowest
    # index, as documented, not be decided by the rounding of incremental degree updates.
    n = 4 if len(weights) == 6 else 3
    W = np.zeros((n, n))
    for (i, j), w in zip(itertools.combinations(range(n), 2), weights):
        W[i, j] = W[j, i] = w
    assert naive_peel(W, k) == expected  # the reference agrees with the hand computation
    assert peel_dense(W, k).tolist() == expected


def test_peeling_matches_naive_reference_many_integer_ties():
    rng = np.random.default_rng(0)
    for _ in range(300):
        n = int(rng.integers(2, 15))
        k = int(rng.integers(1, n + 1))
        W = rng.integers(0, 2, size=(n, n)).astype(float)  # 0/1: ties everywhere
        W = np.triu(W, 1)
        W = W + W.T
        assert peel_dense(W, k).tolist() == naive_peel(W, k)


def test_peeling_tie_goes_to_lowest_index():
    # all degrees equal: the lowest indices are deleted first, so the highest remain
    W = np.ones((6, 6))
    np.fill_diagonal(W, 0)
    assert peel_dense(W, 2).tolist() == [4, 5]
    assert peel_dense(np.zeros((5, 5)), 3).tolist() == [2, 3, 4]


def test_diagonal_is_ignored():
    rng = np.random.default_rng(1)
    for _ in range(50):
        W = random_weights(rng, 8, EXACT_KINDS[int(rng.integers(3))])
        with_diagonal = W + np.diag(rng.integers(0, 800, size=8) / 8.0)
        k = int(rng.integers(1, 9))
        assert peel_dense(with_diagonal, k).tolist() == peel_dense(W, k).tolist()
        assert induced_weight(with_diagonal, range(5)) == pytest.approx(naive_weight(W, range(5)))


def test_k_equal_n_keeps_everything():
    W = random_weights(np.random.default_rng(2), 5, "continuous")
    assert peel_dense(W, 5).tolist() == [0, 1, 2, 3, 4]


def test_peeling_exact_on_planted_clique():
    # A 4-clique of weight 10 among weight-1 edges of a 10-vertex graph: every outside
    # vertex has degree 9 < 3 * 10 + 6 (clique members), so peeling keeps the clique.
    n = 10
    W = np.ones((n, n))
    clique = [1, 4, 6, 9]
    W[np.ix_(clique, clique)] = 10.0
    np.fill_diagonal(W, 0)
    assert peel_dense(W, 4).tolist() == clique
    assert induced_weight(W, clique) == brute_force_dks(W, 4) == 60.0


def test_proven_peeling_ratio_closed_form():
    for n in range(2, 30):
        for k in range(1, n + 1):
            if k < 2:
                assert proven_peeling_ratio(n, k) == 1.0
                continue
            # telescoping product of (j - 2) / j for j = n down to k + 1, in exact arithmetic
            product = math.prod((Fraction(j - 2, j) for j in range(k + 1, n + 1)), start=Fraction(1))
            assert proven_peeling_ratio(n, k) == pytest.approx(float(product), rel=1e-14)
            assert 0 < proven_peeling_ratio(n, k) <= 1


def test_one_deletion_keeps_the_proven_fraction():
    # The step of the proof: deleting a vertex of minimum weighted degree from j vertices
    # keeps at least (j - 2) / j of the weight.
    rng = np.random.default_rng(3)
    for _ in range(200):
        n = int(rng.integers(3, 12))
        W = random_weights(rng, n, KINDS[int(rng.integers(4))])
        before = induced_weight(W, range(n))
        after = induced_weight(W, peel_dense(W, n - 1))
        assert after >= before * (n - 2) / n - 1e-12


def test_induced_weight_matches_naive():
    rng = np.random.default_rng(4)
    W = random_weights(rng, 9, "continuous")
    for size in range(0, 10):
        for subset in itertools.islice(itertools.combinations(range(9), size), 20):
            assert induced_weight(W, subset) == pytest.approx(naive_weight(W, subset), abs=1e-12)


@pytest.mark.parametrize("W, k, error, pattern", [
    (np.ones((3, 4)), 1, InvalidParameterError, "square"),
    (np.array([[0.0, 1.0], [2.0, 0.0]]), 1, InvalidParameterError, "symmetric"),
    (np.array([[0.0, -1.0], [-1.0, 0.0]]), 1, InvalidParameterError, "non-negative"),
    (np.array([[0.0, np.nan], [np.nan, 0.0]]), 1, InvalidParameterError, "finite"),
    (np.zeros((3, 3)), 0, InvalidParameterError, r"k=0 must satisfy 1 <= k <= 3"),
    (np.zeros((3, 3)), 4, InvalidParameterError, r"k=4 must satisfy 1 <= k <= 3"),
    (np.zeros((3, 3)), 2.0, TypeError, "k must be an integer"),
])
def test_matrix_path_validation(W, k, error, pattern):
    with pytest.raises(error, match=pattern):
        peel_dense(W, k)


def test_negative_diagonal_is_allowed_since_ignored():
    W = np.array([[-5.0, 1.0, 0.0], [1.0, 0.0, 2.0], [0.0, 2.0, -1.0]])
    assert peel_dense(W, 2).tolist() == [1, 2]


def test_registry():
    oracle = get_oracle("peeling")
    assert "peeling" in ORACLES and oracle.name == "peeling"
    W = random_weights(np.random.default_rng(5), 9, "continuous")
    assert oracle.solve(W, 4).tolist() == peel_dense(W, 4).tolist()
    assert oracle.proven_ratio(9, 4) == proven_peeling_ratio(9, 4)
    with pytest.raises(InvalidParameterError, match=r"oracle='magic' is not one of the allowed values"):
        get_oracle("magic")


@pytest.mark.parametrize("name", sorted(ORACLES))
def test_every_registered_oracle_reaches_its_proven_ratio_on_algorithm_1_graphs(name):
    from fullbandit.dks.optimum import brute_force_matrix
    from fullbandit.qp import dks_weights
    oracle = get_oracle(name)
    rng = np.random.default_rng(7)
    for _ in range(20):
        B = rng.standard_normal((9, 9))
        W = dks_weights(np.linalg.inv(B @ B.T + 0.1 * np.eye(9)))
        chosen = oracle.solve(W, 4)
        assert len(set(chosen.tolist())) == 4
        _, optimum = brute_force_matrix(W, 4)
        assert induced_weight(W, chosen) >= oracle.proven_ratio(9, 4) * optimum - 1e-12
        if name.endswith("+swap"):  # the local search never ends below its starting oracle
            first = get_oracle(name.split("+")[0]).solve(W, 4)
            assert induced_weight(W, chosen) >= induced_weight(W, first) - 1e-12


# --- the networkx front end ----------------------------------------------------------------

def graph_from_matrix(W, labels, weight="weight"):
    G = nx.Graph()
    G.add_nodes_from(labels)
    n = len(labels)
    for i in range(n):
        for j in range(i + 1, n):
            if W[i, j] != 0:
                G.add_edge(labels[i], labels[j], **{weight: float(W[i, j])})
    return G


LABEL_SETS = {
    "strings": lambda n: [f"worker-{c}" for c in "qwertyuiopasdfghjkl"[:n]],
    "tuples": lambda n: [(i % 3, "x" * i) for i in range(n)],
    "mixed": lambda n: [("t", i) if i % 3 == 0 else (f"s{i}" if i % 3 == 1 else 1000 - i) for i in range(n)],
    "shuffled-ints": lambda n: [int(v) for v in np.random.default_rng(n).permutation(100)[:n]],
}


@pytest.mark.parametrize("label_kind", list(LABEL_SETS))
def test_networkx_equals_matrix_path_with_any_labels(label_kind):
    rng = np.random.default_rng(100 + list(LABEL_SETS).index(label_kind))
    for _ in range(40):
        n = int(rng.integers(2, 12))
        k = int(rng.integers(1, n + 1))
        kind = KINDS[int(rng.integers(4))]
        W = random_weights(rng, n, kind)
        labels = LABEL_SETS[label_kind](n)
        G = graph_from_matrix(W, labels)
        chosen = greedy_peeling(G, k)
        assert isinstance(chosen, set) and len(chosen) == k and chosen <= set(labels)
        assert chosen == {labels[i] for i in peel_dense(W, k)}
        if kind in EXACT_KINDS:
            assert chosen == {labels[i] for i in naive_peel(W, k)}


def test_missing_weight_counts_one():
    rng = np.random.default_rng(6)
    for _ in range(60):
        n = int(rng.integers(3, 10))
        k = int(rng.integers(1, n + 1))
        W = np.zeros((n, n))
        G = nx.Graph()
        G.add_nodes_from(range(n))
        for i, j in itertools.combinations(range(n), 2):
            r = rng.random()
            if r < 0.3:
                G.add_edge(i, j)  # no weight attribute: weight 1
                W[i, j] = W[j, i] = 1.0
            elif r < 0.7:
                w = float(rng.integers(0, 5))
                G.add_edge(i, j, weight=w)
                W[i, j] = W[j, i] = w
        assert greedy_peeling(G, k) == set(peel_dense(W, k).tolist())


def test_unweighted_graph_is_the_adjacency_matrix():
    G = nx.petersen_graph()
    G.add_edges_from([(0, 5), (0, 7), (5, 7)])
    A = nx.to_numpy_array(G, nodelist=sorted(G.nodes), weight=None)
    for k in range(1, 11):
        assert greedy_peeling(G, k) == set(naive_peel(A, k))


def test_custom_weight_attribute():
    G = nx.Graph()
    G.add_nodes_from("abcd")
    G.add_edge("a", "b", cost=10.0, weight=1.0)
    G.add_edge("c", "d", cost=1.0, weight=10.0)
    assert greedy_peeling(G, 2, weight="cost") == {"a", "b"}
    assert greedy_peeling(G, 2) == {"c", "d"}
    rng = np.random.default_rng(7)
    for _ in range(30):
        n = int(rng.integers(2, 10))
        k = int(rng.integers(1, n + 1))
        W = random_weights(rng, n, KINDS[int(rng.integers(4))])
        G = graph_from_matrix(W, list(range(n)), weight="affinity")
        for u, v in G.edges:
            G[u][v]["weight"] = float(rng.uniform(0, 1))  # a decoy attribute
        assert greedy_peeling(G, k, weight="affinity") == set(peel_dense(W, k).tolist())


def test_self_loops_are_ignored():
    rng = np.random.default_rng(8)
    W = random_weights(rng, 7, "continuous")
    G = graph_from_matrix(W, list("abcdefg"))
    expected = greedy_peeling(G, 3)
    G.add_edge("a", "a", weight=1000.0)
    G.add_edge("b", "b")
    assert greedy_peeling(G, 3) == expected


def test_networkx_reaches_proven_ratio():
    rng = np.random.default_rng(9)
    for _ in range(50):
        n = int(rng.integers(2, 9))
        k = int(rng.integers(1, n + 1))
        W = random_weights(rng, n, KINDS[int(rng.integers(4))])
        labels = [f"v{i}" for i in range(n)]
        chosen = greedy_peeling(graph_from_matrix(W, labels), k)
        index = [labels.index(v) for v in chosen]
        assert induced_weight(W, index) >= proven_peeling_ratio(n, k) * brute_force_dks(W, k) - 1e-12


def test_networkx_validation():
    path = nx.path_graph(4)
    with pytest.raises(InvalidParameterError, match="undirected"):
        greedy_peeling(nx.DiGraph(path), 2)
    multi = nx.MultiGraph(path)
    multi.add_edge(0, 1)
    with pytest.raises(InvalidParameterError, match="multigraph"):
        greedy_peeling(multi, 2)
    negative = nx.Graph(path)
    negative[1][2]["weight"] = -0.5
    with pytest.raises(InvalidParameterError, match=r"'weight' must be non-negative"):
        greedy_peeling(negative, 2)
    infinite = nx.Graph(path)
    infinite[1][2]["weight"] = math.inf
    with pytest.raises(InvalidParameterError, match="finite"):
        greedy_peeling(infinite, 2)
    with pytest.raises(InvalidParameterError, match=r"k=5 must satisfy 1 <= k <= 4"):
        greedy_peeling(path, 5)
    with pytest.raises(InvalidParameterError, match=r"k=0 must satisfy 1 <= k <= 4"):
        greedy_peeling(path, 0)
    with pytest.raises(TypeError, match="k must be an integer"):
        greedy_peeling(path, 2.0)
    with pytest.raises(TypeError, match="networkx.Graph"):
        greedy_peeling(np.ones((3, 3)), 2)
    # the errors are ValueErrors, as the docstring promises
    with pytest.raises(ValueError):
        greedy_peeling(nx.DiGraph(path), 2)


def test_docstring_example():
    failures, attempted = doctest.testmod(peeling_module, verbose=False, report=False)
    assert attempted >= 1
    assert failures == 0
    G = nx.complete_graph(4)
    G.add_edge(3, "leaf")
    assert greedy_peeling(G, 4) == {0, 1, 2, 3}
