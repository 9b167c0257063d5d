"""Greedy peeling for the densest-k-subgraph problem (Asahiro, Iwama, Tamaki, Tokuyama 2000)."""

from __future__ import annotations

import heapq

import numpy as np

from fullbandit._validation import InvalidParameterError, check_int
from fullbandit.dks._graph import check_graph, check_weight_matrix, graph_matrix, is_sparse


_TIE_TOLERANCE = 1e-12  # relative to the total weight: differences below it are rounding


def peel_sparse(W, k: int) -> np.ndarray:
    """Greedy peeling on a sparse (scipy) symmetric weight matrix: O(m log n) with a heap.

    A deletion lowers only the neighbours' degrees, so each edge is touched once per
    endpoint and each touch pushes one heap entry (stale entries are skipped when
    popped). Exact ties go to the lowest index; unlike :func:`peel_dense`, rounding-level
    differences are not treated as ties.
    """
    import scipy.sparse as sparse
    if not is_sparse(W):
        raise TypeError(f"W must be a scipy sparse matrix, got {type(W).__name__}")
    W = sparse.csr_array(W, dtype=float)
    n = W.shape[0]
    if W.shape != (n, n):
        raise InvalidParameterError(f"W must be a square matrix, got shape {W.shape}")
    W = W.copy()
    W.setdiag(0.0)
    W.eliminate_zeros()
    if W.nnz and (not np.all(np.isfinite(W.data)) or np.any(W.data < 0)):
        raise InvalidParameterError("W must hold finite non-negative weights for densest-k-subgraph")
    if abs(W - W.T).sum() > 1e-9 * max(1.0, float(W.sum())):
        raise InvalidParameterError("W must be symmetric (an undirected graph)")
    k = check_int("k", k, low=1, high=n)
    return _peel_sparse(W, k)


def _peel_sparse(W, k: int) -> np.ndarray:
    n = W.shape[0]
    degree = np.asarray(W.sum(axis=1)).ravel().astype(float)
    heap = list(zip(degree.tolist(), range(n)))
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
        neighbours, weights = neighbours[alive], data[start:end][alive]
        degree[neighbours] -= weights
        for neighbour, new_degree in zip(neighbours.tolist(), degree[neighbours].tolist()):
            current[neighbour] = new_degree
            push(heap, (new_degree, neighbour))
    return np.flatnonzero(~removed)


def peel_dense(W, k: int) -> np.ndarray:
    """Greedy peeling on a dense symmetric weight matrix: the matrix fast path.

    Repeatedly delete a vertex of minimum weighted degree in the remaining graph until
    ``k`` vertices remain. O(n^2): each deletion updates every degree by one column.
    Ties go to the lowest index; degrees within ``1e-12`` (relative) of the minimum count
    as tied, so the rounding of incremental updates (weights such as 0.1) cannot decide.

    Parameters
    ----------
    W : array_like of shape (n, n)
        Symmetric, non-negative off the diagonal (the diagonal is ignored).
    k : int
        Number of vertices to keep, ``1 <= k <= n``.

    Returns
    -------
    numpy.ndarray
        The ``k`` kept vertex indices, increasing.
    """
    W, k = check_weight_matrix(W, k)
    return _peel(W, k)


def _peel(W: np.ndarray, k: int) -> np.ndarray:
    n = W.shape[0]
    degree = W.sum(axis=1) - np.diag(W)
    removed = np.zeros(n, dtype=bool)
    masked = degree.copy()
    tolerance = _TIE_TOLERANCE * max(float(np.abs(W).sum()), np.finfo(float).tiny)
    for _ in range(n - k):
        vertex = int(np.argmax(masked <= masked.min() + tolerance))
        removed[vertex] = True
        degree -= W[:, vertex]
        masked = np.where(removed, np.inf, degree)
    return np.flatnonzero(~removed)


def proven_peeling_ratio(n: int, k: int) -> float:
    """A ratio greedy peeling provably reaches on every instance: ``k (k - 1) / (n (n - 1))``.

    Proof: a graph on ``j`` vertices with weight ``w_j`` has a vertex of weighted degree at
    most ``2 w_j / j``, so one deletion keeps ``w_{j-1} >= w_j (j - 2) / j``; the product from
    ``j = n`` down to ``k + 1`` telescopes to ``k (k - 1) / (n (n - 1))``, and the optimum is
    at most the whole graph's weight ``w_n``.

    Notes
    -----
    Asahiro et al. (2000) prove the much better worst-case ratio ``~ 1 / (2 (n/k - 1))``
    (``k < n/3``) or ``~ 1 / (1/2 + n / (2k))^2``, but only up to unspecified
    ``O(1/k)``, ``O(n / k^2)`` and ``O(n^{-1/3})`` terms, so those cannot certify a bound.
    """
    if k < 2:
        return 1.0  # one vertex induces no edge: every choice is optimal
    return k * (k - 1) / (n * (n - 1))


def greedy_peeling(G, k: int, weight: str = "weight") -> set:
    """Densest-k-subgraph by greedy peeling on a weighted undirected networkx graph.

    Parameters
    ----------
    G : networkx.Graph
        Undirected, not a multigraph; edge weights in attribute ``weight`` (default 1),
        non-negative.
    k : int
        Number of nodes to return, ``1 <= k <= G.number_of_nodes()``.
    weight : str
        Edge attribute holding the weight.

    Returns
    -------
    set
        ``k`` node labels of ``G``.

    Raises
    ------
    ValueError
        If ``G`` is directed or a multigraph, a weight is negative, or ``k`` is out of range.

    References
    ----------
    Y. Asahiro, K. Iwama, H. Tamaki, T. Tokuyama. Greedily finding a dense subgraph.
    Journal of Algorithms 34(2), 2000. Used as the oracle of Algorithm 1 in Kuroki et al.,
    Neural Computation 32(9), 2020, Appendix E.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.complete_graph(4)
    >>> G.add_edge(3, "leaf")
    >>> sorted(greedy_peeling(G, 4))
    [0, 1, 2, 3]
    """
    k = check_graph(G, k)
    nodes, W = graph_matrix(G, weight)
    return {nodes[i] for i in (_peel_sparse(W, k) if is_sparse(W) else _peel(W, k))}
