"""Tests for fullbandit.dks.swaps: 1-swap local search (matrix path and networkx front end)."""

from __future__ import annotations

import doctest
import itertools

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import fullbandit.dks.swaps as local_search_module
from fullbandit._validation import InvalidParameterError
from fullbandit.dks._graph import induced_weight
from fullbandit.dks.feige_peleg_kortsarz import fpk, proven_fpk_ratio
from fullbandit.dks.swaps import local_search, local_search_matrix


# --- references ----------------------------------------------------------------------------

def naive_weight(W, vertices):
    vertices = list(vertices)
    return sum(W[u][v] for a, u in enumerate(vertices) for v in vertices[a + 1:])


def brute_force(W, k):
    """(optimum, the first optimal set in lexicographic order)."""
    best = max(itertools.combinations(range(len(W)), k), key=lambda s: naive_weight(W, s))
    return naive_weight(W, best), list(best)


def naive_local_search(W, k, start, max_iter=None):
    """Best improvement recomputed from scratch; ties to the lowest removed, then added vertex.

    Exact-arithmetic instances only (every gain is a multiple of 1/8 or zero).
    """
    S = sorted(start)
    swaps = 0
    while max_iter is None or swaps < max_iter:
        current = naive_weight(W, S)
        best_gain, best_swap = 0.0, None
        for u in S:
            for x in range(len(W)):
                if x in S:
                    continue
                gain = naive_weight(W, sorted(set(S) - {u} | {x})) - current
                if gain > best_gain:
                    best_gain, best_swap = gain, (u, x)
        if best_swap is None:
            break
        S = sorted(set(S) - {best_swap[0]} | {best_swap[1]})
        swaps += 1
    return S


def from_scratch_local_search(W, k, start):
    """The same rule, vectorised, with gains recomputed from scratch at every step (no drift)."""
    inside = np.zeros(len(W), dtype=bool)
    inside[list(start)] = True
    while True:
        members, outside = np.flatnonzero(inside), np.flatnonzero(~inside)
        into = W[:, inside].sum(axis=1)
        gains = into[outside][None, :] - W[np.ix_(members, outside)] - into[members][:, None]
        if gains.size == 0 or gains.max() <= 0:
            return np.flatnonzero(inside).tolist()
        row, column = divmod(int(np.argmax(gains)), outside.size)
        inside[members[row]], inside[outside[column]] = False, True


def best_swap_gain(W, S):
    """The largest gain of any single exchange (brute force), 0 if none is possible."""
    S = list(S)
    current = naive_weight(W, S)
    gains = [naive_weight(W, [v for v in S if v != u] + [x]) - current
             for u in S for x in range(len(W)) if x not in S]
    return max(gains, default=0.0)


def random_weights(rng, n, kind):
    if kind == "integer":
        W = rng.integers(0, 4, size=(n, n)).astype(float)
    elif kind == "binary":
        W = (rng.random((n, n)) < 0.5).astype(float)
    elif kind == "dyadic-sparse":
        W = rng.integers(1, 9, size=(n, n)) / 8.0 * (rng.random((n, n)) < 0.3)
    elif kind == "continuous":
        W = rng.exponential(1.0, size=(n, n)) * (rng.random((n, n)) < 0.6)
    elif kind == "heavy-tailed":
        W = rng.pareto(1.0, size=(n, n)) * (rng.random((n, n)) < 0.5)
    else:
        raise AssertionError(kind)
    W = np.triu(W, 1)
    return W + W.T


EXACT_KINDS = ["integer", "binary", "dyadic-sparse"]
KINDS = EXACT_KINDS + ["continuous", "heavy-tailed"]


@st.composite
def instances_with_start(draw, max_n=9, kinds=tuple(KINDS)):
    n = draw(st.integers(1, max_n))
    k = draw(st.integers(1, n))
    kind = draw(st.sampled_from(kinds))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    rng = np.random.default_rng(seed)
    W = random_weights(rng, n, kind)
    start = rng.choice(n, size=k, replace=False).tolist()
    return W, k, start


def total_weight(W):
    return float(np.triu(W, 1).sum())


# --- the matrix path -----------------------------------------------------------------------

@settings(max_examples=150, deadline=None)
@given(instances_with_start(max_n=8, kinds=tuple(EXACT_KINDS)))
def test_matches_naive_best_improvement(instance):
    W, k, start = instance
    expected = naive_local_search(W, k, start)
    assert local_search_matrix(W, k, start).tolist() == expected
    assert local_search_matrix(sp.csr_array(W), k, start).tolist() == expected
    for steps in (0, 1, 2):
        assert local_search_matrix(W, k, start, max_iter=steps).tolist() == \
            naive_local_search(W, k, start, max_iter=steps)
        assert local_search_matrix(sp.csr_array(W), k, start, max_iter=steps).tolist() == \
            naive_local_search(W, k, start, max_iter=steps)


@settings(max_examples=200, deadline=None)
@given(instances_with_start())
def test_never_lowers_the_weight_and_ends_one_swap_optimal(instance):
    W, k, start = instance
    n = W.shape[0]
    result = local_search_matrix(W, k, start)
    assert len(result) == k == len(set(result.tolist()))
    assert result.tolist() == sorted(result.tolist()) and all(0 <= v < n for v in result.tolist())
    weight = induced_weight(W, result)
    assert weight == pytest.approx(naive_weight(W, result), rel=1e-12, abs=1e-12)
    assert weight >= induced_weight(W, start) - 1e-12 * max(1.0, total_weight(W))
    assert best_swap_gain(W, result) <= 1e-9 * max(1.0, total_weight(W))
    assert local_search_matrix(W, k, start).tolist() == result.tolist()  # deterministic
    assert local_search_matrix(W, k, list(reversed(start))).tolist() == result.tolist()  # order-free
    sparse_result = local_search_matrix(sp.csr_array(W), k, start)
    assert sparse_result.tolist() == result.tolist()


@settings(max_examples=100, deadline=None)
@given(instances_with_start(max_n=9))
def test_started_from_the_optimum_stays_optimal(instance):
    W, k, _ = instance
    opt, best = brute_force(W, k)
    for matrix in (W, sp.csr_array(W)):
        result = local_search_matrix(matrix, k, best)
        assert induced_weight(W, result) == pytest.approx(opt, rel=1e-12, abs=1e-12)


def test_many_swaps_exercise_the_resynchronisation():
    # More than 64 swaps, so the maintained sums are recomputed along the way; the exact
    # (dyadic) weights make the from-scratch reference decide every step identically.
    rng = np.random.default_rng(21)
    n, k = 160, 80
    W = rng.integers(0, 9, size=(n, n)) / 8.0
    W[:k, :k] /= 4.0  # a light start region, so many swaps are needed
    W = np.triu(W, 1)
    W = W + W.T
    start = list(range(k))
    expected = from_scratch_local_search(W, k, start)
    swaps = len(set(expected) - set(start))
    assert swaps > 64
    assert local_search_matrix(W, k, start).tolist() == expected
    assert local_search_matrix(sp.csr_array(W), k, start).tolist() == expected


def test_max_iter_counts_exchanges():
    W = np.ones((6, 6))
    W[:3, :3] = 4.0
    np.fill_diagonal(W, 0.0)
    start = [2, 4, 5]  # two exchanges reach the heavy triangle
    assert local_search_matrix(W, 3, start, max_iter=0).tolist() == start
    one = local_search_matrix(W, 3, start, max_iter=1).tolist()
    assert one == [0, 2, 5] == naive_local_search(W, 3, start, max_iter=1)
    assert local_search_matrix(W, 3, start, max_iter=2).tolist() == [0, 1, 2]
    # {3, 4, 5} is 1-swap optimal although far from the optimum: nothing moves
    assert local_search_matrix(W, 3, [3, 4, 5]).tolist() == [3, 4, 5]
    assert local_search_matrix(W, 3, start, max_iter=3).tolist() == [0, 1, 2]
    assert local_search_matrix(W, 3, start, max_iter=100).tolist() == [0, 1, 2]


def test_ties_go_to_lowest_indices():
    # a heavier triangle 0, 1, 2; 3 and 4 are not adjacent. From {3, 4} every exchange of
    # 3 or 4 for 0, 1 or 2 gains 1: remove 3 (the lowest), add 0 (the lowest).
    W = np.ones((5, 5))
    W[:3, :3] = 2.0
    W[3, 4] = W[4, 3] = 0.0
    np.fill_diagonal(W, 0.0)
    for matrix in (W, sp.csr_array(W)):
        assert local_search_matrix(matrix, 2, [3, 4], max_iter=1).tolist() == [0, 4]
    assert naive_local_search(W, 2, [3, 4], max_iter=1) == [0, 4]
    # no improving exchange at all: the start is returned
    uniform = np.ones((5, 5)) - np.eye(5)
    assert local_search_matrix(uniform, 3, [4, 2, 0]).tolist() == [0, 2, 4]
    assert local_search_matrix(np.zeros((5, 5)), 2, [3, 1]).tolist() == [1, 3]


def test_decimal_near_ties_are_not_improvements():
    # S = {0, 1, 2} weighs 0.3 + 0.2. Exchanging 0 for 3 gains 0.1 + 0.2 - 0.3, which is 0
    # exactly but 5.6e-17 in floating point; every other exchange loses. Rounding must
    # not count as an improvement.
    W = np.zeros((4, 4))
    for i, j, w in [(0, 1, 0.3), (1, 2, 0.2), (3, 1, 0.1), (3, 2, 0.2)]:
        W[i, j] = W[j, i] = w
    assert (0.1 + 0.2) - 0.3 > 0
    for matrix in (W, sp.csr_array(W)):
        assert local_search_matrix(matrix, 3, [0, 1, 2]).tolist() == [0, 1, 2]


def test_start_formats_and_input_not_modified():
    W = random_weights(np.random.default_rng(4), 7, "continuous")
    copy = W.copy()
    expected = local_search_matrix(W, 3, [5, 1, 2]).tolist()
    for start in ([5, 1, 2], (1, 2, 5), {1, 2, 5}, np.array([5, 1, 2]), np.array([5, 1, 2], dtype=np.int8),
                  (v for v in [2, 5, 1]), [np.int64(5), 1, 2]):
        assert local_search_matrix(W, 3, start).tolist() == expected
    assert np.array_equal(W, copy)


def test_k_equal_n_and_k_one():
    W = random_weights(np.random.default_rng(5), 5, "continuous")
    assert local_search_matrix(W, 5, [4, 3, 2, 1, 0]).tolist() == [0, 1, 2, 3, 4]
    assert local_search_matrix(W, 1, [3]).tolist() == [3]  # one vertex: every set weighs 0


@pytest.mark.parametrize("make", [np.asarray, sp.csr_array])
@pytest.mark.parametrize("k, start, error, pattern", [
    (2, [0], InvalidParameterError, r"start must contain exactly k=2 vertices, got 1"),
    (2, [0, 1, 2], InvalidParameterError, r"start must contain exactly k=2 vertices, got 3"),
    (2, [1, 1], InvalidParameterError, r"start contains duplicate vertices: \[1\]"),
    (2, [0, 4], InvalidParameterError, r"start contains vertices outside 0..3: \[4\]"),
    (2, [-1, 0], InvalidParameterError, r"start contains vertices outside 0..3: \[-1\]"),
    (2, [0.0, 1.0], TypeError, "start must hold integer vertex indices"),
    (2, [True, False], TypeError, "start must hold integer vertex indices"),
    (2, np.array([True, False, True, False]), TypeError, "start must hold integer vertex indices"),
    (2, 3, TypeError, "start must be an iterable"),
    (2, "01", TypeError, "start must be an iterable"),
    (5, [0, 1, 2, 3, 4], InvalidParameterError, r"k=5 must satisfy 1 <= k <= 4"),
    (0, [], InvalidParameterError, r"k=0 must satisfy 1 <= k <= 4"),
])
def test_matrix_start_validation(make, k, start, error, pattern):
    W = np.ones((4, 4)) - np.eye(4)
    with pytest.raises(error, match=pattern):
        local_search_matrix(make(W), k, start)


@pytest.mark.parametrize("W, error, pattern", [
    (np.ones((3, 4)), InvalidParameterError, "square"),
    (np.array([[0.0, 1.0, 0.0], [2.0, 0.0, 0.0], [0.0, 0.0, 0.0]]), InvalidParameterError, "symmetric"),
    (np.array([[0.0, -1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]), InvalidParameterError, "non-negative"),
    (np.array([[0.0, np.nan, 0.0], [np.nan, 0.0, 0.0], [0.0, 0.0, 0.0]]), InvalidParameterError, "finite"),
])
def test_matrix_validation(W, error, pattern):
    for matrix in (W, sp.csr_array(W)):
        with pytest.raises(error, match=pattern):
            local_search_matrix(matrix, 1, [0])


@pytest.mark.parametrize("max_iter, error", [(-1, InvalidParameterError), (1.5, TypeError), (True, TypeError)])
def test_max_iter_validation(max_iter, error):
    with pytest.raises(error, match="max_iter"):
        local_search_matrix(np.ones((3, 3)), 1, [0], max_iter=max_iter)
    with pytest.raises(error, match="max_iter"):
        local_search(nx.complete_graph(3), 1, [0], max_iter=max_iter)


def test_sparse_path_scales():
    rng = np.random.default_rng(6)
    n, k = 20_000, 300
    W = sp.random(n, n, density=3e-4, random_state=rng, format="csr")
    W = sp.csr_array(sp.triu(W, 1))
    W = W + W.T
    start = rng.choice(n, size=k, replace=False)
    result = local_search_matrix(W, k, start)
    assert len(result) == k == len(set(result.tolist()))

    def weight(vertices):
        return W[vertices][:, vertices].sum() / 2

    assert weight(result) >= weight(np.sort(start))


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
    "ints": lambda n: list(range(n)),
    "strings": lambda n: [f"worker-{c}" for c in "qwertyuiopasdfghjkl"[:n]],
    "tuples": lambda n: [(i % 3, "x" * i) for i in range(n)],
    "mixed": lambda n: [("t", i) if i % 3 == 0 else (f"s{i}" if i % 3 == 1 else 1000 - i) for i in range(n)],
}


@pytest.mark.parametrize("label_kind", list(LABEL_SETS))
def test_networkx_equals_matrix_path_with_any_labels(label_kind):
    rng = np.random.default_rng(200 + list(LABEL_SETS).index(label_kind))
    for _ in range(25):
        n = int(rng.integers(1, 10))
        k = int(rng.integers(1, n + 1))
        W = random_weights(rng, n, KINDS[int(rng.integers(len(KINDS)))])
        labels = LABEL_SETS[label_kind](n)
        G = graph_from_matrix(W, labels)
        start_index = rng.choice(n, size=k, replace=False).tolist()
        start = [labels[i] for i in start_index]
        chosen = local_search(G, k, start)
        assert isinstance(chosen, set) and len(chosen) == k and chosen <= set(labels)
        assert chosen == {labels[i] for i in local_search_matrix(W, k, start_index)}
        assert G.subgraph(chosen).size(weight="weight") >= G.subgraph(start).size(weight="weight") - 1e-12
        assert local_search(G, k, start) == chosen


def test_after_fpk_keeps_the_proven_ratio():
    rng = np.random.default_rng(7)
    for _ in range(40):
        n = int(rng.integers(2, 9))
        k = int(rng.integers(1, n + 1))
        W = random_weights(rng, n, KINDS[int(rng.integers(len(KINDS)))])
        G = graph_from_matrix(W, [f"v{i}" for i in range(n)])
        first = fpk(G, k)
        improved = local_search(G, k, first)
        assert G.subgraph(improved).size(weight="weight") >= G.subgraph(first).size(weight="weight") - 1e-12
        opt, _ = brute_force(W, k)
        assert G.subgraph(improved).size(weight="weight") >= proven_fpk_ratio(n, k) * opt * (1 - 1e-12) - 1e-12


def test_missing_weight_counts_one_and_custom_attribute():
    rng = np.random.default_rng(8)
    for _ in range(30):
        n = int(rng.integers(3, 9))
        k = int(rng.integers(1, n + 1))
        W = np.zeros((n, n))
        G = nx.Graph()
        G.add_nodes_from(range(n))
        for i, j in itertools.combinations(range(n), 2):
            r = rng.random()
            if r < 0.3:
                G.add_edge(i, j)
                W[i, j] = W[j, i] = 1.0
            elif r < 0.7:
                w = float(rng.integers(0, 5))
                G.add_edge(i, j, weight=w, decoy=float(rng.random()))
                W[i, j] = W[j, i] = w
        start = rng.choice(n, size=k, replace=False).tolist()
        assert local_search(G, k, start) == set(local_search_matrix(W, k, start).tolist())
        unweighted = (nx.to_numpy_array(G, nodelist=range(n), weight=None) > 0).astype(float)
        assert local_search(G, k, start, weight="absent") == set(local_search_matrix(unweighted, k, start).tolist())
    G = nx.Graph()
    G.add_edge("a", "b", cost=10.0, weight=1.0)
    G.add_edge("c", "d", cost=1.0, weight=10.0)
    G.add_edge("a", "a", weight=100.0)  # self-loops are ignored
    assert local_search(G, 2, ["a", "c"], weight="cost") == {"a", "b"}
    assert local_search(G, 2, ["a", "c"]) == {"c", "d"}


def test_networkx_validation():
    path = nx.path_graph(["a", "b", "c", "d"])
    with pytest.raises(InvalidParameterError, match=r"start contains nodes not in G: \['z'\]"):
        local_search(path, 2, ["a", "z"])
    with pytest.raises(InvalidParameterError, match=r"start contains nodes not in G"):
        local_search(path, 2, ["a", ["b"]])  # unhashable: not a node
    with pytest.raises(InvalidParameterError, match=r"start contains duplicate nodes: \['a'\]"):
        local_search(path, 2, ["a", "a"])
    with pytest.raises(InvalidParameterError, match=r"start must contain exactly k=2 nodes, got 3"):
        local_search(path, 2, ["a", "b", "c"])
    with pytest.raises(InvalidParameterError, match=r"start must contain exactly k=2 nodes, got 1"):
        local_search(path, 2, {"a"})
    with pytest.raises(TypeError, match="start must be an iterable"):
        local_search(path, 2, 7)
    with pytest.raises(TypeError, match="start must be an iterable"):
        local_search(path, 2, "ab")
    with pytest.raises(InvalidParameterError, match="undirected"):
        local_search(nx.DiGraph(path), 2, ["a", "b"])
    multi = nx.MultiGraph(path)
    multi.add_edge("a", "b")
    with pytest.raises(InvalidParameterError, match="multigraph"):
        local_search(multi, 2, ["a", "b"])
    negative = nx.Graph(path)
    negative["b"]["c"]["weight"] = -0.5
    with pytest.raises(InvalidParameterError, match=r"'weight' must be non-negative"):
        local_search(negative, 2, ["a", "b"])
    with pytest.raises(InvalidParameterError, match=r"k=5 must satisfy 1 <= k <= 4"):
        local_search(path, 5, ["a", "b", "c", "d", "e"])
    with pytest.raises(InvalidParameterError, match=r"k=0 must satisfy 1 <= k <= 4"):
        local_search(path, 0, [])
    with pytest.raises(TypeError, match="networkx.Graph"):
        local_search(np.ones((3, 3)), 2, [0, 1])
    with pytest.raises(ValueError):  # the errors are ValueErrors, as documented
        local_search(path, 2, ["a", "a"])


def test_docstring_examples():
    failures, attempted = doctest.testmod(local_search_module, verbose=False, report=False)
    assert attempted >= 5
    assert failures == 0
