"""Densest-k-subgraph: one front end for graphs, one for weight matrices, over the registered oracles."""

from __future__ import annotations

from dataclasses import dataclass

from fullbandit.dks.feige_peleg_kortsarz import FPK
from fullbandit.dks.oracle import Oracle
from fullbandit.dks.peeling import PEELING
from fullbandit.dks.swaps import with_local_search
from fullbandit.dks.weights import WeightMatrix, check_graph, check_weight_matrix, graph_weights, induced_weight
from fullbandit.util.validation import check_choice, check_int

__all__ = ["DenseSubgraph", "ORACLES", "get_oracle", "densest_k_subgraph", "densest_k_subgraph_matrix"]

ORACLES: dict[str, Oracle] = {
    oracle.name: oracle for oracle in (PEELING, FPK, with_local_search(PEELING), with_local_search(FPK))}


def get_oracle(name: str) -> Oracle:
    """The registered oracle called ``name`` (a key of :data:`ORACLES`).

    Raises
    ------
    InvalidParameterError
        If no oracle has that name; the message lists the names.

    Examples
    --------
    >>> sorted(ORACLES)
    ['fpk', 'fpk+swap', 'peeling', 'peeling+swap']
    >>> get_oracle("fpk+swap").name
    'fpk+swap'
    """
    return _choose("oracle", name)


def _choose(argument: str, name: str) -> Oracle:
    return ORACLES[check_choice(argument, name, tuple(ORACLES))]


@dataclass(frozen=True)
class DenseSubgraph:
    """The answer of :func:`densest_k_subgraph` or :func:`densest_k_subgraph_matrix`.

    Attributes
    ----------
    vertices : frozenset or tuple of int
        The ``k`` chosen vertices: node labels of ``G`` from :func:`densest_k_subgraph`,
        increasing indices from :func:`densest_k_subgraph_matrix`.
    weight : float
        Their induced weight ``w(S) = sum_{i < j in S} W_ij``.
    method : str
        The oracle that chose them (a key of :data:`ORACLES`).
    proven_ratio : float
        A ratio the method reaches on every instance of this size: ``weight >= proven_ratio * OPT_k``.

    Examples
    --------
    >>> result = densest_k_subgraph_matrix([[0, 1, 0], [1, 0, 3], [0, 3, 0]], 2)
    >>> result
    DenseSubgraph(vertices=(1, 2), weight=3.0, method='peeling', proven_ratio=0.3333333333333333)
    >>> result.weight / result.proven_ratio   # an upper bound on the optimum
    9.0
    """

    vertices: frozenset | tuple[int, ...]
    weight: float
    method: str
    proven_ratio: float


def densest_k_subgraph(G, k: int, *, method: str = "peeling", weight: str = "weight") -> DenseSubgraph:
    r"""Approximately the ``k`` nodes of ``G`` whose induced subgraph is heaviest.

    Parameters
    ----------
    G : networkx.Graph
        Undirected, not a multigraph. Node labels may be any hashable. Self-loops are
        ignored.
    k : int
        Number of nodes to choose, ``1 <= k <= G.number_of_nodes()``.
    method : str, optional (default="peeling")
        The oracle: ``"peeling"`` (greedy peeling [1]_), ``"fpk"`` (the combinatorial
        algorithm of Feige, Peleg and Kortsarz [2]_), or either followed by 1-swap local
        search, ``"peeling+swap"`` and ``"fpk+swap"`` (see Notes). Must be given as a
        keyword.
    weight : str, optional (default="weight")
        Edge attribute holding the weights: finite and non-negative; an edge without it
        weighs 1.

    Returns
    -------
    DenseSubgraph
        ``vertices`` a frozenset of ``k`` nodes of ``G``, their induced ``weight``, the
        ``method`` and its ``proven_ratio``.

    Raises
    ------
    InvalidParameterError
        If ``G`` is directed, a multigraph or empty, a weight is negative or not finite,
        ``k`` is out of range, or ``method`` is unknown (a ``ValueError``; the message
        names the argument, the value and what is allowed).
    TypeError
        If ``G`` is not a networkx graph, ``k`` not an integer, or a weight not a number.

    See Also
    --------
    densest_k_subgraph_matrix : the same on a weight matrix.
    fullbandit.dks.exact : the optimum (brute force or a MILP).
    fullbandit.dks.bound : certified upper bounds on the optimum.

    Notes
    -----
    The densest-k-subgraph problem asks for ``S``, ``|S| = k``, maximising
    ``w(S) = sum_{\{u, v\} \subseteq S} w(u, v)``; it is NP-hard. Every method here is
    deterministic: ties go to the node earliest in ``G.nodes``. Graphs with at least 1000
    nodes and under 5% of the possible edges are handled as scipy sparse matrices, others
    as dense arrays (:func:`~fullbandit.dks.weights.use_sparse`).

    **Greedy peeling** [1]_ deletes a node of minimum weighted degree until ``k`` remain:
    ``O(n^2)`` dense, ``O(m log n)`` sparse. Proven ratio
    :func:`~fullbandit.dks.peeling.proven_peeling_ratio`, ``k (k - 1) / (n (n - 1))``.

    **FPK** [2]_ returns the heaviest of three proposals: the endpoints of the heaviest
    edges; the ``ceil(k/2)`` nodes of largest weighted degree plus the ``floor(k/2)``
    nodes with most weight into them; and, from each node, the nodes reached by the most
    weight of length-2 walks, completed the same way
    (:func:`~fullbandit.dks.feige_peleg_kortsarz.fpk_procedures`). Proven ratio
    :func:`~fullbandit.dks.feige_peleg_kortsarz.proven_fpk_ratio`, about ``1 / k`` for
    ``k < sqrt(2 n)`` and ``k / (2 n)`` above.

    **+swap** runs 1-swap local search
    (:func:`~fullbandit.dks.swaps.local_search`) from the first method's answer: it
    exchanges a chosen and an unchosen node while that raises the weight most. It never
    lowers the weight, so it keeps the first method's proven ratio.

    These are the oracles of Algorithm 1 of Kuroki et al. [3]_.

    References
    ----------
    .. [1] Y. Asahiro, K. Iwama, H. Tamaki, T. Tokuyama. Greedily finding a dense
       subgraph. Journal of Algorithms 34(2), 203-221, 2000.
    .. [2] U. Feige, D. Peleg, G. Kortsarz. The dense k-subgraph problem. Algorithmica
       29(3), 410-421, 2001.
    .. [3] Y. Kuroki, L. Xu, A. Miyauchi, J. Honda, M. Sugiyama. Polynomial-time
       algorithms for multiple-arm identification with full-bandit feedback. Neural
       Computation 32(9), 1733-1773, 2020.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.complete_graph(["a", "b", "c", "d"])
    >>> G.add_edge("d", "e", weight=0.5)
    >>> G.add_edge("e", "f", weight=2.0)
    >>> result = densest_k_subgraph(G, 4)
    >>> sorted(result.vertices), result.weight, result.method
    (['a', 'b', 'c', 'd'], 6.0, 'peeling')
    >>> sorted(densest_k_subgraph(G, 2, method="fpk").vertices)
    ['e', 'f']
    >>> densest_k_subgraph(G, 2, method="magic")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    fullbandit.util.validation.InvalidParameterError: method='magic' is not one of the allowed values: 'peeling', ...
    """
    k = check_graph(G, k)
    oracle = _choose("method", method)
    nodes, weights = graph_weights(G, weight)
    result = _solve(oracle, weights, k)
    return DenseSubgraph(frozenset(nodes[i] for i in result.vertices), result.weight, result.method,
                         result.proven_ratio)


def densest_k_subgraph_matrix(W, k: int, *, method: str = "peeling") -> DenseSubgraph:
    """Approximately the ``k`` vertices of heaviest induced weight in a weight matrix.

    The matrix entry point of :func:`densest_k_subgraph`, with the same methods.

    Parameters
    ----------
    W : array_like, scipy sparse matrix or WeightMatrix of shape (n, n)
        Symmetric, finite and non-negative off the diagonal; the diagonal is ignored
        (:func:`~fullbandit.dks.weights.check_weight_matrix`). A sparse matrix is never
        densified.
    k : int
        Number of vertices, ``1 <= k <= n``.
    method : str, optional (default="peeling")
        A key of :data:`ORACLES`, as in :func:`densest_k_subgraph`.

    Returns
    -------
    DenseSubgraph
        ``vertices`` the ``k`` chosen indices, increasing.

    Raises
    ------
    InvalidParameterError
        If ``W`` is not square, symmetric, finite and non-negative off the diagonal, ``k``
        is out of range, or ``method`` is unknown.
    TypeError
        If ``W`` does not hold real numbers or ``k`` is not an integer.

    References
    ----------
    * [1] Y. Asahiro, K. Iwama, H. Tamaki, T. Tokuyama. Greedily finding a dense
      subgraph. Journal of Algorithms 34(2), 203-221, 2000.
    * [2] U. Feige, D. Peleg, G. Kortsarz. The dense k-subgraph problem. Algorithmica
      29(3), 410-421, 2001.

    Examples
    --------
    >>> import numpy as np
    >>> W = np.ones((5, 5))
    >>> W[:3, :3] = 4.0  # a heavy triangle on 0, 1, 2
    >>> densest_k_subgraph_matrix(W, 3, method="fpk")
    DenseSubgraph(vertices=(0, 1, 2), weight=12.0, method='fpk', proven_ratio=0.4444444444444444)
    >>> import scipy.sparse as sp
    >>> densest_k_subgraph_matrix(sp.csr_array(W), 3).vertices
    (0, 1, 2)
    """
    weights = check_weight_matrix(W)
    k = check_int("k", k, low=1, high=weights.n)
    return _solve(_choose("method", method), weights, k)


def _solve(oracle: Oracle, weights: WeightMatrix, k: int) -> DenseSubgraph:
    vertices = tuple(int(v) for v in oracle.run(weights, k))
    return DenseSubgraph(vertices, induced_weight(weights, vertices), oracle.name, oracle.proven_ratio(weights.n, k))
