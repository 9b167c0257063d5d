"""The least-squares estimate ``theta_hat = A^-1 b`` with its Gram matrix ``A`` and ``A^-1``
(:class:`LeastSquaresEstimate`), and the error of a design that does not identify ``theta``.

The estimate is the one behind the confidence bound of Kuroki et al. (2020), Proposition 1,
``theta_hat_t = A_t^-1 b_t`` with ``A_t = sum_s x_s x_s^T`` and ``b_t = sum_s r_s x_s``; a static
design forms it from its counts and sums (:mod:`fullbandit.linalg.static_design`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from fullbandit.linalg.spectrum import InverseSpectrum
from fullbandit.util.validation import InvalidParameterError


class SingularDesignError(InvalidParameterError):
    """The pulled super-arms do not span R^n, so ``theta`` is not identifiable from them.

    Examples
    --------
    >>> from fullbandit.linalg.least_squares import SingularDesignError
    >>> from fullbandit.linalg.static_design import StaticDesign
    >>> design = StaticDesign(3, [(0, 1), (1, 2)])
    >>> design.record(0, 1.0)
    >>> design.record(1, 1.0)
    >>> design.estimate()  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    fullbandit.linalg.least_squares.SingularDesignError: the pulled super-arms span rank 2 < n=3: ...
    """


class LeastSquaresEstimate:
    """``theta_hat = A^-1 b`` with the Gram matrix ``A`` and its inverse ``A^-1`` (read-only).

    Parameters
    ----------
    theta : numpy.ndarray of shape (n,)
        The estimate ``theta_hat``.
    gram : numpy.ndarray of shape (n, n), or a function returning it
        ``A = sum_s x_s x_s^T`` over the pulls. A function is called each time :attr:`gram`
        is read, and nothing holds its result in between: at whole passes of a uniform
        design ``A = q X^T X``, which no stopping rule reads, so
        :meth:`StaticDesign.estimate` forms it only on demand rather than keeping a scaled
        copy of the support's ``X^T X`` with every check (8 MB at ``n = 1000``).
    gram_inverse : numpy.ndarray of shape (n, n)
        ``A^-1`` (exactly symmetric).
    pulls : int
        Number of pulls the estimate is built on.
    spectrum : fullbandit.linalg.spectrum.InverseSpectrum, optional
        The eigenvalues of ``A^-1`` (and ``lambda_max(P A^-1 P)``), computed at most once and
        shared by every bound of the check (default: computed from ``gram_inverse`` when
        first asked for).
    reform_inverse : callable, optional
        A function that forms ``gram_inverse`` again, bit for bit (at whole passes
        ``(X^T X)^-1 / q`` from the support's inverse): :meth:`release_inverse` may then let
        the array go.

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.linalg.least_squares import LeastSquaresEstimate
    >>> gram = np.array([[2.0, 1.0], [1.0, 2.0]])
    >>> estimate = LeastSquaresEstimate(np.zeros(2), gram, np.linalg.inv(gram), pulls=3)
    >>> round(estimate.width([1.0, 1.0]), 12)  # (1, 1) A^-1 (1, 1)^T = 2/3
    0.816496580928
    >>> estimate.spectrum.eigenvalues().round(12).tolist()
    [0.333333333333, 1.0]
    >>> formed = LeastSquaresEstimate(np.zeros(2), lambda: 3.0 * gram, np.linalg.inv(3.0 * gram), pulls=9)
    >>> formed.gram.tolist()   # formed when read
    [[6.0, 3.0], [3.0, 6.0]]
    """

    __slots__ = ("theta", "_gram", "_gram_inverse", "_reform_inverse", "pulls", "spectrum")

    theta: np.ndarray
    pulls: int
    spectrum: InverseSpectrum
    _gram: np.ndarray | Callable[[], np.ndarray]
    _gram_inverse: np.ndarray | None
    _reform_inverse: Callable[[], np.ndarray] | None

    def __init__(self, theta: np.ndarray, gram: np.ndarray | Callable[[], np.ndarray], gram_inverse: np.ndarray,
                 pulls: int, spectrum: InverseSpectrum | None = None, *,
                 reform_inverse: Callable[[], np.ndarray] | None = None):
        for name, value in (("theta", theta), ("_gram", gram), ("_gram_inverse", gram_inverse), ("pulls", pulls),
                            ("spectrum", InverseSpectrum(gram_inverse) if spectrum is None else spectrum),
                            ("_reform_inverse", reform_inverse)):
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        raise AttributeError(f"LeastSquaresEstimate is read-only: cannot set {name!r}")

    def __getstate__(self) -> dict:  # pickle and copy: the slots as they are
        return {name: object.__getattribute__(self, name) for name in self.__slots__}

    def __setstate__(self, state: dict) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        return f"LeastSquaresEstimate(theta={self.theta!r}, pulls={self.pulls})"

    @property
    def gram(self) -> np.ndarray:
        """``A`` (formed now when the estimate was given a function for it)."""
        return self._gram() if callable(self._gram) else self._gram

    @property
    def gram_inverse(self) -> np.ndarray:
        """``A^-1`` (formed again, with the same values, after :meth:`release_inverse`)."""
        if self._gram_inverse is None:
            assert self._reform_inverse is not None  # released only when it can be formed again
            return self._reform_inverse()
        return self._gram_inverse

    def release_inverse(self) -> None:
        """Stop holding ``A^-1`` when it can be formed again (``reform_inverse``); otherwise nothing.

        An algorithm keeps its last stopping check; at ``n = 1000`` its ``A^-1`` is 8 MB that
        would stay alive through the next check. Reading :attr:`gram_inverse` afterwards forms
        it anew, equal bit for bit.

        Examples
        --------
        >>> import numpy as np
        >>> from fullbandit.linalg.least_squares import LeastSquaresEstimate
        >>> base = np.array([[2.0, -1.0], [-1.0, 2.0]])
        >>> estimate = LeastSquaresEstimate(np.zeros(2), np.eye(2), 0.5 * base, pulls=4,
        ...                                 reform_inverse=lambda: 0.5 * base)
        >>> before = estimate.gram_inverse
        >>> estimate.release_inverse()
        >>> estimate.gram_inverse is before, np.array_equal(estimate.gram_inverse, before)
        (False, True)
        """
        if self._reform_inverse is not None:
            object.__setattr__(self, "_gram_inverse", None)

    def width(self, x) -> float:
        """``||x||_{A^-1}``: the standard error of ``x . theta_hat`` in units of the noise scale.

        Parameters
        ----------
        x : array_like of shape (n,)
            A direction (e.g. a super-arm's indicator, or a difference of two).

        Returns
        -------
        float
            ``sqrt(x^T A^-1 x)`` (rounding below zero is clipped to zero).

        Examples
        --------
        >>> import numpy as np
        >>> from fullbandit.linalg.least_squares import LeastSquaresEstimate
        >>> estimate = LeastSquaresEstimate(np.zeros(2), 4 * np.eye(2), np.eye(2) / 4, pulls=8)
        >>> estimate.width([1.0, 0.0])
        0.5
        """
        x = np.asarray(x, dtype=float)
        return float(math.sqrt(max(x @ self.gram_inverse @ x, 0.0)))
