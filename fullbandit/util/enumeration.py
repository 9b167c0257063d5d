"""The enumeration limit, and all k-subsets of range(n) in chunks, for the exact (exponential) solvers."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import numpy as np

#: The one enumeration limit of the exact (exponential) solvers: above this many subsets they
#: refuse. One pass scores a few million subsets per second, so a check stays well under a second.
ENUMERATION_LIMIT = 200_000


def subset_chunks(n: int, k: int, chunk_size: int = 8192) -> Iterator[np.ndarray]:
    """Every ``k``-subset of ``range(n)`` in lexicographic order, ``chunk_size`` rows at a time.

    Each chunk is an integer array of shape ``(rows, k)`` (increasing indices per row), so a
    caller scores a whole chunk with one vectorised operation.
    """
    combinations = itertools.combinations(range(n), k)
    while True:
        chunk = np.fromiter(itertools.islice(combinations, chunk_size), dtype=np.dtype((np.intp, k)))
        if chunk.shape[0] == 0:
            return
        yield chunk


def indicator_rows(chunk: np.ndarray, n: int) -> np.ndarray:
    """The 0/1 indicator vectors of the subsets in ``chunk`` (one row each)."""
    indicators = np.zeros((chunk.shape[0], n))
    np.put_along_axis(indicators, chunk, 1.0, axis=1)
    return indicators
