"""The linear algebra of a stopping check: ``A^-1`` from the Cholesky factor, and the spectral
quantities of ``A^-1`` that the bounds use, each computed at most once per check.

``A^-1`` comes from LAPACK's ``potrf`` (Cholesky) and ``potri`` (the inverse from the
factor: ``n^3 / 3`` multiplications instead of the ``n^3`` of inverting ``L`` and multiplying);
its lower triangle is mirrored, so the inverse is exactly symmetric.

:class:`InverseSpectrum` holds the eigenvalues of ``A^-1`` and ``lambda_max(P A^-1 P)``
(``P = I - 1 1^T / n``), computed lazily, so every bound of a check shares one
eigen-decomposition. When ``A^-1 = c B`` for a matrix ``B`` whose spectrum is already known
(a uniform design checked at whole passes: ``A = q X^T X``, so ``A^-1 = (1/q) (X^T X)^-1``),
:meth:`InverseSpectrum.scaled` reuses it: eigenvalues scale with ``c > 0``.

Examples
--------
>>> import numpy as np
>>> from fullbandit.linalg.spectrum import InverseSpectrum, cholesky_inverse
>>> inverse = cholesky_inverse(np.array([[2.0, 1.0], [1.0, 2.0]]))
>>> inverse.round(12).tolist()
[[0.666666666667, -0.333333333333], [-0.333333333333, 0.666666666667]]
>>> spectrum = InverseSpectrum(inverse)
>>> spectrum.eigenvalues().round(12).tolist(), spectrum.scaled(0.5).eigenvalues().round(12).tolist()
([0.333333333333, 1.0], [0.166666666667, 0.5])
"""

from __future__ import annotations

import numpy as np

#: Relative pivot size below which a Gram matrix counts as singular: ``min pivot^2 <= tol * max A_ii``
#: (``min pivot^2 >= lambda_min(A)``, so a tiny pivot means rank < n).
SINGULAR_TOLERANCE = 1e-10


class SingularMatrixError(ArithmeticError):
    """:func:`cholesky_inverse` met a matrix that is not (numerically) positive definite."""


def cholesky_inverse(gram: np.ndarray) -> np.ndarray:
    """``A^-1`` of a symmetric positive definite ``A`` via LAPACK ``potrf`` / ``potri``, exactly symmetric.

    Parameters
    ----------
    gram : numpy.ndarray of shape (n, n)
        Symmetric (only its lower triangle is read).

    Returns
    -------
    numpy.ndarray of shape (n, n)

    Raises
    ------
    SingularMatrixError
        If the factorisation fails or a pivot is below :data:`SINGULAR_TOLERANCE` (relative).

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.linalg.spectrum import cholesky_inverse
    >>> cholesky_inverse(np.array([[4.0, 2.0], [2.0, 2.0]])).tolist()
    [[0.5, -0.5], [-0.5, 1.0]]
    >>> cholesky_inverse(np.ones((2, 2)))
    Traceback (most recent call last):
    ...
    fullbandit.linalg.spectrum.SingularMatrixError: the matrix is singular or not positive definite
    """
    # Imported here, not at the top: scipy.linalg is a tenth of a second of a command's start-up (a session
    # command that never checks the stopping rule needs none of it); once imported, this costs ~0.5 us.
    from scipy.linalg import lapack

    # A symmetric matrix's transpose is itself, and is Fortran-ordered: LAPACK reads it without a copy.
    factor, info = lapack.dpotrf(gram.T, lower=1, clean=0)
    diagonal = np.diag(factor)
    if info != 0 or not np.min(diagonal) ** 2 > SINGULAR_TOLERANCE * np.max(np.diag(gram)):
        raise SingularMatrixError("the matrix is singular or not positive definite")
    inverse, info = lapack.dpotri(factor, lower=1, overwrite_c=1)
    if info != 0:
        raise SingularMatrixError("the matrix is singular or not positive definite")
    for column in range(inverse.shape[0] - 1):  # mirror the lower triangle in place (no n x n temporaries)
        inverse[column, column + 1:] = inverse[column + 1:, column]
    return inverse.T  # potri's result is Fortran-ordered; exactly symmetric, its transpose is it in C order


def centred_lambda_max(matrix: np.ndarray) -> float:
    """``lambda_max(P Q P)`` with ``P = I - 1 1^T / n``, clipped at 0.

    ``||y||^2_Q <= lambda ||y||^2`` for every ``y`` with ``1^T y = 0``.

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.linalg.spectrum import centred_lambda_max
    >>> round(centred_lambda_max(np.eye(3) + 5.0 * np.ones((3, 3))), 12)   # 1 is projected out
    1.0
    """
    Q = np.asarray(matrix, dtype=float)
    centred = Q - Q.mean(axis=0)[None, :] - Q.mean(axis=1)[:, None] + Q.mean()
    centred = (centred + centred.T) / 2.0
    return max(float(np.linalg.eigvalsh(centred)[-1]), 0.0)


class InverseSpectrum:
    """The spectral quantities of ``Q = factor * base`` (``A^-1``), each computed once and shared.

    Parameters
    ----------
    base : numpy.ndarray of shape (n, n)
        A symmetric matrix.
    factor : float
        A positive scale: the matrix described is ``factor * base``.

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.linalg.spectrum import InverseSpectrum
    >>> spectrum = InverseSpectrum(np.diag([1.0, 4.0]))
    >>> spectrum.eigenvalues().tolist(), spectrum.scaled(3.0).projected_lambda_max()
    ([1.0, 4.0], 7.5)
    """

    def __init__(self, base: np.ndarray, factor: float = 1.0, _cache: dict | None = None):
        self.base = base
        self.factor = float(factor)
        self._cache = {} if _cache is None else _cache  # shared by every scaled copy of ``base``

    def scaled(self, factor: float) -> InverseSpectrum:
        """The spectrum of ``factor * Q`` (``factor > 0``), sharing what is already computed."""
        return InverseSpectrum(self.base, self.factor * factor, self._cache)

    def eigenvalues(self) -> np.ndarray:
        """The eigenvalues of ``Q``, ascending (a new array)."""
        if "eigenvalues" not in self._cache:
            self._cache["eigenvalues"] = np.linalg.eigvalsh(self.base)
        return self.factor * self._cache["eigenvalues"]

    def projected_lambda_max(self) -> float:
        """``lambda_max(P Q P)`` (:func:`centred_lambda_max`)."""
        if "projected" not in self._cache:
            self._cache["projected"] = centred_lambda_max(self.base)
        return self.factor * self._cache["projected"]
