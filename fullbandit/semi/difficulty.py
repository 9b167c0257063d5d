"""Hardness of a top-m instance: the gaps and complexities of Shahrampour and Tarokh, equation (4).

With the means ``mu_(1) >= ... >= mu_(n)`` (any order in, sorted here)::

    Delta_i  = mu_i - mu_(m+1)  for the top m arms,   mu_(m) - mu_i  for the others
    H_1      = sum_i Delta_i^-2
    H(p)     = max_{i >= 2} i^p Delta_(i)^-2,   Delta_(1) <= ... <= Delta_(n) the sorted gaps
    H_2      = H(1)

(Bubeck, Wang, Viswanathan 2013 define ``H_1^<m>`` and ``H_2^<m>`` the same way.) The
display of (4) writes ``Delta_i`` inside the max; the sentence after it and the proof of
Proposition 2 use the *sorted* gaps ``Delta_(i)``, as here. Excluding ``i = 1`` changes
nothing for ``p > 0``: the two smallest gaps are equal (``Delta_m = Delta_{m+1} = mu_(m) -
mu_(m+1)``), so ``2^p Delta_(2)^-2 > Delta_(1)^-2``.

A tie at the boundary (``mu_(m) = mu_(m+1)``) makes the top m ambiguous: those gaps are 0
and every hardness is ``inf`` (returned, not raised: no budget suffices). Invalid input
(``m`` outside ``1..n-1``, non-finite means, ``p <= 0``) raises.

Examples
--------
>>> from fullbandit.semi.difficulty import hardness_h1, hardness_h2, top_m_gaps
>>> top_m_gaps([0.9, 0.5, 0.7, 0.1], 2).round(2).tolist()
[0.4, 0.2, 0.2, 0.6]
>>> round(hardness_h1([0.9, 0.5, 0.7, 0.1], 2), 4), round(hardness_h2([0.9, 0.5, 0.7, 0.1], 2), 4)
(59.0278, 50.0)
>>> hardness_h1([0.9, 0.7, 0.7, 0.1], 2)   # arms 1 and 2 tie for the second place
inf
"""

from __future__ import annotations

import math

import numpy as np

from fullbandit.semi.accept_reject import nsar_constant
from fullbandit.util.validation import InvalidParameterError, check_int, check_real, check_vector


def top_m_gaps(means, m: int) -> np.ndarray:
    """``Delta_i^(M)`` of every arm, in the arms' order (equation (4), first line).

    ``mu_i - mu_(m+1)`` for the ``m`` arms with the largest means and ``mu_(m) - mu_i`` for
    the others, ``mu_(j)`` the ``j``-th largest mean. Equivalently
    ``max(mu_i - mu_(m+1), mu_(m) - mu_i)``, which needs no choice among tied arms; a gap is
    0 exactly when the arm ties with the boundary ``mu_(m) = mu_(m+1)``.

    Parameters
    ----------
    means : array_like
        The true means, shape ``(n,)``, ``n >= 2``, finite, any order.
    m : int
        How many top arms, ``1 <= m <= n - 1``.

    Examples
    --------
    >>> from fullbandit.semi.difficulty import top_m_gaps
    >>> top_m_gaps([0.5, 0.7, 0.7, 0.5, 0.6], 2).round(2).tolist()
    [0.2, 0.1, 0.1, 0.2, 0.1]
    """
    means = check_vector("means", means)
    if means.size < 2:
        raise InvalidParameterError(f"means must hold at least 2 arms, got {means.size}")
    m = check_int("m", m, low=1, high=means.size - 1)
    ordered = np.sort(means)[::-1]
    return np.maximum(means - ordered[m], ordered[m - 1] - means)


def _inverse_squares(gaps: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):  # a zero gap (a tie at the boundary) is an infinite term, by design
        return 1.0 / gaps ** 2


def hardness_h1(means, m: int) -> float:
    """``H_1^(M) = sum_i (Delta_i^(M))^-2`` over all ``n`` arms (``inf`` for a tie at the boundary).

    The fig. 2 budget of Shahrampour and Tarokh (section IV-A) is ``ceil(H_1^(M))``; take it
    from :func:`fullbandit.datasets.synthetic.nsar_budget`, which rounds away a floating-point
    excess first (the sum for setup 2 with ``M = 2`` is ``3650.00000000001``, not 3650).

    Examples
    --------
    >>> from fullbandit.semi.difficulty import hardness_h1
    >>> round(hardness_h1([0.7, 0.7, 0.5, 0.5, 0.5], 2), 6)   # 2 / 0.2^2 + 3 / 0.2^2
    125.0
    """
    return float(np.sum(_inverse_squares(top_m_gaps(means, m))))


def hardness_hp(means, m: int, p: float) -> float:
    """``H^(M)(p) = max_{i >= 2} i^p (Delta_(i)^(M))^-2`` over the gaps sorted increasingly (``inf`` for a tie).

    Parameters
    ----------
    means : array_like
    m : int
    p : float
        ``> 0`` (the paper's NSAR uses ``(0, 2]``).

    Examples
    --------
    Sorted gaps 0.2, 0.2, 0.4, 0.6: ``max(4 / 0.04, 9 / 0.16, 16 / 0.36)``.

    >>> from fullbandit.semi.difficulty import hardness_hp
    >>> round(hardness_hp([0.9, 0.5, 0.7, 0.1], 2, 2.0), 6)
    100.0
    """
    p = check_real("p", p, low=0, low_inclusive=False)
    gaps = np.sort(top_m_gaps(means, m))
    ranks = np.arange(1, gaps.size + 1, dtype=float)
    return float(np.max(ranks[1:] ** p * _inverse_squares(gaps[1:])))


def hardness_h2(means, m: int) -> float:
    """``H_2^(M) = max_{i >= 2} i (Delta_(i)^(M))^-2``: :func:`hardness_hp` with ``p = 1`` (SAR's complexity).

    Examples
    --------
    >>> from fullbandit.semi.difficulty import hardness_h2
    >>> round(hardness_h2([0.9, 0.5, 0.7, 0.1], 2), 6)   # 2 / 0.2^2
    50.0
    """
    return hardness_hp(means, m, 1.0)


def nsar_error_bound(means, m: int, budget: int, p: float) -> float:
    """Proposition 2: ``P(misidentified) <= 2 n^2 exp(-(T - n) / (8 C_p H^(M)(p)))`` (may exceed 1).

    Examples
    --------
    >>> from fullbandit.semi.difficulty import nsar_error_bound
    >>> nsar_error_bound([0.9, 0.1], 1, 1000, 1.0) < 1e-6   # gaps 0.8: H(1) = 3.125, C_1 = 1
    True
    """
    n = check_vector("means", means).size
    budget = check_int("budget", budget, low=1)
    hardness = hardness_hp(means, m, p)
    return 2.0 * n ** 2 * math.exp(-(budget - n) / (8.0 * nsar_constant(n, p) * hardness))
