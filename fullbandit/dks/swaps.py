"""1-swap (1-exchange) local search for the densest-k-subgraph problem, weighted.

Starting from any ``k`` vertices (e.g. another oracle's answer), exchange one vertex
inside for one outside while that raises the induced weight. It can only improve its
start, so it turns any oracle's proven ratio into a ratio for the combination.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

import numpy as np

from fullbandit.dks.oracle import Oracle
from fullbandit.dks.weights import (
    WeightMatrix,
    check_graph,
    check_nodes,
    check_vertex_indices,
    check_weight_matrix,
    csr_row_entries,
    graph_weights,
)
from fullbandit.util.validation import check_int

__all__ = ["local_search", "local_search_matrix", "with_local_search"]

_RELATIVE_TOLERANCE = 1e-12  # of the total weight: smaller gains are rounding, not improvement
_RESYNC_EVERY = 64  # swaps between exact recomputations of the maintained sums


def _into(W, members, sparse: bool) -> np.ndarray:
    """Weight from every vertex into the set ``members``, recomputed from scratch."""
    if sparse:
        _, columns, weights = csr_row_entries(W, members)
        return np.bincount(columns, weights=weights, minlength=W.shape[0]).astype(float)
    return W[members].sum(axis=0)


def _column(W, vertex: int, sparse: bool):
    if sparse:
        row = slice(W.indptr[vertex], W.indptr[vertex + 1])
        return W.indices[row], W.data[row]
    return slice(None), W[vertex]


def _best_swap_dense(W, inside, into, tolerance):
    members, outside = np.flatnonzero(inside), np.flatnonzero(~inside)
    gains = (into[outside][None, :] - W[np.ix_(members, outside)]) - into[members][:, None]
    top = gains.max()
    if not top > tolerance:
        return None
    flat = int(np.argmax((gains >= top - tolerance) & (gains > tolerance)))
    row, column = divmod(flat, outside.size)
    return int(members[row]), int(outside[column])


def _best_swap_sparse(W, inside, into, tolerance):
    """Same choice as the dense rule in ``O(n log n + vol(S) log n)`` instead of ``O(k (n - k))``.

    For ``u`` inside, the best ``x`` outside is a neighbour of ``u`` or the first
    non-neighbour in the order of decreasing ``into`` (ties: lowest index), since the
    gain is ``into[x] - W[u, x] - into[u]`` and ``W >= 0``. The first non-neighbour's
    position in that order is the smallest position not taken by a neighbour.
    """
    members, outside = np.flatnonzero(inside), np.flatnonzero(~inside)
    order = outside[np.lexsort((outside, -into[outside]))]
    rank = np.empty(W.shape[0], dtype=np.intp)
    rank[order] = np.arange(order.size)
    owner, columns, weights = csr_row_entries(W, members)
    away = ~inside[columns]
    owner, columns, weights = owner[away], columns[away], weights[away]
    best = np.full(members.size, -np.inf)
    np.maximum.at(best, owner, into[columns] - weights)
    # first free position per row: neighbour ranks sorted within each row
    taken = rank[columns]
    sorted_entries = np.lexsort((taken, owner))
    owner_sorted, taken_sorted = owner[sorted_entries], taken[sorted_entries]
    counts = np.bincount(owner, minlength=members.size)
    position = np.arange(owner.size) - (np.cumsum(counts) - counts)[owner_sorted]
    first_free = counts.copy()
    gap = taken_sorted != position
    np.minimum.at(first_free, owner_sorted[gap], position[gap])
    has_free = first_free < order.size
    best[has_free] = np.maximum(best[has_free], into[order[first_free[has_free]]] - 0.0)
    best_gain = best - into[members]
    top = best_gain.max()
    if not top > tolerance:
        return None
    chosen = int(np.argmax((best_gain >= top - tolerance) & (best_gain > tolerance)))
    u = int(members[chosen])
    row = np.zeros(W.shape[0])
    columns, weights = _column(W, u, True)
    row[columns] = weights
    gains = (into[outside] - row[outside]) - into[u]
    column = int(np.argmax((gains >= top - tolerance) & (gains > tolerance)))
    return u, int(outside[column])


def _local_search(weights: WeightMatrix, k: int, start: np.ndarray, max_iter: int | None = None) -> np.ndarray:
    """1-swap local search from ``start`` (sorted distinct indices, ``k`` of them)."""
    W, sparse = weights.matrix, weights.is_sparse
    n = W.shape[0]
    inside = np.zeros(n, dtype=bool)
    inside[start] = True
    if k == n:
        return np.flatnonzero(inside)
    into = _into(W, start, sparse)
    total = float(W.sum()) / 2.0
    tolerance = _RELATIVE_TOLERANCE * total
    find = _best_swap_sparse if sparse else _best_swap_dense
    swaps = 0
    while max_iter is None or swaps < max_iter:
        swap = find(W, inside, into, tolerance)
        if swap is None:
            break
        u, x = swap
        inside[u], inside[x] = False, True
        columns, weights = _column(W, x, sparse)
        into[columns] += weights
        columns, weights = _column(W, u, sparse)
        into[columns] -= weights
        swaps += 1
        if swaps % _RESYNC_EVERY == 0:
            into = _into(W, np.flatnonzero(inside), sparse)
    return np.flatnonzero(inside)


def local_search_matrix(W, k: int, start, *, max_iter: int | None = None) -> np.ndarray:
    """1-swap local search on a weight matrix: the matrix fast path.

    From ``start``, repeatedly make the *best* exchange of one vertex ``u`` inside for one
    vertex ``x`` outside: the one of largest gain
    ``into[x] - W[u, x] - into[u]`` (``into[v]`` = weight from ``v`` into the current set),
    until no gain exceeds ``1e-12`` times the total weight of ``W``. Gains within that
    tolerance of the largest count as tied; ties go to the lowest ``u``, then the lowest
    ``x``.

    Parameters
    ----------
    W : array_like, scipy sparse matrix or WeightMatrix of shape (n, n)
        Weights as :func:`~fullbandit.dks.weights.check_weight_matrix` accepts them.
    k : int
        Number of vertices, ``1 <= k <= n``.
    start : iterable of int
        ``k`` distinct vertex indices in ``range(n)``, in any order.
    max_iter : int, optional
        At most this many exchanges (``None``: until no exchange improves).

    Returns
    -------
    numpy.ndarray
        The ``k`` final vertex indices, increasing.

    Raises
    ------
    ValueError
        If ``W`` or ``k`` is invalid, ``start`` has a duplicate, a vertex outside
        ``range(n)`` or not exactly ``k`` vertices, or ``max_iter < 0``.
    TypeError
        If ``k`` or ``max_iter`` is not an integer, or ``start`` is not an iterable of
        integers.

    Notes
    -----
    Guarantees: the result weighs at least as much as ``start`` (each exchange raises the
    weight by more than the tolerance, which exceeds the rounding of the maintained sums,
    recomputed exactly every 64 exchanges), so local search keeps the proven ratio of the
    oracle that produced ``start``; without ``max_iter`` the result is 1-swap optimal up
    to the tolerance (no exchange gains more than ``1e-12`` of the total weight).
    The search terminates since the weight strictly increases over finitely many sets.

    Time per exchange: dense ``O(k (n - k))`` to find it, ``O(n)`` to update ``into``;
    sparse ``O(n log n + vol(S))`` and ``O(deg u + deg x)``.

    Examples
    --------
    >>> import numpy as np
    >>> W = np.ones((5, 5))
    >>> W[:3, :3] = 4.0  # a heavy triangle on 0, 1, 2
    >>> local_search_matrix(W, 3, [2, 3, 4]).tolist()
    [0, 1, 2]
    >>> local_search_matrix(W, 3, [2, 3, 4], max_iter=1).tolist()
    [0, 2, 4]
    """
    weights = check_weight_matrix(W)
    k = check_int("k", k, low=1, high=weights.n)
    start = check_vertex_indices(start, weights.n, name="start", k=k)
    if max_iter is not None:
        max_iter = check_int("max_iter", max_iter, low=0)
    return _local_search(weights, k, start, max_iter)


def local_search(G, k: int, start, *, weight: str = "weight", max_iter: int | None = None) -> set:
    """Densest-k-subgraph by 1-swap local search from ``start`` on a networkx graph.

    Repeatedly exchanges the node inside and the node outside whose swap raises the
    induced weight most, until no swap raises it by more than ``1e-12`` of the total weight
    (see :func:`local_search_matrix` for the exact rule).

    Parameters
    ----------
    G : networkx.Graph
        Undirected, not a multigraph; edge weights in attribute ``weight`` (default 1),
        finite and non-negative. Self-loops are ignored. Node labels may be any hashable.
    k : int
        Number of nodes, ``1 <= k <= G.number_of_nodes()``.
    start : iterable
        ``k`` distinct nodes of ``G``, e.g. the answer of another oracle.
    weight : str
        Edge attribute holding the weight.
    max_iter : int, optional
        At most this many exchanges (``None``: until no exchange improves).

    Returns
    -------
    set
        ``k`` node labels of ``G``; their induced weight is at least that of ``start``.

    Raises
    ------
    ValueError
        If ``G`` is directed or a multigraph, a weight is negative or not finite, ``k`` is
        out of range, ``start`` has a node not in ``G``, a duplicate, or not exactly ``k``
        nodes, or ``max_iter < 0``
        (:class:`~fullbandit.util.validation.InvalidParameterError`).
    TypeError
        If ``G`` is not a networkx graph, ``k`` or ``max_iter`` is not an integer, or
        ``start`` is not iterable.

    Notes
    -----
    Ties go to the node earliest in ``G.nodes`` order. The result is 1-swap optimal (up
    to the tolerance) and never lighter than ``start``, so running it after an oracle
    keeps that oracle's proven ratio: ``method="fpk+swap"`` of
    :func:`~fullbandit.dks.densest_k_subgraph` is this search started from ``method="fpk"``.

    References
    ----------
    The classical 1-exchange neighbourhood for cardinality-constrained quadratic 0-1
    problems; see e.g. Y. Asahiro, K. Iwama, H. Tamaki, T. Tokuyama, Greedily finding a
    dense subgraph, Journal of Algorithms 34(2), 2000, for its use after a greedy start.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.complete_graph(["a", "b", "c", "d"])
    >>> G.add_edge("d", "e", weight=0.5)
    >>> sorted(local_search(G, 3, ["a", "d", "e"]))
    ['a', 'b', 'd']
    """
    k = check_graph(G, k)
    items = check_nodes(start, G, name="start", k=k)
    if max_iter is not None:
        max_iter = check_int("max_iter", max_iter, low=0)
    nodes, weights = graph_weights(G, weight)
    position = {node: i for i, node in enumerate(nodes)}
    chosen = _local_search(weights, k, np.array(sorted(position[item] for item in items), dtype=np.intp), max_iter)
    return {nodes[i] for i in chosen}


def with_local_search(oracle: Oracle) -> Oracle:
    """``oracle`` followed by 1-swap local search from its answer, named ``oracle.name + "+swap"``.

    Local search never lowers the weight of its start, so the combination keeps
    ``oracle.proven_ratio``.

    Examples
    --------
    >>> from fullbandit.dks.peeling import PEELING
    >>> combined = with_local_search(PEELING)
    >>> combined.name, combined.proven_ratio(10, 4) == PEELING.proven_ratio(10, 4)
    ('peeling+swap', True)
    """
    return Oracle(f"{oracle.name}+swap", partial(_search_from, oracle.run), oracle.proven_ratio)


def _search_from(first: Callable[[WeightMatrix, int], np.ndarray], weights: WeightMatrix, k: int) -> np.ndarray:
    # a module-level function (not a closure), so that the combined oracle pickles
    return _local_search(weights, k, first(weights, k))
