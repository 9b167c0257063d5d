"""The 0/1 incidence of a list of super-arms, stored compactly, and the exact Gram matrices built from it.

A support of ``m`` super-arms of ``k`` arms each over ``n`` arms is an ``m x n`` matrix of
0/1 indicators ``X``; at ``n = 1000`` with ``m = 8 n`` members, as ``float64`` that is 64 MB.
:class:`Incidence` keeps only the column indices of the ones (CSR form, ``int16``: 2 bytes
per member and arm, 1.6 MB there) and forms what the least-squares estimate needs without
ever holding ``X``:

* ``X^T diag(w) X`` (:meth:`Incidence.gram`), in blocks of rows made dense one at a time
  (a few MB each) and multiplied by BLAS. With integer weights every entry is a sum of
  integers, which ``float64`` represents exactly (and ``float32`` the unweighted Gram of a
  block of fewer than ``2^24`` rows), so the result is exact whatever the block order;
* ``X^T v`` (:meth:`Incidence.transpose_times`), one pass over the stored indices;
* ``x_j^T Q x_j`` for every member (:meth:`Incidence.quadratic_forms`), in blocks.

Examples
--------
>>> import numpy as np
>>> from fullbandit.linalg.incidence import Incidence
>>> rows = Incidence(3, [(0, 1), (1, 2), (0, 2)])
>>> rows.gram().tolist()
[[2.0, 1.0, 1.0], [1.0, 2.0, 1.0], [1.0, 1.0, 2.0]]
>>> rows.gram(np.array([3, 0, 1])).tolist()       # 3 x_0 x_0^T + x_2 x_2^T
[[4.0, 3.0, 1.0], [3.0, 3.0, 0.0], [1.0, 0.0, 1.0]]
>>> rows.transpose_times(np.array([1.0, 2.0, 4.0])).tolist()
[5.0, 3.0, 6.0]
"""

from __future__ import annotations

import itertools

import numpy as np

from fullbandit.util.validation import InvalidParameterError

#: Entries of one dense block of rows (4 MB as float32, 8 MB as float64).
BLOCK_ENTRIES = 1 << 20


class Incidence:
    """0/1 indicator rows of super-arms over ``n`` arms, stored as column indices (CSR).

    Parameters
    ----------
    n : int
        Number of arms (columns).
    rows : sequence of sequences of int
        The super-arms, one row each (any sizes; indices in ``0..n-1``, distinct within a row).

    Attributes
    ----------
    n : int
    indptr : numpy.ndarray of int64, shape (m + 1,)
        Row ``j`` holds ``indices[indptr[j]:indptr[j + 1]]``.
    indices : numpy.ndarray of int16 (int32 from 32,768 arms)
        The arms of every row, row after row.

    Examples
    --------
    >>> from fullbandit.linalg.incidence import Incidence
    >>> rows = Incidence(4, [(0, 3), (1, 2, 3)])
    >>> len(rows), rows.dense().tolist()
    (2, [[1.0, 0.0, 0.0, 1.0], [0.0, 1.0, 1.0, 1.0]])
    """

    def __init__(self, n: int, rows):
        self.n = int(n)
        sizes = np.fromiter(map(len, rows), dtype=np.int64, count=len(rows))
        self.indptr = np.zeros(len(rows) + 1, dtype=np.int64)
        np.cumsum(sizes, out=self.indptr[1:])
        total = int(self.indptr[-1])
        self.indices = np.fromiter(itertools.chain.from_iterable(rows), dtype=np.int64, count=total)
        if total and (self.indices.min() < 0 or self.indices.max() >= self.n):
            raise InvalidParameterError(f"support members must hold arm indices in 0..{self.n - 1}")
        self.indices = self.indices.astype(np.int16 if self.n <= np.iinfo(np.int16).max else np.int32)

    def __len__(self) -> int:
        return self.indptr.size - 1

    @property
    def sizes(self) -> np.ndarray:
        """Number of arms in each row."""
        return np.diff(self.indptr)

    def dense(self, rows=None, dtype=float) -> np.ndarray:
        """The rows (all, or the given row indices) as a dense 0/1 matrix.

        Examples
        --------
        >>> from fullbandit.linalg.incidence import Incidence
        >>> Incidence(3, [(0,), (1, 2), (0, 2)]).dense([2, 0], dtype=int).tolist()
        [[1, 0, 1], [1, 0, 0]]
        """
        chosen = np.arange(len(self)) if rows is None else np.asarray(rows, dtype=np.int64)
        block = np.zeros((chosen.size, self.n), dtype=dtype)
        starts, stops = self.indptr[chosen], self.indptr[chosen + 1]
        lengths = stops - starts
        if lengths.sum():
            positions = np.repeat(starts - np.cumsum(lengths) + lengths, lengths) + np.arange(lengths.sum())
            block[np.repeat(np.arange(chosen.size), lengths), self.indices[positions]] = 1
        return block

    def _blocks(self, rows: np.ndarray, dtype):
        step = max(1, BLOCK_ENTRIES // max(self.n, 1))
        for start in range(0, rows.size, step):
            chosen = rows[start:start + step]
            yield chosen, self.dense(chosen, dtype)

    def gram(self, weights=None, rows=None) -> np.ndarray:
        """``X^T diag(w) X`` over all rows (or the given row indices), as ``float64``.

        Exact for integer weights (every entry is then a sum of integers below ``2^53``).

        Parameters
        ----------
        weights : array_like, optional
            One weight per row used (default: all ones).
        rows : array_like of int, optional
            The rows to use (default: all).

        Examples
        --------
        >>> import numpy as np
        >>> from fullbandit.linalg.incidence import Incidence
        >>> Incidence(2, [(0,), (0, 1)]).gram(rows=[1]).tolist()
        [[1.0, 1.0], [1.0, 1.0]]
        """
        chosen = np.arange(len(self)) if rows is None else np.asarray(rows, dtype=np.int64)
        gram = np.zeros((self.n, self.n))
        if weights is None:  # a block's entries count at most BLOCK_ENTRIES < 2^24 rows: exact in float32
            for _, block in self._blocks(chosen, np.float32):
                gram += block.T @ block
            return gram
        weights = np.asarray(weights, dtype=float)
        if weights.shape != chosen.shape:
            raise InvalidParameterError(f"weights must hold one number per row used ({chosen.size}), "
                                        f"got shape {weights.shape}")
        offset = 0
        for indices, block in self._blocks(chosen, np.float64):
            gram += block.T @ (weights[offset:offset + indices.size, None] * block)
            offset += indices.size
        return gram

    def transpose_times(self, values) -> np.ndarray:
        """``X^T v``: for each arm, the sum of ``v`` over the rows that hold it.

        Examples
        --------
        >>> from fullbandit.linalg.incidence import Incidence
        >>> Incidence(3, [(0, 1), (1, 2)]).transpose_times([1.0, 10.0]).tolist()
        [1.0, 11.0, 10.0]
        """
        values = np.asarray(values, dtype=float)
        return np.bincount(self.indices, weights=np.repeat(values, self.sizes), minlength=self.n)

    def quadratic_forms(self, Q, rows=None) -> np.ndarray:
        """``x_j^T Q x_j`` for every row ``j`` (or the given ones), in blocks of rows.

        Examples
        --------
        >>> import numpy as np
        >>> from fullbandit.linalg.incidence import Incidence
        >>> Incidence(2, [(0,), (0, 1)]).quadratic_forms(np.array([[2.0, 1.0], [1.0, 3.0]])).tolist()
        [2.0, 7.0]
        """
        chosen = np.arange(len(self)) if rows is None else np.asarray(rows, dtype=np.int64)
        forms = np.empty(chosen.size)
        offset = 0
        for indices, block in self._blocks(chosen, np.float64):
            forms[offset:offset + indices.size] = np.einsum("ij,ij->i", block @ Q, block)
            offset += indices.size
        return forms
