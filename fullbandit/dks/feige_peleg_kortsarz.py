"""The Feige-Peleg-Kortsarz combinatorial algorithm for the densest-k-subgraph problem, weighted.

Three simple procedures each propose ``k`` vertices (:func:`fpk_procedures` gives the exact
rules); the heaviest proposal wins (:data:`FPK`, ``method="fpk"`` of
:func:`fullbandit.dks.densest_k_subgraph`): the endpoints of the heaviest edges; the
``ceil(k/2)`` vertices of largest weighted degree plus the ``floor(k/2)`` vertices with most
weight into them; and, for each vertex ``v``, the ``ceil(k/2)`` vertices with most weight of
length-2 walks from ``v`` plus the ``floor(k/2)`` vertices with most weight into those.
Proposals within ``1e-12`` (relative) of the heaviest count as tied and the earliest
procedure wins (1, then 2, then 3). A sparse matrix is never densified (procedure 3 forms
``W @ W`` one block of rows at a time). The answer's weight is at least
:func:`proven_fpk_ratio` times the optimum.

Time: dense ``O(n^omega + n k^2)`` (procedure 3 is two matrix products ``W @ W`` and
``W @ P`` done in column blocks, plus a selection per vertex; the weight of each proposal
is ``w(P) + w(P, B) + w(B)``, the first two read off ``W @ P``); sparse
``O(sum_v (|row v of W^2| + vol(P_v) + vol(B_v)) + m)`` with ``vol`` the number of stored
entries in the rows of a set, and procedure 1 sorts only the ``O(k)`` heaviest edges it
scans. With numba installed (the ``fast`` extra), procedure 3 on a large sparse matrix
runs as a compiled loop over start vertices with dense accumulators
(:func:`fullbandit.dks.compiled.two_walk_weights`): the same weights to the last bit,
about 1.5x faster (benchmarks/bench_dks.py). Procedure 3 weighs ``n`` proposals of ``k``
vertices each, so FPK stays far costlier than peeling (about ``n k d / 2`` entries read
for mean degree ``d``, against peeling's ``m log n``).

Differences from the paper's own statement (Feige, Peleg, Kortsarz 2001, Section 3,
"algorithm A", as reproduced in networkx pull request #1010; the paper is for unweighted
graphs):

* weighted throughout: weighted degrees, ``W^2`` instead of walk counts, weight into a set
  instead of a number of neighbours;
* procedure 1 takes *arbitrary* ``k/2`` edges in the paper; here the heaviest edges,
  greedily, as long as their endpoints fit in ``k`` vertices (at least ``floor(k/2)`` edges
  whenever the graph has them; the paper's completion is "arbitrary", here by most weight
  into the set, ties to the lowest index);
* procedure 3 in the paper runs on the graph induced on ``V \\ H`` (``H`` of procedure 2)
  and picks ``B_v`` among the *neighbours of* ``v`` (completing arbitrarily when fewer than
  ``k`` vertices result); here it runs on the whole graph and picks ``B_v`` among all
  vertices outside ``P_v``, so it always yields exactly ``k`` vertices;
* the paper assumes ``k`` even; here ``ceil(k/2)`` for ``H`` and ``P_v`` and
  ``floor(k/2)`` for the added half;
* the paper's further procedures (length-3 walks, the ``n^{1/3 - delta}`` refinement) are
  not implemented, so its ratio is not claimed; :func:`proven_fpk_ratio` is proved for this
  implementation.

References
----------
U. Feige, D. Peleg, G. Kortsarz. The dense k-subgraph problem. Algorithmica 29(3),
410-421, 2001.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from fullbandit.dks import compiled
from fullbandit.dks.oracle import Oracle
from fullbandit.dks.weights import WeightMatrix, check_weight_matrix, csr_row_entries
from fullbandit.util.validation import check_int

__all__ = ["FPK", "PROCEDURES", "fpk_procedures", "proven_fpk_ratio"]

_RELATIVE_TIE = 1e-12  # values within this fraction of the largest compared value are tied
_BLOCK_ENTRIES = 4_000_000  # entries of one block of procedure 3 (dense n x b; sparse rows of W^2, W P, W B)
_FIRST_EDGES = 4  # procedure 1 orders the 4 k heaviest edges, more only when its scan runs past them
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
        tied = indices[np.abs(values - threshold) <= tolerance]
        chosen = np.partition(tied, need)[:need] if need < tied.size else tied  # the ``need`` lowest
    else:  # every allowed vertex outside ``sure`` is tied (all values <= threshold + tolerance)
        chosen = _lowest_outside(need, n, sure, excluded, scratch)
    return np.sort(np.concatenate([sure, chosen]).astype(np.intp))


def _lowest_outside(count: int, n: int, sure: np.ndarray, excluded, scratch) -> np.ndarray:
    """The ``count`` lowest vertices of ``range(n)`` in neither ``sure`` nor ``excluded``."""
    skip = sure if excluded is None or not len(excluded) else np.concatenate(
        [sure, np.asarray(excluded, dtype=np.intp)])
    pool = np.arange(min(n, count + skip.size))  # holds at least ``count`` vertices outside ``skip``
    chosen = pool[~_member(skip, pool, scratch)][:count]
    if chosen.size < count:
        raise AssertionError("fewer allowed vertices than requested")
    return chosen


def _near_max_floor(maximum: float) -> float:
    """Weights at or above this are tied with ``maximum`` (within ``1e-12``, relative)."""
    return maximum - _RELATIVE_TIE * abs(maximum)


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
        return _near_max_floor(self.maximum)

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


# --- procedure 1: the heaviest edges ---------------------------------------------------------

def _positive_upper_edges(W, sparse: bool):
    """The positive-weight edges ``i < j`` as arrays ``(i, j, w)``, in row-major order."""
    n = W.shape[0]
    if sparse:  # canonical CSR: sorted columns, no stored zeros
        owners = np.repeat(np.arange(n), np.diff(W.indptr))
        upper = W.indices > owners
        return owners[upper], W.indices[upper].astype(np.intp), W.data[upper]
    positions = np.flatnonzero(np.triu(W > 0, 1))
    rows, columns = np.divmod(positions, n)
    return rows, columns, W.ravel()[positions]


def _heaviest_first(weights: np.ndarray, length: int) -> np.ndarray:
    """Positions of the ``length`` first entries when ordered heaviest first, ties by position.

    Only those are sorted: the ``length``-th largest weight splits the heavier entries
    (sorted) from the tied ones (taken in position order).
    """
    if length >= weights.size:
        return np.argsort(-weights, kind="stable")
    cut = weights.size - length
    threshold = np.partition(weights, cut)[cut]
    heavier = np.flatnonzero(weights > threshold)
    heavier = heavier[np.argsort(-weights[heavier], kind="stable")]
    return np.concatenate([heavier, np.flatnonzero(weights == threshold)[:length - heavier.size]])


def _scan_edges(first, second, k: int, n: int, complete: bool):
    """Procedure 1 over edges in scan order; None if ``complete`` is False and the scan runs past them."""
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
    if size == k - 1:
        # only an edge with exactly one endpoint inside still fits: take the heaviest one
        rest_u, rest_v = first[position:], second[position:]
        fits = np.flatnonzero(inside[rest_u] != inside[rest_v])
        if fits.size:
            inside[rest_u[fits[0]]] = inside[rest_v[fits[0]]] = True
            size += 1
    if size < k and not complete:
        return None  # the next edges, not yet ordered, may still fit
    if size < k:
        # Every vertex outside has no edge into the set (see Notes of fpk_procedures), so
        # "most weight into the set, ties to the lowest index" is simply the lowest index.
        inside[np.flatnonzero(~inside)[:k - size]] = True
    return np.flatnonzero(inside)


def _heaviest_edges(W, k: int, sparse: bool) -> np.ndarray:
    n = W.shape[0]
    rows, columns, weights = _positive_upper_edges(W, sparse)
    length = min(weights.size, _FIRST_EDGES * k)
    while True:
        order = _heaviest_first(weights, length)
        chosen = _scan_edges(rows[order], columns[order], k, n, complete=order.size == weights.size)
        if chosen is not None:
            return chosen
        length = min(weights.size, 4 * length)


# --- procedure 2: the highest degrees --------------------------------------------------------

def _highest_degrees(W, k: int, sparse: bool) -> np.ndarray:
    n = W.shape[0]
    half_up, half_down = (k + 1) // 2, k // 2
    degrees = np.asarray(W.sum(axis=1)).ravel()
    high = _top(np.arange(n), degrees, half_up, n)
    indices, into_high = _row_sums(W, high, sparse)
    rest = _top(indices, into_high, half_down, n, excluded=high)
    return np.union1d(high, rest)


# --- procedure 3: two-walks from every vertex ------------------------------------------------
#
# The proposal from v is P_v | B_v (P_v: most two-walk weight from v; B_v: most weight into
# P_v). Its weight is computed as w(P_v) + w(P_v, B_v) + w(B_v): the weights into P_v give
# the first two terms, so only the rows of B_v are read again.

def _first_near_max(weights: np.ndarray) -> int:
    """The first index whose weight is within ``1e-12`` (relative) of the maximum, as :class:`_FirstNearMax`."""
    return int(np.argmax(weights >= _near_max_floor(float(weights.max()))))


def _two_walks_dense(W, k: int) -> np.ndarray:
    n = W.shape[0]
    half_up, half_down = (k + 1) // 2, k // 2
    best = _FirstNearMax()
    block = max(1, min(n, _BLOCK_ENTRIES // max(n, 1)))
    everyone = np.arange(n)
    scratch = np.zeros(n, dtype=bool)
    for start in range(0, n, block):
        stop = min(n, start + block)
        walks = W @ W[:, start:stop]  # column v - start is row v of W^2 (W symmetric)
        size = stop - start
        near_sets = [_top(everyone, walks[:, column], half_up, n) for column in range(size)]
        near_indicator = np.zeros((n, size))
        for column, near in enumerate(near_sets):
            near_indicator[near, column] = 1.0
        into_near = W @ near_indicator
        for column, near in enumerate(near_sets):
            into = into_near[:, column]
            rest = _top(everyone, into, half_down, n, excluded=near, scratch=scratch)
            weight = into[near].sum() / 2.0 + into[rest].sum() + W[np.ix_(rest, rest)].sum() / 2.0
            best.add(float(weight), (near, rest))
    return np.union1d(*best.best())


def _row_blocks(W, k: int):
    """Consecutive ranges of start vertices whose rows of ``W^2``, ``P W`` and ``B W`` fit a block."""
    n = W.shape[0]
    degrees = np.diff(W.indptr)
    two_hop = np.bincount(np.repeat(np.arange(n), degrees), weights=degrees[W.indices], minlength=n)
    rows_of_set = k * max(1.0, W.nnz / n)  # about the entries of the rows of a k-set
    cost = np.cumsum(two_hop + rows_of_set)
    start = 0
    while start < n:
        stop = int(np.searchsorted(cost, (cost[start - 1] if start else 0.0) + _BLOCK_ENTRIES, side="right"))
        stop = min(n, max(stop, start + 1))
        yield start, stop
        start = stop


def _indicator_rows(sets: list[np.ndarray], n: int) -> sp.csr_array:
    """The 0/1 matrix whose row ``r`` is the indicator of ``sets[r]`` (each sorted)."""
    lengths = np.fromiter(map(len, sets), dtype=np.intp, count=len(sets))
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    columns = np.concatenate(sets) if sets else np.empty(0, dtype=np.intp)
    return sp.csr_array((np.ones(columns.size), columns, indptr), shape=(len(sets), n))


def _two_walks_sparse_proposals(W, k: int, start: int, stop: int, scratch) -> tuple[list, list, np.ndarray]:
    """``P_v``, ``B_v`` and the weight of ``P_v | B_v`` for ``v`` in ``start..stop-1``.

    Rows of ``W^2``, of ``P W`` (weight into ``P_v``) and of ``B W`` come from one sparse
    product per block; scipy sums each entry over the rows of the left factor in
    increasing order, so row ``v`` does not depend on its block (the winner is recomputed
    alone). The weight is ``w(P_v) + w(P_v, B_v) + w(B_v)``.
    """
    n = W.shape[0]
    half_up, half_down = (k + 1) // 2, k // 2
    flags, lookup = scratch
    walks = sp.csr_array(W[start:stop] @ W)
    near_sets = [_top(walks.indices[walks.indptr[row]:walks.indptr[row + 1]],
                      walks.data[walks.indptr[row]:walks.indptr[row + 1]], half_up, n)
                 for row in range(stop - start)]
    into = sp.csr_array(_indicator_rows(near_sets, n) @ W)  # into[r, x] = weight from x into P_v
    rest_sets = []
    weights = np.empty(stop - start)
    for row, near in enumerate(near_sets):
        entries = slice(into.indptr[row], into.indptr[row + 1])
        columns, values = into.indices[entries], into.data[entries]
        rest = _top(columns, values, half_down, n, excluded=near, scratch=flags)
        lookup[columns] = values
        weights[row] = lookup[near].sum() / 2.0 + lookup[rest].sum()
        lookup[columns] = 0.0
        rest_sets.append(rest)
    within = sp.csr_array(_indicator_rows(rest_sets, n) @ W)
    for row, rest in enumerate(rest_sets):
        entries = slice(within.indptr[row], within.indptr[row + 1])
        lookup[within.indices[entries]] = within.data[entries]
        weights[row] += lookup[rest].sum() / 2.0
        lookup[within.indices[entries]] = 0.0
    return near_sets, rest_sets, weights


def _two_walks_sparse(W, k: int) -> np.ndarray:
    n = W.shape[0]
    scratch = np.zeros(n, dtype=bool), np.zeros(n)
    if compiled.use_for(W):
        weights = compiled.two_walk_weights(W.indptr, W.indices, W.data, k)
    else:
        weights = np.empty(n)
        for start, stop in _row_blocks(W, k):
            weights[start:stop] = _two_walks_sparse_proposals(W, k, start, stop, scratch)[2]
    winner = _first_near_max(weights)
    near_sets, rest_sets, _ = _two_walks_sparse_proposals(W, k, winner, winner + 1, scratch)
    return np.union1d(near_sets[0], rest_sets[0])


def _procedures(W, k: int, sparse: bool) -> dict[str, np.ndarray]:
    n = W.shape[0]
    if k == n:
        return {name: np.arange(n) for name in PROCEDURES}
    return {
        "heaviest_edges": _heaviest_edges(W, k, sparse),
        "highest_degrees": _highest_degrees(W, k, sparse),
        "two_walks": _two_walks_sparse(W, k) if sparse else _two_walks_dense(W, k),
    }


def _fpk(weights: WeightMatrix, k: int) -> np.ndarray:
    """The heaviest of the three proposals, ties to the earliest procedure."""
    W, sparse = weights.matrix, weights.is_sparse
    best = _FirstNearMax()
    for chosen in _procedures(W, k, sparse).values():
        best.add(_induced(W, chosen, sparse), chosen)
    return best.best()


# --- public API -----------------------------------------------------------------------------

def fpk_procedures(W, k: int) -> dict[str, np.ndarray]:
    """The ``k`` vertices proposed by each of the three Feige-Peleg-Kortsarz procedures.

    Let ``h = ceil(k / 2)`` and ``h' = floor(k / 2)`` (so ``h + h' = k``), and let the
    weighted degree of ``v`` be ``d(v) = sum_u W[v, u]`` (diagonal ignored).

    ``"heaviest_edges"`` (procedure 1)
        Scan the positive-weight edges heaviest first (ties: lowest ``(i, j)``, ``i < j``)
        and add an edge's endpoints to ``S`` whenever ``S`` stays within ``k`` vertices;
        stop at ``k`` vertices or when the edges run out. Then complete ``S`` to ``k``
        vertices by most weight into ``S``, ties to the lowest index.
    ``"highest_degrees"`` (procedure 2)
        ``H`` = the ``h`` vertices of largest weighted degree; add the ``h'`` vertices
        outside ``H`` with most weight into ``H``.
    ``"two_walks"`` (procedure 3)
        For every vertex ``v``: ``P_v`` = the ``h`` vertices ``w`` (``v`` itself included)
        of largest ``(W^2)[v, w]``, the weight of the length-2 walks from ``v`` to ``w``;
        ``B_v`` = the ``h'`` vertices outside ``P_v`` with most weight into ``P_v``. The
        heaviest ``P_v | B_v`` (ties to the lowest ``v``) is the proposal.

    Ties in any ranking go to the lowest index; computed sums within ``1e-12`` (relative to
    the largest compared value) count as tied, so rounding cannot decide a tie of exact
    arithmetic. For ``k = n`` every procedure returns all vertices.

    Parameters
    ----------
    W : array_like, scipy sparse matrix or WeightMatrix of shape (n, n)
        Weights as :func:`~fullbandit.dks.weights.check_weight_matrix` accepts them.
    k : int
        Number of vertices, ``1 <= k <= n``.

    Returns
    -------
    dict of str to numpy.ndarray
        ``{"heaviest_edges": ..., "highest_degrees": ..., "two_walks": ...}``, each ``k``
        increasing vertex indices.

    Raises
    ------
    ValueError
        If ``W`` is not square, symmetric, finite and non-negative off the diagonal, or
        ``k`` is out of range (:class:`~fullbandit.util.validation.InvalidParameterError`).
    TypeError
        If ``k`` is not an integer.

    Notes
    -----
    Procedure 1 needs no real completion step: when its scan ends with fewer than ``k``
    vertices, no vertex ``x`` outside ``S`` has an edge into ``S``. Such an edge
    ``(x, s)`` was scanned when ``S`` had at most ``k - 1`` vertices, ``s`` among them, or
    at most ``k - 2`` without ``s``; either way it fitted and ``x`` would be in ``S``.
    Hence "most weight into ``S``" ties at 0 and the lowest indices are added.
    Procedures 2 and 3 always give exactly ``k`` vertices (``h + h' = k <= n``).

    References
    ----------
    U. Feige, D. Peleg, G. Kortsarz. The dense k-subgraph problem. Algorithmica 29(3),
    410-421, 2001, Section 3 (procedures 1-3 of "algorithm A", here weighted; see the
    module docstring for the differences).

    Examples
    --------
    >>> import numpy as np
    >>> W = np.zeros((6, 6))
    >>> for i, j, w in [(0, 1, 5.0), (2, 3, 4.0), (3, 4, 4.0), (2, 4, 4.0), (4, 5, 1.0)]:
    ...     W[i, j] = W[j, i] = w
    >>> {name: chosen.tolist() for name, chosen in fpk_procedures(W, 3).items()}
    {'heaviest_edges': [0, 1, 2], 'highest_degrees': [2, 3, 4], 'two_walks': [2, 3, 4]}
    """
    weights = check_weight_matrix(W)
    k = check_int("k", k, low=1, high=weights.n)
    return _procedures(weights.matrix, k, weights.is_sparse)


def proven_fpk_ratio(n: int, k: int) -> float:
    r"""A ratio FPK provably reaches on every weighted instance with ``n`` vertices.

    Returns ``1`` if ``k = 1`` or ``k = n``, else ``max(r_1, r_2)`` with

    * ``r_1 = max(2 / (k (k - 1)), 1 / (k + (k mod 2)))`` (procedure 1),
    * ``r_2 = min(1/2, h' / (n - h)) * 2 h / k`` (procedure 2),

    where ``h = ceil(k / 2)`` and ``h' = floor(k / 2)``: the weight of :data:`FPK`'s
    answer is at least this ratio times the optimum ``OPT = w(S*)``, ``|S*| = k``.

    Parameters
    ----------
    n : int
        Number of vertices, ``n >= 1``.
    k : int
        Subgraph size, ``1 <= k <= n``.

    Returns
    -------
    float
        The ratio, in ``(0, 1]``.

    Raises
    ------
    ValueError
        If ``n < 1`` or ``k`` is not in ``[1, n]``.
    TypeError
        If ``n`` or ``k`` is not an integer.

    Notes
    -----
    Proof. FPK returns the heaviest proposal, so it suffices to bound each procedure.
    If ``k = 1`` every set weighs 0; if ``k = n`` every procedure returns all vertices.
    Let ``2 <= k < n``; all weights are non-negative, so adding vertices never lowers a
    weight, and we may assume ``OPT > 0``.

    *Procedure 1.* Its set ``S`` contains the heaviest edge (scanned first, it fits since
    ``k >= 2``) and ``S*`` has ``k (k - 1) / 2`` edges, each at most that heavy: this
    gives ``2 / (k (k - 1))``. Next, if every positive edge of ``S*`` lies inside ``S``,
    ``w(S) >= OPT``. Otherwise let ``e`` be the first positive edge of ``S*`` in scan
    order that does not end inside ``S``. When ``e`` was scanned (or when the scan
    stopped at ``|S| = k``, if before) it did not fit, so ``S`` already had at least
    ``k - 1`` vertices; each accepted edge adds at most 2 new vertices, so at least
    ``ceil((k - 1) / 2) = floor(k / 2) = h'`` edges had been accepted, all scanned before
    ``e`` and so each of weight ``>= w(e)``: ``w(S) >= h' w(e)``. Every edge of ``S*``
    not inside ``S`` comes at or after ``e`` in the scan, so weighs at most ``w(e)``;
    those inside ``S`` weigh at most ``w(S)`` together. Hence
    ``OPT <= w(S) + C(k, 2) w(e) <= w(S) (1 + C(k, 2) / h')``, and ``C(k, 2) / h'`` is
    ``k - 1`` for even ``k`` and ``k`` for odd ``k``: ``w(S) >= OPT / (k + (k mod 2))``.

    *Procedure 2.* Let ``D = sum_{v in H} d(v)`` and ``X = w(H, V \ H)``, so
    ``D = 2 w(H) + X``. The ``h'`` vertices added are the best of the ``n - h`` outside
    ``H`` by weight into ``H``, so they bring at least the average share
    ``a X`` with ``a = h' / (n - h)``; hence ``w(H | C) >= w(H) + a X >= c D`` with
    ``c = min(1/2, a)`` (as ``w(H) >= 2 c w(H)`` and ``a X >= c X``). ``H`` holds the
    ``h`` largest degrees, whose mean is at least the mean degree over ``S*``, which is
    at least ``2 OPT / k`` (degrees in ``G`` dominate degrees in ``G[S*]``). So
    ``D >= 2 h OPT / k`` and ``w(H | C) >= c (2 h / k) OPT``.

    The bound is for exact arithmetic. The implementation ranks exact input weights in
    procedure 1, but ranks computed sums in procedure 2 with a ``1e-12`` relative tie
    tolerance and picks the best proposal with the same tolerance, which can cost at most
    a relative ``~4e-12 k`` plus the rounding of the sums: negligible, but not zero.

    For large ``n / k``, ``r_1 ~ 1 / k`` and ``r_2 ~ k / (2 n)``; their crossover is near
    ``k = sqrt(2 n)``, where the ratio is about ``1 / sqrt(2 n)``. Feige, Peleg and
    Kortsarz prove ``O(n^{1/3 - delta})`` for their complete algorithm (which adds
    further procedures and restricts procedure 3, see the module docstring), a bound with
    unspecified constants that cannot certify anything.

    References
    ----------
    U. Feige, D. Peleg, G. Kortsarz. The dense k-subgraph problem. Algorithmica 29(3),
    410-421, 2001.

    Examples
    --------
    >>> proven_fpk_ratio(10, 2)
    1.0
    >>> proven_fpk_ratio(10, 4)
    0.25
    >>> proven_fpk_ratio(100, 10) == 1 / 10
    True
    """
    n = check_int("n", n, low=1)
    k = check_int("k", k, low=1, high=n)
    if k == 1 or k == n:
        return 1.0
    half_up, half_down = (k + 1) // 2, k // 2
    edges = max(2.0 / (k * (k - 1)), 1.0 / (k + k % 2))
    degrees = min(0.5, half_down / (n - half_up)) * 2.0 * half_up / k
    return max(edges, degrees)


FPK = Oracle("fpk", _fpk, proven_fpk_ratio)
