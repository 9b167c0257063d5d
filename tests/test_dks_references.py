"""Independent references and instances shared by the DkS tests (and tests of the references themselves).

Everything here is plain Python over the matrix entries, written from the definitions, so
that the library is compared against something that shares none of its code.
"""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import strategies as st


def naive_weight(W, vertices) -> float:
    """``sum_{i < j in S} W_ij`` entry by entry."""
    vertices = sorted(vertices)
    return float(sum(W[u][v] for a, u in enumerate(vertices) for v in vertices[a + 1:]))


def naive_optimum(W, k: int) -> tuple[list, float]:
    """(the lexicographically first ``k``-set of maximum weight, that weight), by enumeration."""
    best, best_weight = None, -math.inf
    for subset in itertools.combinations(range(len(W)), k):
        weight = naive_weight(W, subset)
        if weight > best_weight:
            best, best_weight = list(subset), weight
    return best, best_weight


def best_swap_gain(W, S) -> float:
    """The largest weight gain of exchanging one vertex of ``S`` for one outside (0 if none is possible)."""
    S = list(S)
    current = naive_weight(W, S)
    gains = [naive_weight(W, [v for v in S if v != u] + [x]) - current
             for u in S for x in range(len(W)) if x not in S]
    return max(gains, default=0.0)


def random_weights(rng, n: int, kind: str) -> np.ndarray:
    """A symmetric non-negative weight matrix with zero diagonal.

    The kinds in :data:`EXACT_KINDS` use small multiples of 1/8, so every sum, product and
    ``W^2`` entry is exact in floating point whatever the order of the operations: their
    ties are true ties. "planted-last" hides a heavy clique among the *last* vertices and
    leaves the first ones isolated, so an oracle returning the first ``k`` vertices weighs 0.
    """
    if kind == "integer":
        W = rng.integers(0, 4, size=(n, n)).astype(float)
    elif kind == "binary":
        W = (rng.random((n, n)) < 0.5).astype(float)
    elif kind == "dyadic-sparse":
        W = rng.integers(1, 9, size=(n, n)) / 8.0 * (rng.random((n, n)) < 0.3)
    elif kind == "dyadic-planted":  # a heavy clique among light edges and a heavy star
        W = rng.integers(0, 3, size=(n, n)) / 8.0
        clique = rng.choice(n, size=min(n, max(2, n // 3)), replace=False)
        W[np.ix_(clique, clique)] += 1.0
        hub = int(rng.integers(n))
        W[hub, :] += 0.75
        W[:, hub] += 0.75
    elif kind == "heavy-matching":  # a few heavy disjoint edges beside a light dense block
        W = np.zeros((n, n))
        block = n // 2
        W[:block, :block] = 1.0
        for i in range(block, n - 1, 2):
            W[i, i + 1] = 2.0
    elif kind == "planted-last":
        W = np.zeros((n, n))
        size = min(n, max(2, n // 2))
        W[n - size:, n - size:] = rng.integers(1, 5, size=(size, size)) / 4.0
    elif kind == "continuous":
        W = rng.exponential(1.0, size=(n, n)) * (rng.random((n, n)) < 0.6)
    elif kind == "heavy-tailed":
        W = rng.pareto(1.0, size=(n, n)) * (rng.random((n, n)) < 0.5)
    elif kind == "algorithm-1":  # the complete graph Algorithm 1 builds from Q = A^-1
        from fullbandit.full.qp import dks_weights
        B = rng.standard_normal((n, n))
        W = dks_weights(np.linalg.inv(B @ B.T + 0.1 * np.eye(n)))
        return (W + W.T) / 2.0  # inv() is symmetric only up to rounding
    else:
        raise AssertionError(kind)
    W = np.triu(W, 1)
    return W + W.T


EXACT_KINDS = ("integer", "binary", "dyadic-sparse", "dyadic-planted", "heavy-matching", "planted-last")
KINDS = EXACT_KINDS + ("continuous", "heavy-tailed", "algorithm-1")


@st.composite
def dks_instances(draw, max_n: int = 8, kinds=KINDS, min_n: int = 1):
    """``(W, k)`` with ``min_n <= n <= max_n`` and ``1 <= k <= n``."""
    kind = draw(st.sampled_from(kinds))
    n = draw(st.integers(max(min_n, 2 if kind == "algorithm-1" else 1), max_n))
    k = draw(st.integers(1, n))
    seed = draw(st.integers(0, 2 ** 32 - 1))
    return random_weights(np.random.default_rng(seed), n, kind), k


def graph_from_matrix(W, labels, weight: str = "weight") -> nx.Graph:
    """The graph with nodes ``labels`` (in that order) and an edge wherever ``W`` is non-zero."""
    G = nx.Graph()
    G.add_nodes_from(labels)
    for i, j in itertools.combinations(range(len(labels)), 2):
        if W[i][j] != 0:
            G.add_edge(labels[i], labels[j], **{weight: float(W[i][j])})
    return G


LABEL_SETS = {
    "ints": lambda n: list(range(n)),
    "shuffled-ints": lambda n: [int(v) for v in np.random.default_rng(n).permutation(100)[:n]],
    "strings": lambda n: [f"worker-{c}" for c in "qwertyuiopasdfghjkl"[:n]],
    "tuples": lambda n: [(i % 3, "x" * i) for i in range(n)],
    "mixed": lambda n: [("t", i) if i % 3 == 0 else (f"s{i}" if i % 3 == 1 else 1000 - i) for i in range(n)],
}


# --- the references are right ------------------------------------------------------------------

def test_naive_optimum_on_a_hand_instance():
    # edges 01:4, 02:2, 12:2, 23:5
    W = np.array([[0, 4, 2, 0], [4, 0, 2, 0], [2, 2, 0, 5], [0, 0, 5, 0]], dtype=float)
    assert naive_optimum(W, 2) == ([2, 3], 5.0)
    assert naive_optimum(W, 3) == ([0, 1, 2], 8.0)
    assert naive_optimum(W, 1) == ([0], 0.0)
    assert best_swap_gain(W, [0, 3]) == 5.0  # 0 -> 2 makes the heaviest edge


@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_is_a_valid_instance(kind):
    W = random_weights(np.random.default_rng(0), 9, kind)
    assert W.shape == (9, 9) and np.array_equal(W, W.T) and (W >= 0).all() and not np.diag(W).any()
    assert W.any()
    if kind == "planted-last":
        assert naive_weight(W, range(4)) == 0.0 < naive_optimum(W, 4)[1]
