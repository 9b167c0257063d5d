"""The densest-k-subgraph code of fullbandit before issue 13, frozen: the "before" of bench_dks.py.

A copy (not part of the package; it was ``benchmarks/_dks_reference.py``) of the networkx
conversion (``nx.to_numpy_array`` / ``nx.to_scipy_sparse_array`` followed by the full
validator), greedy peeling (column updates on dense matrices, a heap on sparse ones) and the
Feige-Peleg-Kortsarz procedures as they were at commit 35c5972 (the FPK part verbatim).
benchmarks/bench_dks.py times it side by side with the package, and
tests/test_dks_speed_paths.py checks that the package still returns exactly what this code
returns. Error messages are left out: only valid input is given here. It imports nothing
from fullbandit.
"""

from __future__ import annotations

import heapq
import math

import networkx as nx
import numpy as np
import scipy.sparse as sp

SYMMETRY_TOLERANCE = 1e-10
_TIE_TOLERANCE = 1e-12


# --- conversion and validation --------------------------------------------------------------

def use_sparse(G) -> bool:
    n = G.number_of_nodes()
    return n >= 1000 and 2 * G.number_of_edges() < 0.05 * n * n


def graph_weights(G, weight: str = "weight", *, sparse: bool | None = None):
    """``(list(G.nodes), validated matrix)`` exactly as the package built them before."""
    nodes = list(G.nodes)
    if use_sparse(G) if sparse is None else sparse:
        return nodes, check_sparse(nx.to_scipy_sparse_array(G, nodelist=nodes, weight=weight, dtype=float,
                                                            format="csr"))
    return nodes, check_dense(nx.to_numpy_array(G, nodelist=nodes, weight=weight, nonedge=0.0, dtype=float))


def check_dense(W) -> np.ndarray:
    matrix = np.array(np.asarray(W), dtype=float, order="C", copy=True)
    np.fill_diagonal(matrix, 0.0)
    if np.argwhere(~np.isfinite(matrix)).size or np.argwhere(matrix < 0).size:
        raise ValueError("W must be finite and non-negative off the diagonal")
    asymmetry = np.abs(matrix - matrix.T)
    largest = float(asymmetry.max())
    if largest > SYMMETRY_TOLERANCE * float(matrix.max()):
        raise ValueError("W must be symmetric")
    if largest > 0:
        matrix = (matrix + matrix.T) / 2.0
    matrix.setflags(write=False)
    return matrix


def check_sparse(W) -> sp.csr_array:
    coo = sp.coo_array(W, dtype=float)
    off_diagonal = coo.row != coo.col
    n = W.shape[0]
    matrix = sp.csr_array((coo.data[off_diagonal], (coo.row[off_diagonal], coo.col[off_diagonal])), shape=(n, n))
    matrix.sum_duplicates()
    matrix.eliminate_zeros()
    rows = np.repeat(np.arange(n), np.diff(matrix.indptr))
    for condition in (~np.isfinite(matrix.data), matrix.data < 0):
        bad = np.flatnonzero(condition)
        if bad.size:
            raise ValueError(f"W must be finite and non-negative, row {rows[bad[0]]}")
    asymmetry = abs(matrix - matrix.T).tocoo()
    if asymmetry.nnz:
        worst = int(np.argmax(asymmetry.data))
        if asymmetry.data[worst] > SYMMETRY_TOLERANCE * float(matrix.data.max()):
            raise ValueError("W must be symmetric")
        matrix = sp.csr_array((matrix + matrix.T) / 2.0)
        matrix.eliminate_zeros()
    matrix.sort_indices()
    return matrix


def csr_row_entries(W, rows):
    rows = np.asarray(rows, dtype=np.intp)
    starts, lengths = W.indptr[rows], W.indptr[rows + 1] - W.indptr[rows]
    owner = np.repeat(np.arange(rows.size), lengths)
    entries = np.arange(owner.size) + (starts - (np.cumsum(lengths) - lengths))[owner]
    return owner, W.indices[entries], W.data[entries]


# --- greedy peeling -------------------------------------------------------------------------

def peel(W, k: int) -> np.ndarray:
    """The ``k`` vertices greedy peeling keeps, increasing (``W`` validated, dense or CSR)."""
    return peel_sparse(W, k) if sp.issparse(W) else peel_dense(W, k)


def peel_sparse(W, k: int) -> np.ndarray:
    n = W.shape[0]
    degree = np.asarray(W.sum(axis=1)).ravel().astype(float)
    heap = list(zip(degree.tolist(), range(n), strict=True))
    heapq.heapify(heap)
    removed = np.zeros(n, dtype=bool)
    indptr, indices, data = W.indptr, W.indices, W.data
    push, pop = heapq.heappush, heapq.heappop
    current = degree.tolist()
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


def peel_dense(W: np.ndarray, k: int) -> np.ndarray:
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


# --- Feige, Peleg, Kortsarz (verbatim) -------------------------------------------------------

_RELATIVE_TIE = 1e-12  # values within this fraction of the largest compared value are tied
_BLOCK_ENTRIES = 4_000_000  # entries of one n x b block of the dense procedure 3 (32 MB)
PROCEDURES = ("heaviest_edges", "highest_degrees", "two_walks")


# --- helpers ---------------------------------------------------------------------------------

def _member(members, values, scratch=None) -> np.ndarray:
    """``numpy.isin(values, members)`` via a boolean scratch array of length ``n``.

    ``scratch`` (all False, restored on return) makes the cost ``O(|members| + |values|)``.
    """
    if scratch is None:
        top = max(int(np.max(members, initial=-1)), int(np.max(values, initial=-1)))
        scratch = np.zeros(top + 1, dtype=bool)
    scratch[members] = True
    found = scratch[values]
    scratch[members] = False
    return found


def _induced(W, vertices, sparse: bool, scratch=None) -> float:
    """Weight of the edges among ``vertices`` (sorted indices) of a validated matrix."""
    vertices = np.asarray(vertices, dtype=np.intp)
    if sparse:
        _, columns, values = csr_row_entries(W, vertices)
        return float(values[_member(vertices, columns, scratch)].sum() / 2.0)
    return float(W[np.ix_(vertices, vertices)].sum() / 2.0)


def _top(indices, values, count: int, n: int, excluded=None, scratch=None) -> np.ndarray:
    """The ``count`` allowed vertices of largest value, ties to the lowest index; sorted.

    ``values[i]`` (non-negative) belongs to vertex ``indices[i]`` (distinct); every other
    vertex of ``range(n)`` has value 0. Vertices in ``excluded`` are not allowed. Values
    within ``1e-12`` times the largest allowed value of the ``count``-th largest one are
    tied, so rounding cannot decide a tie of exact arithmetic. ``scratch``: see :func:`_member`.
    """
    if count <= 0:
        return np.empty(0, dtype=np.intp)
    indices = np.asarray(indices, dtype=np.intp)
    values = np.asarray(values, dtype=float)
    if excluded is not None and len(excluded):
        keep = ~_member(np.asarray(excluded, dtype=np.intp), indices, scratch)
        indices, values = indices[keep], values[keep]
    tolerance = _RELATIVE_TIE * float(values.max(initial=0.0))
    threshold = float(np.partition(values, values.size - count)[values.size - count]) if values.size >= count else 0.0
    sure = indices[values > threshold + tolerance]
    need = count - sure.size
    if threshold > tolerance:  # the implicit zeros are not tied with the threshold
        tied = np.sort(indices[np.abs(values - threshold) <= tolerance])
        chosen = tied[:need]
    else:  # every allowed vertex outside ``sure`` is tied (all values <= threshold + tolerance)
        skip = sure if excluded is None else np.union1d(sure, np.asarray(excluded, dtype=np.intp))
        chosen = np.setdiff1d(np.arange(min(n, need + skip.size)), skip)[:need]
        if chosen.size < need:
            raise AssertionError("fewer allowed vertices than requested")
    return np.sort(np.concatenate([sure, chosen]).astype(np.intp))


class _FirstNearMax:
    """The earliest added candidate whose weight is within ``1e-12`` (relative) of the maximum."""

    def __init__(self):
        self.maximum = -math.inf
        self.items = []

    def add(self, weight: float, payload) -> None:
        if weight > self.maximum:
            self.maximum = weight
            floor = self._floor()
            self.items = [item for item in self.items if item[0] >= floor]
        if weight >= self._floor():
            self.items.append((weight, payload))

    def _floor(self) -> float:
        return self.maximum - _RELATIVE_TIE * abs(self.maximum)

    def best(self):
        floor = self._floor()
        return next(payload for weight, payload in self.items if weight >= floor)


def _row_sums(W, rows, sparse: bool):
    """Weight from every vertex into the set ``rows``: ``(indices, values)`` of its non-zeros."""
    if sparse:
        _, columns, values = csr_row_entries(W, rows)
        columns, inverse = np.unique(columns, return_inverse=True)
        return columns, np.bincount(inverse, weights=values, minlength=columns.size)
    return np.arange(W.shape[0]), W[np.asarray(rows, dtype=np.intp)].sum(axis=0)


# --- the three procedures -------------------------------------------------------------------

def _upper_edges(W, sparse: bool):
    """The positive-weight edges ``i < j`` as arrays, heaviest first, ties by ``(i, j)``."""
    if sparse:
        upper = sp.triu(W, k=1, format="coo")
        i, j, w = upper.row.astype(np.intp), upper.col.astype(np.intp), upper.data
        positive = w > 0
        i, j, w = i[positive], j[positive], w[positive]
    else:
        i, j = np.nonzero(np.triu(W, 1) > 0)
        w = W[i, j]
    order = np.lexsort((j, i, -w))
    return i[order], j[order]


def _heaviest_edges(W, k: int, sparse: bool) -> np.ndarray:
    n = W.shape[0]
    first, second = _upper_edges(W, sparse)
    inside = np.zeros(n, dtype=bool)
    size = 0
    position = 0
    while size < k - 1 and position < first.size:
        u, v = first[position], second[position]
        position += 1
        new = int(not inside[u]) + int(not inside[v])
        if new and size + new <= k:  # always true while size <= k - 2
            inside[u] = inside[v] = True
            size += new
    if size == k - 1 and position < first.size:
        # only an edge with exactly one endpoint inside still fits: take the heaviest one
        rest_u, rest_v = first[position:], second[position:]
        fits = np.flatnonzero(inside[rest_u] != inside[rest_v])
        if fits.size:
            inside[rest_u[fits[0]]] = inside[rest_v[fits[0]]] = True
            size += 1
    if size < k:
        # Every vertex outside has no edge into the set (see Notes of fpk_procedures), so
        # "most weight into the set, ties to the lowest index" is simply the lowest index.
        inside[np.flatnonzero(~inside)[:k - size]] = True
    return np.flatnonzero(inside)


def _highest_degrees(W, k: int, sparse: bool) -> np.ndarray:
    n = W.shape[0]
    half_up, half_down = (k + 1) // 2, k // 2
    degrees = np.asarray(W.sum(axis=1)).ravel()
    high = _top(np.arange(n), degrees, half_up, n)
    indices, into_high = _row_sums(W, high, sparse)
    rest = _top(indices, into_high, half_down, n, excluded=high)
    return np.union1d(high, rest)


def _two_walks_candidates(W, k: int, sparse: bool) -> _FirstNearMax:
    """Procedure 3 for every start vertex ``v``, in increasing ``v``."""
    n = W.shape[0]
    half_up, half_down = (k + 1) // 2, k // 2
    best = _FirstNearMax()
    block = max(1, min(n, _BLOCK_ENTRIES // max(n, 1)))
    everyone = np.arange(n)
    scratch = np.zeros(n, dtype=bool)
    for start in range(0, n, block):
        stop = min(n, start + block)
        if sparse:
            walks = (W[start:stop] @ W).tocsr()  # rows start..stop-1 of W^2
            walks.sort_indices()
            for offset in range(stop - start):  # row offset of vertex start + offset
                row = slice(walks.indptr[offset], walks.indptr[offset + 1])
                near = _top(walks.indices[row], walks.data[row], half_up, n)
                indices, into_near = _row_sums(W, near, True)
                rest = _top(indices, into_near, half_down, n, excluded=near, scratch=scratch)
                chosen = np.union1d(near, rest)
                best.add(_induced(W, chosen, True, scratch), chosen)
            continue
        walks = W @ W[:, start:stop]  # column v - start is row v of W^2 (W symmetric)
        size = stop - start
        near_sets = [_top(everyone, walks[:, column], half_up, n) for column in range(size)]
        near_indicator = np.zeros((n, size))
        for column, near in enumerate(near_sets):
            near_indicator[near, column] = 1.0
        into_near = W @ near_indicator
        chosen_indicator = near_indicator
        chosen_sets = []
        for column, near in enumerate(near_sets):
            rest = _top(everyone, into_near[:, column], half_down, n, excluded=near, scratch=scratch)
            chosen_indicator[rest, column] = 1.0
            chosen_sets.append(np.union1d(near, rest))
        weights = 0.5 * np.einsum("ij,ij->j", chosen_indicator, W @ chosen_indicator)
        for column, chosen in enumerate(chosen_sets):
            best.add(float(weights[column]), chosen)
    return best


def _procedures(W, k: int, sparse: bool) -> dict[str, np.ndarray]:
    n = W.shape[0]
    if k == n:
        return {name: np.arange(n) for name in PROCEDURES}
    return {
        "heaviest_edges": _heaviest_edges(W, k, sparse),
        "highest_degrees": _highest_degrees(W, k, sparse),
        "two_walks": _two_walks_candidates(W, k, sparse).best(),
    }


def fpk(W, k: int) -> np.ndarray:
    """The heaviest of the three proposals, ties to the earliest procedure (``W`` validated)."""
    sparse = sp.issparse(W)
    best = _FirstNearMax()
    for chosen in _procedures(W, k, sparse).values():
        best.add(_induced(W, chosen, sparse), chosen)
    return best.best()


def procedures(W, k: int) -> dict[str, np.ndarray]:
    """The three proposals (``W`` validated)."""
    return _procedures(W, k, sp.issparse(W))


def densest_k_subgraph(G, k: int, method: str = "peeling", weight: str = "weight") -> frozenset:
    """The nodes the graph front end chose before, for ``method`` "peeling" or "fpk"."""
    nodes, W = graph_weights(G, weight)
    chosen = peel(W, k) if method == "peeling" else fpk(W, k)
    return frozenset(nodes[i] for i in chosen)
