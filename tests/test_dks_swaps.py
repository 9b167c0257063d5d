"""1-swap local search (local_search, local_search_matrix; the "+swap" methods): its rule, ties and start.

What every oracle, "+swap" ones included, must do is in test_dks_conformance.py.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from test_dks_references import (
    EXACT_KINDS,
    KINDS,
    LABEL_SETS,
    best_swap_gain,
    graph_from_matrix,
    naive_optimum,
    naive_weight,
    random_weights,
)

from fullbandit.dks import local_search, local_search_matrix
from fullbandit.util.validation import InvalidParameterError


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


@st.composite
def instances_with_start(draw, max_n=9, kinds=KINDS):
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

@settings(max_examples=40, deadline=None)
@given(instances_with_start(max_n=8, kinds=EXACT_KINDS))
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


@settings(max_examples=60, deadline=None)
@given(instances_with_start())
def test_never_lowers_the_weight_and_ends_one_swap_optimal(instance):
    W, k, start = instance
    n = W.shape[0]
    result = local_search_matrix(W, k, start)
    assert len(result) == k == len(set(result.tolist()))
    assert result.tolist() == sorted(result.tolist()) and all(0 <= v < n for v in result.tolist())
    weight = naive_weight(W, result.tolist())
    assert weight >= naive_weight(W, start) - 1e-12 * max(1.0, total_weight(W))
    assert best_swap_gain(W, result) <= 1e-9 * max(1.0, total_weight(W))
    assert local_search_matrix(W, k, start).tolist() == result.tolist()  # deterministic
    assert local_search_matrix(W, k, list(reversed(start))).tolist() == result.tolist()  # order-free
    sparse_result = local_search_matrix(sp.csr_array(W), k, start)
    assert sparse_result.tolist() == result.tolist()


@settings(max_examples=40, deadline=None)
@given(instances_with_start(max_n=9))
def test_started_from_the_optimum_stays_optimal(instance):
    W, k, _ = instance
    best, opt = naive_optimum(W, k)
    for matrix in (W, sp.csr_array(W)):
        result = local_search_matrix(matrix, k, best)
        assert naive_weight(W, result.tolist()) == pytest.approx(opt, rel=1e-12, abs=1e-12)


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


@pytest.mark.parametrize("max_iter, error", [(-1, InvalidParameterError), (1.5, TypeError), (True, TypeError)])
def test_max_iter_validation(max_iter, error):
    with pytest.raises(error, match="max_iter"):
        local_search_matrix(np.ones((3, 3)), 1, [0], max_iter=max_iter)
    with pytest.raises(error, match="max_iter"):
        local_search(nx.complete_graph(3), 1, [0], max_iter=max_iter)


@pytest.mark.slow
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

@pytest.mark.parametrize("label_kind", list(LABEL_SETS))
def test_graph_search_equals_matrix_search_with_any_labels(label_kind):
    rng = np.random.default_rng(200 + list(LABEL_SETS).index(label_kind))
    for _ in range(10):
        n = int(rng.integers(1, 10))
        k = int(rng.integers(1, n + 1))
        W = random_weights(rng, n, EXACT_KINDS[int(rng.integers(len(EXACT_KINDS)))])
        labels = LABEL_SETS[label_kind](n)
        G = graph_from_matrix(W, labels)
        start_index = rng.choice(n, size=k, replace=False).tolist()
        chosen = local_search(G, k, [labels[i] for i in start_index])
        assert isinstance(chosen, set)
        assert chosen == {labels[i] for i in local_search_matrix(W, k, start_index)}


def test_graph_start_validation():
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
    with pytest.raises(InvalidParameterError, match="G must be undirected"):  # G is checked too
        local_search(nx.DiGraph(path), 2, ["a", "b"])
