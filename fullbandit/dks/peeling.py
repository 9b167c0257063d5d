"""Greedy peeling for the densest-k-subgraph problem (Asahiro, Iwama, Tamaki, Tokuyama 2000).

Repeatedly delete a vertex of minimum weighted degree in the remaining graph until ``k``
vertices remain (:data:`PEELING`, ``method="peeling"`` of
:func:`fullbandit.dks.densest_k_subgraph`). Ties go to the lowest index (the node earliest
in ``G.nodes``).

* Dense matrices: ``O(n^2)``, each deletion updates every degree by one column. Degrees
  within ``1e-12`` (relative to the total weight) of the minimum count as tied, so the
  rounding of incremental updates (weights such as 0.1) cannot decide a tie.
* Sparse matrices: ``O(m log n)`` with a heap: a deletion lowers only the neighbours'
  degrees, each pushing one heap entry (stale entries are skipped when popped). Only exact
  ties go to the lowest index.

References
----------
Y. Asahiro, K. Iwama, H. Tamaki, T. Tokuyama. Greedily finding a dense subgraph. Journal
of Algorithms 34(2), 203-221, 2000. Used as the oracle of Algorithm 1 in Kuroki et al.,
Neural Computation 32(9), 2020, Appendix E.
"""

from __future__ import annotations

import heapq

import numpy as np

from fullbandit.dks.oracle import Oracle
from fullbandit.dks.weights import WeightMatrix

__all__ = ["PEELING", "proven_peeling_ratio"]

_TIE_TOLERANCE = 1e-12  # relative to the total weight: differences below it are rounding


def _peel(weights: WeightMatrix, k: int) -> np.ndarray:
    """The ``k`` vertices greedy peeling keeps, increasing."""
    return _peel_sparse(weights.matrix, k) if weights.is_sparse else _peel_dense(weights.matrix, k)


def _peel_sparse(W, k: int) -> np.ndarray:
    n = W.shape[0]
    degree = np.asarray(W.sum(axis=1)).ravel().astype(float)
    heap = list(zip(degree.tolist(), range(n), strict=True))
    heapq.heapify(heap)
    removed = np.zeros(n, dtype=bool)
    indptr, indices, data = W.indptr, W.indices, W.data
    push, pop = heapq.heappush, heapq.heappop
    current = degree.tolist()  # Python floats: the heap compares them without numpy overhead
    for _ in range(n - k):
        while True:
            value, vertex = pop(heap)
            if not removed[vertex] and value == current[vertex]:
                break
        removed[vertex] = True
        start, end = indptr[vertex], indptr[vertex + 1]
        neighbours = indices[start:end]
        alive = ~removed[neighbours]
        neighbours, edge_weights = neighbours[alive], data[start:end][alive]
        degree[neighbours] -= edge_weights
        for neighbour, new_degree in zip(neighbours.tolist(), degree[neighbours].tolist(), strict=True):
            current[neighbour] = new_degree
            push(heap, (new_degree, neighbour))
    return np.flatnonzero(~removed)


def _peel_dense(W: np.ndarray, k: int) -> np.ndarray:
    n = W.shape[0]
    degree = W.sum(axis=1)
    removed = np.zeros(n, dtype=bool)
    masked = degree.copy()
    tolerance = _TIE_TOLERANCE * max(float(W.sum()), np.finfo(float).tiny)
    for _ in range(n - k):
        vertex = int(np.argmax(masked <= masked.min() + tolerance))
        removed[vertex] = True
        degree -= W[:, vertex]
        masked = np.where(removed, np.inf, degree)
    return np.flatnonzero(~removed)


def proven_peeling_ratio(n: int, k: int) -> float:
    """A ratio greedy peeling provably reaches on every instance: ``k (k - 1) / (n (n - 1))``.

    Parameters
    ----------
    n : int
        Number of vertices.
    k : int
        Subgraph size, ``1 <= k <= n``.

    Returns
    -------
    float
        The ratio, in ``(0, 1]``; 1 for ``k = 1`` (every single vertex is optimal).

    Notes
    -----
    Proof: a graph on ``j`` vertices with weight ``w_j`` has a vertex of weighted degree at
    most ``2 w_j / j``, so one deletion keeps ``w_{j-1} >= w_j (j - 2) / j``; the product from
    ``j = n`` down to ``k + 1`` telescopes to ``k (k - 1) / (n (n - 1))``, and the optimum is
    at most the whole graph's weight ``w_n``.

    Asahiro et al. (2000) prove the much better worst-case ratio ``~ 1 / (2 (n/k - 1))``
    (``k < n/3``) or ``~ 1 / (1/2 + n / (2k))^2``, but only up to unspecified
    ``O(1/k)``, ``O(n / k^2)`` and ``O(n^{-1/3})`` terms, so those cannot certify a bound.

    References
    ----------
    Y. Asahiro, K. Iwama, H. Tamaki, T. Tokuyama. Greedily finding a dense subgraph.
    Journal of Algorithms 34(2), 2000.

    Examples
    --------
    >>> proven_peeling_ratio(10, 4)
    0.13333333333333333
    >>> proven_peeling_ratio(10, 1), proven_peeling_ratio(10, 10)
    (1.0, 1.0)
    """
    if k < 2:
        return 1.0  # one vertex induces no edge: every choice is optimal
    return k * (k - 1) / (n * (n - 1))


PEELING = Oracle("peeling", _peel, proven_peeling_ratio)
