"""Greedy peeling (method="peeling"): the exact deletion rule, its ties, and its proven ratio.

What every oracle must do (k distinct vertices, their weight, the proven ratio, both entry
points, validation) is in test_dks_conformance.py.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from test_dks_references import EXACT_KINDS, KINDS, dks_instances, naive_weight, random_weights

from fullbandit.dks import densest_k_subgraph_matrix, proven_peeling_ratio


def peel(W, k) -> list[int]:
    return list(densest_k_subgraph_matrix(W, k, method="peeling").vertices)


def naive_peel(W, k):
    """Delete a vertex of minimum weighted degree (recomputed from scratch), ties to the lowest index."""
    remaining = list(range(len(W)))
    while len(remaining) > k:
        degrees = [sum(W[v][u] for u in remaining if u != v) for v in remaining]
        position = min(range(len(remaining)), key=lambda i: (degrees[i], remaining[i]))
        remaining.pop(position)
    return remaining


@settings(max_examples=80, deadline=None)
@given(dks_instances(max_n=12, kinds=EXACT_KINDS))
def test_dense_and_sparse_paths_follow_the_deletion_rule(instance):
    # exact arithmetic: ties are true ties and must go to the lowest index, on both paths
    W, k = instance
    expected = naive_peel(W, k)
    assert peel(W, k) == expected
    assert peel(sp.csr_array(W), k) == expected


@settings(max_examples=40, deadline=None)
@given(dks_instances(max_n=12, kinds=("continuous", "heavy-tailed"), min_n=2))
def test_deletion_rule_with_continuous_weights(instance):
    # generic real weights, k >= 2: no ties almost surely
    W, k = instance
    k = max(k, 2)
    assert peel(W, k) == naive_peel(W, k)
    assert peel(sp.csr_array(W), k) == naive_peel(W, k)


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
    for (i, j), w in zip(itertools.combinations(range(n), 2), weights, strict=True):
        W[i, j] = W[j, i] = w
    assert naive_peel(W, k) == expected  # the reference agrees with the hand computation
    assert peel(W, k) == expected


def test_many_integer_ties():
    rng = np.random.default_rng(0)
    for _ in range(100):
        n = int(rng.integers(2, 15))
        k = int(rng.integers(1, n + 1))
        W = random_weights(rng, n, "binary")  # 0/1: ties everywhere
        assert peel(W, k) == naive_peel(W, k)


def test_uniform_and_empty_graphs_keep_the_highest_indices():
    # all degrees equal: the lowest indices are deleted first, so the highest remain
    assert peel(np.ones((6, 6)) - np.eye(6), 2) == [4, 5]
    assert peel(np.zeros((5, 5)), 3) == [2, 3, 4]
    assert peel(sp.csr_array((5, 5)), 3) == [2, 3, 4]


def test_proven_peeling_ratio_closed_form():
    for n in range(2, 30):
        for k in range(1, n + 1):
            if k < 2:
                assert proven_peeling_ratio(n, k) == 1.0
                continue
            # telescoping product of (j - 2) / j for j = n down to k + 1, in exact arithmetic
            product = math.prod((Fraction(j - 2, j) for j in range(k + 1, n + 1)), start=Fraction(1))
            assert proven_peeling_ratio(n, k) == pytest.approx(float(product), rel=1e-14)


def test_one_deletion_keeps_the_proven_fraction():
    # The step of the proof: deleting a vertex of minimum weighted degree from j vertices
    # keeps at least (j - 2) / j of the weight.
    rng = np.random.default_rng(3)
    for _ in range(100):
        n = int(rng.integers(3, 12))
        W = random_weights(rng, n, KINDS[int(rng.integers(len(KINDS)))])
        before = naive_weight(W, range(n))
        after = naive_weight(W, peel(W, n - 1))
        assert after >= before * (n - 2) / n - 1e-12 * max(1.0, before)
