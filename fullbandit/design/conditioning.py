"""How well a design over a support identifies ``theta``: the condition number of ``A(p)`` and the
largest swap variance ``max_{i != j} ||e_i - e_j||^2_{A(p)^-1}``, with their best values over all
designs on ``k``-subsets and the closed form for the cyclic windows.
"""

from __future__ import annotations

import math

import numpy as np

from fullbandit.linalg.circulant import CirculantInverse, shift_closed_row
from fullbandit.linalg.incidence import Incidence
from fullbandit.linalg.spectrum import SingularMatrixError, cholesky_inverse
from fullbandit.util.validation import check_int, check_k


def cyclic_condition_number(n: int, k: int) -> float:
    """Condition number of the uniform design over the cyclic windows, in closed form.

    The windows' Gram matrix ``X^T X`` is circulant, with eigenvalues
    ``|sum_{j<k} w^{mj}|^2 = sin^2(pi m k / n) / sin^2(pi m / n)`` for ``m = 1, ..., n-1``
    and ``k^2`` for ``m = 0`` (the largest), ``w = exp(2 pi i / n)``. O(n) work.

    Parameters
    ----------
    n : int
        Number of arms, ``n >= 2``.
    k : int
        Window size, ``1 <= k < n``.

    Returns
    -------
    float
        ``k^2 / min_m sin^2(pi m k / n) / sin^2(pi m / n)``; ``inf`` when
        ``gcd(n, k) > 1`` (the windows do not span R^n).

    Examples
    --------
    >>> from fullbandit.design.conditioning import cyclic_condition_number, design_condition_number
    >>> from fullbandit.design.support import cyclic_windows
    >>> round(cyclic_condition_number(37, 10))
    8988
    >>> round(design_condition_number(37, cyclic_windows(37, 10)))
    8988
    >>> cyclic_condition_number(6, 2)
    inf
    """
    n = check_int("n", n, low=2)
    k = check_k(k, n)
    if math.gcd(n, k) != 1:
        return math.inf
    m = np.arange(1, n)
    eigenvalues = np.sin(np.pi * m * k / n) ** 2 / np.sin(np.pi * m / n) ** 2
    return float(k * k / eigenvalues.min())


def min_condition_number(n: int, k: int) -> float:
    """The smallest condition number of ``A(p)`` over all designs on ``k``-subsets: ``k (n-1) / (n-k)``.

    For proportions ``p`` over ``k``-subsets, ``trace A(p) = k`` and
    ``1^T A(p) 1 / n = k^2 / n``, so ``lambda_max >= k^2 / n`` and
    ``lambda_min <= (trace A - lambda_max) / (n - 1) <= k (n - k) / (n (n - 1))``; the
    ratio is at least ``k (n-1) / (n-k)``. The uniform design over all ``C(n, k)`` subsets,
    ``A = a I + b J``, attains it.

    Parameters
    ----------
    n : int
        Number of arms, ``n >= 2``.
    k : int
        Super-arm size, ``1 <= k < n``.

    Returns
    -------
    float

    Examples
    --------
    >>> import itertools
    >>> from fullbandit.design.conditioning import design_condition_number, min_condition_number
    >>> round(min_condition_number(37, 10), 4)
    13.3333
    >>> support = list(itertools.combinations(range(7), 3))
    >>> round(design_condition_number(7, support), 9), min_condition_number(7, 3)
    (4.5, 4.5)
    """
    n = check_int("n", n, low=2)
    k = check_k(k, n)
    return k * (n - 1) / (n - k)


def optimal_swap_variance(n: int, k: int) -> float:
    """The least ``max_{i != j} ||e_i - e_j||^2_{A(p)^-1}`` over designs on ``k``-subsets: ``2 n (n-1) / (k (n-k))``.

    ``A(p) = sum_S p_S x_S x_S^T`` over ``k``-subsets. ``f(A) = max_{i != j} (e_i - e_j)^T A^-1 (e_i - e_j)``
    is convex in ``A`` and invariant under permuting the arms, so averaging any design over
    all permutations (which gives the uniform design over all ``C(n, k)`` subsets) does
    not increase it: the uniform design is optimal (XY-optimal for the swap directions,
    Soare et al. 2014). There ``A = a I + b 1 1^T`` with ``a = k (n-k) / (n (n-1))``, and for
    ``y`` orthogonal to ``1``, ``y^T A^-1 y = ||y||^2 / a``.

    Examples
    --------
    >>> import itertools
    >>> from fullbandit.design.conditioning import optimal_swap_variance, swap_variance
    >>> whole = list(itertools.combinations(range(7), 3))
    >>> round(swap_variance(7, whole), 9), optimal_swap_variance(7, 3)
    (7.0, 7.0)
    """
    n = check_int("n", n, low=2)
    k = check_k(k, n)
    return 2.0 * n * (n - 1) / (k * (n - k))


def swap_variance(n: int, support, proportions=None) -> float:
    """``max_{i != j} ||e_i - e_j||^2_{A(p)^-1}`` of the design ``p`` over ``support`` (uniform by default).

    The variance, in units of ``R^2`` per pull, of the least-squares estimate of the worst
    difference of two means; ``inf`` for a support that does not span R^n.

    Examples
    --------
    >>> from fullbandit.design.conditioning import swap_variance
    >>> round(swap_variance(3, [(0, 1), (1, 2), (0, 2)]), 9)   # A = (I + 1 1^T) / 3
    6.0
    """
    row = shift_closed_row(n, support) if proportions is None else None
    if row is not None:  # circulant (cyclic blocks): O(n log n), no factorisation
        return circulant_swap_variance(row, len(support))
    try:
        inverse = cholesky_inverse(_design_gram(n, support, proportions))
    except SingularMatrixError:
        return math.inf
    d = np.diag(inverse)
    return float(np.max(d[:, None] + d[None, :] - 2.0 * inverse))


def circulant_swap_variance(row: np.ndarray, members: int) -> float:
    """:func:`swap_variance` of the uniform design over ``members`` super-arms whose Gram matrix is the circulant
    of ``row`` (:mod:`fullbandit.linalg.circulant`); ``inf`` if it is singular.

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.design.conditioning import circulant_swap_variance
    >>> round(circulant_swap_variance(np.array([2.0, 1.0, 1.0]), 3), 9)   # the pairs of 3 arms: A = (I + 1 1^T) / 3
    6.0
    """
    try:
        return members * float(CirculantInverse(row).swap_variances().max())
    except SingularMatrixError:
        return math.inf


def design_condition_number(n: int, support, proportions=None) -> float:
    """Condition number of ``A(p) = sum_j p_j x_j x_j^T`` (``inf`` if singular).

    Parameters
    ----------
    n : int
        Number of arms.
    support : sequence of super-arms
        The members ``x_j`` (as arm indices).
    proportions : array_like, optional
        Weights ``p_j`` (default: uniform); their scale does not matter.

    Returns
    -------
    float
        ``lambda_max / lambda_min`` of ``A(p)``; ``inf`` when ``lambda_min`` is below
        ``1e-12 lambda_max``.

    Examples
    --------
    The three pairs of three arms: ``A = (I + J) / 3`` has eigenvalues ``1/3`` and ``4/3``.

    >>> from fullbandit.design.conditioning import design_condition_number
    >>> round(design_condition_number(3, [(0, 1), (1, 2), (0, 2)]), 9)
    4.0
    >>> design_condition_number(4, [(0, 1), (1, 2), (2, 3), (0, 3)])  # x = (1, -1, 1, -1) unseen
    inf
    """
    eigenvalues = np.linalg.eigvalsh(_design_gram(n, support, proportions))
    return float("inf") if eigenvalues[0] <= 1e-12 * eigenvalues[-1] else float(eigenvalues[-1] / eigenvalues[0])


def _design_gram(n: int, support, proportions=None) -> np.ndarray:
    """``A(p) = sum_j p_j x_j x_j^T`` (``p`` normalised; uniform by default) from the support's incidence."""
    rows = Incidence(n, support)
    if proportions is None:
        return rows.gram() / len(rows)
    weights = np.asarray(proportions, dtype=float)
    return rows.gram(weights / weights.sum())
