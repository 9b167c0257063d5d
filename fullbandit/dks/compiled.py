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

A kernel for procedure 3 of Feige-Peleg-Kortsarz was tried and left out: it gained only
1.6x over the blocked sparse products of :mod:`fullbandit.dks.feige_peleg_kortsarz`.
"""

from __future__ import annotations

import importlib.util
import os

import numpy as np

__all__ = ["MIN_ENTRIES", "available", "use_for", "peel_sparse"]

MIN_ENTRIES = 100_000
"""Stored entries from which the compiled kernels are used (when :func:`available`)."""

_KERNELS = ("_before", "_sift_up", "_sift_down", "_peel_sparse")
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
