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
  ``(degree, index)`` (twin: the ``heapq`` loop of :mod:`fullbandit.dks.peeling`).
* :func:`two_walks_weights` — the weight of procedure 3 of Feige-Peleg-Kortsarz from every
  start vertex of a CSR matrix, one vertex at a time with dense scratch arrays (twin: the
  blocked sparse products of :mod:`fullbandit.dks.feige_peleg_kortsarz`).
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np

__all__ = ["MIN_ENTRIES", "available", "use_for", "peel_sparse", "two_walks_weights"]

MIN_ENTRIES = 100_000
"""Stored entries from which the compiled kernels are used (when :func:`available`)."""

_KERNELS = ("_before", "_sift_up", "_sift_down", "_peel_sparse", "_top", "_sum_within", "_two_walks_weights")
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


_RELATIVE_TIE = 1e-12  # as in fullbandit.dks.feige_peleg_kortsarz


def _top(indices, values, count, excluded, marks):
    """Twin of ``feige_peleg_kortsarz._top`` for candidates already outside ``excluded`` (a mask)."""
    if count <= 0:
        return np.empty(0, dtype=np.int64)
    size = indices.size
    largest = 0.0
    for i in range(size):
        largest = max(largest, values[i])
    tolerance = _RELATIVE_TIE * largest
    threshold = 0.0
    if size >= count:
        threshold = np.partition(values.copy(), size - count)[size - count]
    chosen = np.empty(count, dtype=np.int64)
    sure = 0
    for i in range(size):
        if values[i] > threshold + tolerance:
            chosen[sure] = indices[i]
            sure += 1
    need = count - sure
    if threshold > tolerance:  # the lowest ``need`` indices of the tied values
        tied = np.empty(size, dtype=np.int64)
        ties = 0
        for i in range(size):
            if abs(values[i] - threshold) <= tolerance:
                tied[ties] = indices[i]
                ties += 1
        lowest = np.partition(tied[:ties], need)[:need] if need < ties else tied[:ties]
        chosen[sure:] = lowest
    else:  # every allowed vertex outside the sure ones is tied: the lowest indices
        for i in range(sure):
            marks[chosen[i]] = True
        vertex = 0
        for position in range(sure, count):
            while marks[vertex] or excluded[vertex]:
                vertex += 1
            chosen[position] = vertex
            vertex += 1
        for i in range(sure):
            marks[chosen[i]] = False
    chosen.sort()
    return chosen


def _sum_within(indptr, indices, data, members, inside):
    """``sum_{x in members} sum_{y in members, row order} W[x, y]``, added in increasing order.

    Scanning row ``x`` gives ``W[x, y]`` for increasing ``y``, the same additions as the
    column ``x`` of the twin's sparse product over the rows of ``members`` (``W`` is symmetric).
    """
    total = 0.0
    for member in members:
        into = 0.0
        for entry in range(indptr[member], indptr[member + 1]):
            if inside[indices[entry]]:
                into += data[entry]
        total += into
    return total


def _two_walks_weights(indptr, indices, data, k):
    n = indptr.size - 1
    half_up, half_down = (k + 1) // 2, k // 2
    sums = np.zeros(n)
    stamp = np.zeros(n, dtype=np.int64)  # sums[x] is current iff stamp[x] == generation: nothing to reset
    generation = 0
    touched = np.empty(n, dtype=np.int64)
    candidates = np.empty(n, dtype=np.int64)
    values = np.empty(n)
    near_mask = np.zeros(n, dtype=np.bool_)
    rest_mask = np.zeros(n, dtype=np.bool_)
    marks = np.zeros(n, dtype=np.bool_)
    nothing = np.zeros(n, dtype=np.bool_)
    weights = np.empty(n)
    for start in range(n):
        # row ``start`` of W^2, summed over the middle vertex in increasing order (from 0, as scipy)
        generation += 1
        count = 0
        for entry in range(indptr[start], indptr[start + 1]):
            middle, first_weight = indices[entry], data[entry]
            for step in range(indptr[middle], indptr[middle + 1]):
                end = indices[step]
                if stamp[end] != generation:
                    stamp[end] = generation
                    sums[end] = first_weight * data[step]
                    touched[count] = end
                    count += 1
                else:
                    sums[end] += first_weight * data[step]
        size = 0
        for i in range(count):
            if sums[touched[i]] != 0.0:  # scipy's product stores no zero
                candidates[size] = touched[i]
                values[size] = sums[touched[i]]
                size += 1
        near = _top(candidates[:size], values[:size], half_up, nothing, marks)
        # weight from every vertex into P, summed over P in increasing order
        generation += 1
        count = 0
        for member in near:
            near_mask[member] = True
            for entry in range(indptr[member], indptr[member + 1]):
                end = indices[entry]
                if stamp[end] != generation:
                    stamp[end] = generation
                    sums[end] = data[entry]
                    touched[count] = end
                    count += 1
                else:
                    sums[end] += data[entry]
        size = 0
        for i in range(count):
            end = touched[i]
            if not near_mask[end] and sums[end] != 0.0:
                candidates[size] = end
                values[size] = sums[end]
                size += 1
        rest = _top(candidates[:size], values[:size], half_down, near_mask, marks)
        into_near = 0.0
        for member in near:
            if stamp[member] == generation:
                into_near += sums[member]
        into_rest = 0.0
        for member in rest:
            if stamp[member] == generation:
                into_rest += sums[member]
        for member in near:
            near_mask[member] = False
        for member in rest:
            rest_mask[member] = True
        within = _sum_within(indptr, indices, data, rest, rest_mask)
        for member in rest:
            rest_mask[member] = False
        weights[start] = (into_near / 2.0 + into_rest) + within / 2.0
    return weights


def two_walks_weights(indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, k: int) -> np.ndarray:
    """For every start vertex ``v`` of a CSR matrix, the weight of ``P_v | B_v`` (FPK procedure 3).

    ``P_v``: the ``ceil(k/2)`` vertices of most two-walk weight from ``v``; ``B_v``: the
    ``floor(k/2)`` vertices outside ``P_v`` of most weight into ``P_v``; ties and the
    weight's order of additions exactly as ``_two_walks_sparse_proposals`` of
    :mod:`fullbandit.dks.feige_peleg_kortsarz`. Memory ``O(n)``: one start vertex at a time.
    """
    if available():
        _compile()
    return _two_walks_weights(indptr, indices, data, k)
