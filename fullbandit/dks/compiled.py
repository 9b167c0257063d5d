"""Optional compiled (numba) kernels of the densest-k-subgraph code, each with a pure-numpy twin.

Install the ``fast`` extra (``pip install fullbandit[fast]``, i.e. numba) to use them;
set the environment variable ``FULLBANDIT_NUMBA=0`` to ignore an installed numba. A
kernel returns exactly what its pure-numpy twin returns (the same floating-point
operations in the same order), so results never depend on whether numba is installed;
tests/test_dks_speed_paths.py runs both on the same instances. Without numba the kernels
still run, as plain (slow) Python: that is how the tests check them on any machine.

numba is imported and the kernels compiled on first use only (the machine code is cached
on disk, so a later process loads it in about a second), and only for matrices with at
least :data:`MIN_ENTRIES` stored entries: below that the twins are already fast.

Kernels:

* :func:`peel_sparse` — greedy peeling of a CSR matrix with an indexed binary heap keyed
  ``(degree, index)`` (twin: the ``heapq`` loop of :mod:`fullbandit.dks.peeling`); about
  10x faster on 10^5-10^6 edges (benchmarks/bench_dks.py).

* :func:`two_walk_weights` — the weight of every proposal of procedure 3 of
  Feige-Peleg-Kortsarz on a CSR matrix, one start vertex at a time with dense
  accumulators (twin: the blocked sparse products of
  :mod:`fullbandit.dks.feige_peleg_kortsarz`). It accumulates every entry over the rows of
  the left factor in increasing order, as scipy's sparse product does, selects with the
  same rule (:func:`_select`, the twin of ``_top``) and adds up with numpy's pairwise
  summation (:func:`_pairwise_sum`), so the weights agree to the last bit.
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np

__all__ = ["MIN_ENTRIES", "available", "use_for", "peel_sparse", "two_walk_weights"]

MIN_ENTRIES = 100_000
"""Stored entries from which the compiled kernels are used (when :func:`available`)."""

_KERNELS = ("_before", "_sift_up", "_sift_down", "_peel_sparse", "_block_sum", "_pairwise_sum", "_gathered_sum",
            "_select", "_accumulate", "_clear", "_two_walk_weights")
_compiled = False


def available() -> bool:
    """Whether numba is installed and not disabled by ``FULLBANDIT_NUMBA=0``.

    Examples
    --------
    >>> isinstance(available(), bool)
    True
    """
    return os.environ.get("FULLBANDIT_NUMBA", "1") != "0" and importlib.util.find_spec("numba") is not None


def use_for(W) -> bool:
    """Whether the compiled kernels run on the CSR matrix ``W``: numba :func:`available`, ``W`` large enough.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> use_for(sp.csr_array((3, 3)))
    False
    """
    return W.nnz >= MIN_ENTRIES and available()


def _compile() -> None:
    """Replace the kernels by their numba versions (helpers first: a kernel calls them by name)."""
    global _compiled
    if not _compiled:
        import numba
        for name in _KERNELS:
            globals()[name] = numba.njit(cache=True, nogil=True)(globals()[name])
        _compiled = True


def _before(degree, a, b) -> bool:
    return degree[a] < degree[b] or (degree[a] == degree[b] and a < b)


def _sift_up(heap, where, degree, position) -> None:
    vertex = heap[position]
    while position > 0:
        parent = (position - 1) >> 1
        if not _before(degree, vertex, heap[parent]):
            break
        heap[position] = heap[parent]
        where[heap[position]] = position
        position = parent
    heap[position] = vertex
    where[vertex] = position


def _sift_down(heap, where, degree, position, size) -> None:
    vertex = heap[position]
    while True:
        child = 2 * position + 1
        if child >= size:
            break
        if child + 1 < size and _before(degree, heap[child + 1], heap[child]):
            child += 1
        if not _before(degree, heap[child], vertex):
            break
        heap[position] = heap[child]
        where[heap[position]] = position
        position = child
    heap[position] = vertex
    where[vertex] = position


def _peel_sparse(indptr, indices, data, degree, k):
    n = degree.shape[0]
    heap = np.arange(n)
    where = np.arange(n)
    for position in range(n // 2 - 1, -1, -1):
        _sift_down(heap, where, degree, position, n)
    alive = np.ones(n, dtype=np.bool_)
    size = n
    for _ in range(n - k):
        vertex = heap[0]
        size -= 1
        heap[0] = heap[size]
        where[heap[0]] = 0
        _sift_down(heap, where, degree, 0, size)
        alive[vertex] = False
        for entry in range(indptr[vertex], indptr[vertex + 1]):
            neighbour = indices[entry]
            if alive[neighbour]:
                degree[neighbour] -= data[entry]  # degrees only fall: the vertex can only move up
                _sift_up(heap, where, degree, where[neighbour])
    return alive


def peel_sparse(indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, degree: np.ndarray,
                k: int) -> np.ndarray:
    """Greedy peeling of a CSR matrix down to ``k`` vertices: which vertices remain (a mask).

    ``degree`` (float64, overwritten) holds the initial weighted degrees. Each step deletes
    the remaining vertex of smallest ``(degree, index)`` and subtracts its edges from its
    remaining neighbours' degrees, in the order the twin does, so the floating-point
    degrees and the choices are the same.
    """
    if available():
        _compile()
    return _peel_sparse(indptr, indices, data, degree, k)


# --- procedure 3 of Feige-Peleg-Kortsarz -----------------------------------------------------

_RELATIVE_TIE = 1e-12  # as in fullbandit.dks.feige_peleg_kortsarz
_PAIRWISE_BLOCK = 128  # numpy's PW_BLOCKSIZE


def _block_sum(values, start, stop):
    """numpy's sum of at most 128 values: 8 interleaved accumulators, then the rest in order."""
    size = stop - start
    if size < 8:
        total = 0.0
        for i in range(start, stop):
            total += values[i]
        return total
    r0, r1, r2, r3 = values[start], values[start + 1], values[start + 2], values[start + 3]
    r4, r5, r6, r7 = values[start + 4], values[start + 5], values[start + 6], values[start + 7]
    i = start + 8
    end = stop - size % 8
    while i < end:
        r0 += values[i]
        r1 += values[i + 1]
        r2 += values[i + 2]
        r3 += values[i + 3]
        r4 += values[i + 4]
        r5 += values[i + 5]
        r6 += values[i + 6]
        r7 += values[i + 7]
        i += 8
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < stop:
        total += values[i]
        i += 1
    return total


def _pairwise_sum(values, start, stop):
    """``values[start:stop].sum()`` in numpy's order: halves (cut at a multiple of 8) down to blocks of 128.

    numpy recurses; this walks the same tree with an explicit stack (numba compiles no
    self-recursion here), adding each left half to its right half.
    """
    if stop - start <= _PAIRWISE_BLOCK:
        return _block_sum(values, start, stop)
    frames = np.empty((64, 3), dtype=np.int64)  # (start, stop, halves done); depth <= log2(size)
    partial = np.empty(64)
    depth, results = 1, 0
    frames[0, 0], frames[0, 1], frames[0, 2] = start, stop, 0
    while depth:
        low, high, done = frames[depth - 1, 0], frames[depth - 1, 1], frames[depth - 1, 2]
        if high - low <= _PAIRWISE_BLOCK:
            partial[results] = _block_sum(values, low, high)
            results += 1
            depth -= 1
            continue
        half = (high - low) // 2
        half -= half % 8
        if done == 2:  # both halves summed: left + right
            partial[results - 2] = partial[results - 2] + partial[results - 1]
            results -= 1
            depth -= 1
            continue
        frames[depth - 1, 2] = done + 1
        child_low, child_high = (low, low + half) if done == 0 else (low + half, high)
        frames[depth, 0], frames[depth, 1], frames[depth, 2] = child_low, child_high, 0
        depth += 1
    return partial[0]


def _gathered_sum(lookup, vertices, buffer):
    """``lookup[vertices].sum()`` as numpy computes it (``buffer``: scratch of length >= len(vertices))."""
    for i in range(vertices.shape[0]):
        buffer[i] = lookup[vertices[i]]
    return _pairwise_sum(buffer, 0, vertices.shape[0])


def _select(candidates, lookup, count, excluded, flags):
    """The ``count`` allowed vertices of largest value, ties to the lowest index; sorted.

    Twin of ``_top`` of :mod:`fullbandit.dks.feige_peleg_kortsarz`: ``lookup[c]`` is the
    value of candidate ``c`` (every other vertex has value 0), vertices flagged in
    ``excluded`` are not allowed, values within ``1e-12`` times the largest allowed value
    of the threshold are tied. ``flags`` (all False, restored on return) is scratch.
    """
    if count <= 0:
        return np.empty(0, dtype=np.int64)
    allowed = np.empty(candidates.shape[0], dtype=np.int64)
    size = 0
    largest = 0.0
    for i in range(candidates.shape[0]):
        vertex = candidates[i]
        if not excluded[vertex]:
            allowed[size] = vertex
            size += 1
            largest = max(largest, lookup[vertex])
    allowed = allowed[:size]
    values = np.empty(size)
    for i in range(size):
        values[i] = lookup[allowed[i]]
    tolerance = _RELATIVE_TIE * largest
    threshold = np.partition(values, size - count)[size - count] if size >= count else 0.0
    chosen = np.empty(count, dtype=np.int64)
    found = 0
    for i in range(size):
        if values[i] > threshold + tolerance:
            chosen[found] = allowed[i]
            found += 1
    sure = found
    if threshold > tolerance:  # the tied vertices of lowest index complete the choice
        tied = np.empty(size, dtype=np.int64)
        ties = 0
        for i in range(size):
            if abs(values[i] - threshold) <= tolerance:
                tied[ties] = allowed[i]
                ties += 1
        need = min(count - sure, ties)
        if need < ties:  # the ``need`` lowest of them
            tied[:ties] = np.partition(tied[:ties], need)
        for i in range(need):
            chosen[found] = tied[i]
            found += 1
    else:  # every allowed vertex outside the sure ones is tied: the lowest indices
        for i in range(sure):
            flags[chosen[i]] = True
        vertex = 0
        while found < count:
            if not flags[vertex] and not excluded[vertex]:
                chosen[found] = vertex
                found += 1
            vertex += 1
        for i in range(sure):
            flags[chosen[i]] = False
    return np.sort(chosen[:found])


def _accumulate(indptr, indices, data, rows, scale, only, sums, seen, touched):
    """``sums[x] += scale[r] * W[rows[r], x]`` over ``r`` in order (``x`` flagged in ``only``, or every ``x``
    when ``only`` is None); returns how many vertices it touched first (listed in ``touched``)."""
    count = 0
    for r in range(rows.shape[0]):
        row = rows[r]
        factor = scale[r]
        for entry in range(indptr[row], indptr[row + 1]):
            vertex = indices[entry]
            if only is not None and not only[vertex]:
                continue
            if not seen[vertex]:
                seen[vertex] = True
                touched[count] = vertex
                count += 1
            sums[vertex] += factor * data[entry]
    return count


def _clear(sums, seen, touched, count):
    for i in range(count):
        sums[touched[i]] = 0.0
        seen[touched[i]] = False


def _two_walk_weights(indptr, indices, data, k, start, stop):
    n = indptr.shape[0] - 1
    half_up, half_down = (k + 1) // 2, k // 2
    sums = np.zeros(n)
    seen = np.zeros(n, dtype=np.bool_)
    excluded = np.zeros(n, dtype=np.bool_)
    flags = np.zeros(n, dtype=np.bool_)
    touched = np.empty(n, dtype=np.int64)
    buffer = np.empty(max(half_up, 1))
    weights = np.empty(stop - start)
    for v in range(start, stop):
        # row v of W^2: row v of W times W, over the neighbours of v in increasing order
        neighbours = indices[indptr[v]:indptr[v + 1]]
        count = _accumulate(indptr, indices, data, neighbours, data[indptr[v]:indptr[v + 1]], None,
                            sums, seen, touched)
        near = _select(touched[:count], sums, half_up, excluded, flags)
        _clear(sums, seen, touched, count)
        # weight from every vertex into P_v (scipy multiplies by the indicator's 1.0)
        ones = np.ones(near.shape[0])
        count = _accumulate(indptr, indices, data, near, ones, None, sums, seen, touched)
        for vertex in near:
            excluded[vertex] = True
        rest = _select(touched[:count], sums, half_down, excluded, flags)
        for vertex in near:
            excluded[vertex] = False
        weight = _gathered_sum(sums, near, buffer) / 2.0 + _gathered_sum(sums, rest, buffer)
        _clear(sums, seen, touched, count)
        # weight inside B_v: only its own entries are read back
        for vertex in rest:
            flags[vertex] = True
        count = _accumulate(indptr, indices, data, rest, ones[:rest.shape[0]], flags, sums, seen, touched)
        for vertex in rest:
            flags[vertex] = False
        weights[v - start] = weight + _gathered_sum(sums, rest, buffer) / 2.0
        _clear(sums, seen, touched, count)
    return weights


def two_walk_weights(indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, k: int,
                     start: int = 0, stop: int | None = None) -> np.ndarray:
    """Weight of the procedure-3 proposal ``P_v | B_v`` of every start vertex ``v`` in ``start..stop-1``.

    ``(indptr, indices, data)`` is a validated symmetric CSR matrix (sorted indices, no
    stored zeros, no diagonal). The rules are those of
    :func:`fullbandit.dks.feige_peleg_kortsarz.fpk_procedures`; the weights equal, bit for
    bit, those of its blocked sparse products.

    Examples
    --------
    A path ``0 - 1 - 2 - 3`` with a heavy middle edge; ``k = 2``: from every start vertex
    the proposal is the middle edge or an end edge.

    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from fullbandit.dks import check_weight_matrix
    >>> W = np.zeros((4, 4))
    >>> for i, j, w in [(0, 1, 1.0), (1, 2, 5.0), (2, 3, 1.0)]:
    ...     W[i, j] = W[j, i] = w
    >>> W = check_weight_matrix(sp.csr_array(W)).matrix
    >>> two_walk_weights(W.indptr, W.indices, W.data, 2).tolist()
    [5.0, 5.0, 5.0, 5.0]
    """
    stop = indptr.shape[0] - 1 if stop is None else stop
    if available():
        _compile()
    return _two_walk_weights(indptr, indices, data, k, start, stop)
