"""Greedy peeling for the densest-k-subgraph problem (Asahiro, Iwama, Tamaki, Tokuyama 2000).

Repeatedly delete a vertex of minimum weighted degree in the remaining graph until ``k``
vertices remain (:data:`PEELING`, ``method="peeling"`` of
:func:`fullbandit.dks.densest_k_subgraph`). Ties go to the lowest index (the node earliest
in ``G.nodes``).

* Dense matrices: ``O(n^2)``. Each deletion subtracts the deleted vertex's row (contiguous
  in memory) from the degree vector; deleted vertices hold degree ``+inf``. Degrees within
  ``1e-12`` times the sum of all degrees (twice the total weight) of the minimum count as
  tied, so the rounding of incremental updates (weights such as 0.1) cannot decide a tie.
* Sparse matrices: ``O(m log n)`` with a priority queue keyed ``(degree, index)``: a
  deletion lowers only the neighbours' degrees. Only exact ties go to the lowest index.
  With numba installed (the ``fast`` extra) an indexed binary heap compiled by
  :mod:`fullbandit.dks.compiled` runs it on large matrices; otherwise a ``heapq`` loop
  (stale entries skipped when popped). Both subtract the same weights in the same order:
  identical results.

References
----------
Y. Asahiro, K. Iwama, H. Tamaki, T. Tokuyama. Greedily finding a dense subgraph. Journal
of Algorithms 34(2), 203-221, 2000. Used as the oracle of Algorithm 1 in Kuroki et al.,
Neural Computation 32(9), 2020, Appendix E.
"""

from __future__ import annotations

import heapq

import numpy as np

from fullbandit.dks import compiled
from fullbandit.dks.oracle import Oracle
from fullbandit.dks.weights import WeightMatrix

__all__ = ["PEELING", "proven_peeling_ratio"]

_TIE_TOLERANCE = 1e-12  # relative to the sum of the degrees: differences below it are rounding


def _peel(weights: WeightMatrix, k: int) -> np.ndarray:
    """The ``k`` vertices greedy peeling keeps, increasing."""
    if not weights.is_sparse:
        return _peel_dense(weights.matrix, k)
    if compiled.use_for(weights.matrix):
        return _peel_sparse_compiled(weights.matrix, k)
    return _peel_sparse_heapq(weights.matrix, k)


def _initial_degrees(W) -> np.ndarray:
    return np.asarray(W.sum(axis=1), dtype=float).ravel()


def _peel_sparse_compiled(W, k: int) -> np.ndarray:
    degree = np.array(_initial_degrees(W), dtype=np.float64)  # a writable copy: the kernel updates it
    return np.flatnonzero(compiled.peel_sparse(W.indptr, W.indices, W.data, degree, k))


def _peel_sparse_heapq(W, k: int) -> np.ndarray:
    n = W.shape[0]
    current = _initial_degrees(W).tolist()  # Python floats: the heap compares them without numpy overhead
    heap = list(zip(current, range(n), strict=True))
    heapq.heapify(heap)
    alive = [True] * n
    indptr, indices, data = W.indptr.tolist(), W.indices.tolist(), W.data.tolist()
    push, pop = heapq.heappush, heapq.heappop
    for _ in range(n - k):
        value, vertex = pop(heap)
        while not alive[vertex] or value != current[vertex]:  # stale entries
            value, vertex = pop(heap)
        alive[vertex] = False
        start, end = indptr[vertex], indptr[vertex + 1]
        for neighbour, weight in zip(indices[start:end], data[start:end], strict=True):
            if alive[neighbour]:
                current[neighbour] -= weight
                push(heap, (current[neighbour], neighbour))
    return np.flatnonzero(alive)


def _peel_dense(W: np.ndarray, k: int) -> np.ndarray:
    n = W.shape[0]
    degree = W.sum(axis=1)
    tolerance = _TIE_TOLERANCE * max(float(degree.sum()), np.finfo(float).tiny)
    tied = np.empty(n, dtype=bool)
    removed = np.zeros(n, dtype=bool)
    for _ in range(n - k):
        lowest = int(degree.argmin())
        # the lowest index within the tolerance of the minimum: only indices before argmin can beat it
        earlier = np.less_equal(degree[:lowest], degree[lowest] + tolerance, out=tied[:lowest])
        vertex = int(earlier.argmax()) if earlier.any() else lowest
        degree -= W[vertex]  # W is symmetric and C-contiguous: the row is the column, read contiguously
        degree[vertex] = np.inf
        removed[vertex] = True
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
