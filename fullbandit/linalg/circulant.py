"""Supports closed under the cyclic shift of the arms: their Gram matrix is circulant.

If the multiset of super-arms ``S`` equals ``{s + 1 mod n : s in S}``, then
``(X^T X)_{ij} = #{s in S : i, j in s}`` depends on ``(j - i) mod n`` only: ``X^T X`` is the
circulant matrix of its first row ``c``. Circulant matrices are diagonalised by the discrete
Fourier transform, so with ``lambda_f = sum_d c_d exp(-2 pi i f d / n)`` (real, since ``c`` is
symmetric: ``c_d = c_{n-d}``):

* the eigenvalues of ``X^T X`` are the ``lambda_f`` and those of its inverse ``1 / lambda_f``;
* ``(X^T X)^-1`` is the circulant of ``g = IDFT(1 / lambda)`` (exact symmetric), computed
  in ``O(n log n)`` and written out in ``O(n^2)``, against ``O(n^3)`` for a factorisation;
* the all-ones vector is the eigenvector of ``f = 0``, so ``lambda_max(P Q P)`` with
  ``P = I - 1 1^T / n`` is ``max_{f != 0} 1 / lambda_f``;
* a swap direction's variance ``||e_i - e_j||^2 = 2 (g_0 - g_{j-i})`` depends on ``j - i`` only.

Reference: R. M. Gray, *Toeplitz and Circulant Matrices: A Review*, Foundations and Trends
in Communications and Information Theory 2(3), 2006, section 3.1 (eigenvectors and
eigenvalues of circulant matrices).
"""

from __future__ import annotations

import numpy as np

from fullbandit.linalg.spectrum import SINGULAR_TOLERANCE, SingularMatrixError


def shift_closed_row(n: int, support) -> np.ndarray | None:
    """The first row of ``X^T X`` if ``support`` is closed under the shift ``i -> i + 1 mod n``, else ``None``.

    Parameters
    ----------
    n : int
        Number of arms.
    support : sequence of sequences of int
        The super-arms, repeats allowed (a multiset).

    Returns
    -------
    numpy.ndarray of shape (n,) or None
        ``c_d = #{s : 0, d in s}``.

    Examples
    --------
    >>> from fullbandit.linalg.circulant import shift_closed_row
    >>> shift_closed_row(4, [(0, 1), (1, 2), (2, 3), (0, 3)]).tolist()  # the cyclic windows
    [2.0, 1.0, 0.0, 1.0]
    >>> shift_closed_row(4, [(0, 1), (1, 2), (2, 3), (0, 2)]) is None
    True
    """
    if not len(support) or len(support) % n:  # an orbit of the shift has a size that divides n: quick refusal
        return None
    sizes = {len(member) for member in support}
    if len(sizes) != 1:
        return None
    members = np.sort(np.asarray(support, dtype=np.int64), axis=1)
    shifted = np.sort((members + 1) % n, axis=1)
    if not np.array_equal(_sorted_rows(members), _sorted_rows(shifted)):
        return None
    row = np.zeros(n)
    with_zero = members[members[:, 0] == 0]  # sorted: arm 0 is first when present
    np.add.at(row, with_zero.ravel(), 1.0)
    return row


def _sorted_rows(rows: np.ndarray) -> np.ndarray:
    return rows[np.lexsort(rows.T[::-1])]


def circulant_eigenvalues(row: np.ndarray) -> np.ndarray:
    """``lambda_f``, ``f = 0, ..., n - 1``, of the symmetric circulant matrix with first row ``row``.

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.linalg.circulant import circulant_eigenvalues
    >>> circulant_eigenvalues(np.array([2.0, 1.0, 0.0, 1.0])).round(12).tolist()
    [4.0, 2.0, 0.0, 2.0]
    """
    return np.fft.fft(np.asarray(row, dtype=float)).real


def circulant_matrix(row: np.ndarray) -> np.ndarray:
    """The symmetric circulant matrix ``M_{ij} = row[(j - i) mod n]`` (``row`` symmetric).

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.linalg.circulant import circulant_matrix
    >>> circulant_matrix(np.array([2.0, 1.0, 0.0, 1.0])).tolist()[1]
    [1.0, 2.0, 1.0, 0.0]
    """
    row = np.asarray(row, dtype=float)
    n = row.size
    doubled = np.concatenate([row, row])
    # Row i is row shifted right by i: a strided view of the doubled row, then one copy.
    view = np.lib.stride_tricks.as_strided(doubled[n:], shape=(n, n), strides=(-doubled.strides[0],
                                                                               doubled.strides[0]))
    return np.ascontiguousarray(view)


class CirculantInverse:
    """``(X^T X)^-1`` of a shift-closed support, from its Gram matrix's first row.

    Parameters
    ----------
    row : numpy.ndarray of shape (n,)
        First row of ``X^T X`` (:func:`shift_closed_row`).

    Raises
    ------
    SingularMatrixError
        If an eigenvalue is at most ``SINGULAR_TOLERANCE`` times the largest (the support
        does not identify ``theta``), as :func:`fullbandit.linalg.spectrum.cholesky_inverse`.

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.linalg.circulant import CirculantInverse, circulant_matrix
    >>> row = np.array([3.0, 2.0, 1.0, 1.0, 2.0])         # the windows of 3 out of 5 arms
    >>> inverse = CirculantInverse(row)
    >>> bool(np.allclose(inverse.matrix() @ circulant_matrix(row), np.eye(5)))
    True
    >>> bool(np.isclose(inverse.projected_lambda_max(), 1 / sorted(np.linalg.eigvalsh(circulant_matrix(row)))[0]))
    True
    """

    def __init__(self, row: np.ndarray):
        eigenvalues = circulant_eigenvalues(row)
        if not eigenvalues.min() > SINGULAR_TOLERANCE * eigenvalues.max():
            raise SingularMatrixError("the matrix is singular or not positive definite")
        self.eigenvalues = 1.0 / eigenvalues  # of the inverse, in frequency order
        self.row = np.fft.ifft(self.eigenvalues).real

    def matrix(self) -> np.ndarray:
        """The inverse, written out (``O(n^2)``)."""
        return circulant_matrix(self.row)

    def projected_lambda_max(self) -> float:
        """``lambda_max(P Q P)``: the all-ones eigenvector (``f = 0``) is projected out."""
        return float(self.eigenvalues[1:].max()) if self.eigenvalues.size > 1 else 0.0

    def swap_variances(self) -> np.ndarray:
        """``||e_0 - e_d||^2_Q = 2 (g_0 - g_d)`` for ``d = 0, ..., n - 1``."""
        return np.clip(2.0 * (self.row[0] - self.row), 0.0, None)
