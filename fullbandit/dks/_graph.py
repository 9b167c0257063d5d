"""Conversion between networkx graphs and the dense weight matrices the oracles work on."""

from __future__ import annotations

import networkx as nx
import numpy as np

from fullbandit._validation import InvalidParameterError, check_int


def check_graph(G, k) -> int:
    """Validate a DkS instance: a simple undirected graph with non-negative weights, ``1 <= k <= |V|``."""
    if not isinstance(G, nx.Graph):
        raise TypeError(f"G must be a networkx.Graph, got {type(G).__name__}")
    if G.is_directed():
        raise InvalidParameterError("G must be undirected: densest-k-subgraph is defined on undirected graphs")
    if G.is_multigraph():
        raise InvalidParameterError("G must not be a multigraph: merge parallel edges into one weight first")
    k = check_int("k", k, low=1, high=G.number_of_nodes())
    return k


def dense_weights(G, weight: str = "weight") -> tuple[list, np.ndarray]:
    """Node list and symmetric weight matrix (missing ``weight`` attributes count 1, self-loops dropped)."""
    nodes = list(G.nodes)
    W = nx.to_numpy_array(G, nodelist=nodes, weight=weight, nonedge=0.0, dtype=float)
    np.fill_diagonal(W, 0.0)
    if not np.all(np.isfinite(W)):
        raise InvalidParameterError(f"edge attribute {weight!r} must be finite on every edge")
    if np.any(W < 0):
        raise InvalidParameterError(f"edge attribute {weight!r} must be non-negative for densest-k-subgraph")
    return nodes, W


def check_weight_matrix(W, k) -> tuple[np.ndarray, int]:
    """Validate the matrix path: square, symmetric, finite, non-negative, ``1 <= k <= n``."""
    W = np.asarray(W, dtype=float)
    if W.ndim != 2 or W.shape[0] != W.shape[1]:
        raise InvalidParameterError(f"W must be a square matrix, got shape {W.shape}")
    if not np.all(np.isfinite(W)):
        raise InvalidParameterError("W must contain only finite weights")
    if not np.allclose(W, W.T, rtol=1e-10, atol=1e-12 * max(1.0, float(np.abs(W).max(initial=0.0)))):
        raise InvalidParameterError("W must be symmetric (an undirected graph)")
    off_diagonal = W[~np.eye(W.shape[0], dtype=bool)]
    if np.any(off_diagonal < 0):
        raise InvalidParameterError("W must have non-negative off-diagonal weights for densest-k-subgraph")
    k = check_int("k", k, low=1, high=W.shape[0])
    return W, k


def induced_weight(W, vertices) -> float:
    """Total weight of the edges among ``vertices`` (each edge once, diagonal ignored)."""
    idx = np.asarray(list(vertices), dtype=np.intp)
    block = np.asarray(W)[np.ix_(idx, idx)]
    return float((block.sum() - np.trace(block)) / 2.0)


def sparse_weights(G, weight: str = "weight") -> tuple[list, object]:
    """Node list and symmetric CSR weight matrix (missing ``weight`` counts 1, self-loops dropped)."""
    import scipy.sparse as sparse
    nodes = list(G.nodes)
    W = nx.to_scipy_sparse_array(G, nodelist=nodes, weight=weight, dtype=float, format="csr")
    W.setdiag(0.0)
    W.eliminate_zeros()
    if W.nnz and not np.all(np.isfinite(W.data)):
        raise InvalidParameterError(f"edge attribute {weight!r} must be finite on every edge")
    if W.nnz and np.any(W.data < 0):
        raise InvalidParameterError(f"edge attribute {weight!r} must be non-negative for densest-k-subgraph")
    return nodes, sparse.csr_array(W)


def is_sparse(W) -> bool:
    """Whether ``W`` is a scipy sparse matrix or array."""
    import scipy.sparse as sparse
    return sparse.issparse(W)


def use_sparse(G) -> bool:
    """The networkx front ends go sparse for large graphs with under 5% of the possible edges."""
    n = G.number_of_nodes()
    return n >= 1000 and 2 * G.number_of_edges() < 0.05 * n * n


def graph_matrix(G, weight: str = "weight"):
    """Node list and weight matrix of ``G``: sparse when :func:`use_sparse`, dense otherwise."""
    return sparse_weights(G, weight) if use_sparse(G) else dense_weights(G, weight)
