"""Rounding proportions to whole pulls: Pukelsheim's efficient apportionment."""

from __future__ import annotations

import numpy as np

from fullbandit.util.validation import InvalidParameterError, check_int


def efficient_rounding(weights, total: int) -> np.ndarray:
    """Pukelsheim's efficient apportionment of ``total`` pulls to proportions ``weights``.

    With ``p`` the number of positive weights: ``m_j = ceil((total - p/2) w_j)``; while
    ``sum(m) < total`` increase an ``m_j`` minimising ``m_j / w_j``; while it exceeds
    ``total`` decrease one maximising ``(m_j - 1) / w_j`` (Kuroki et al. 2020, Appendix D;
    F. Pukelsheim, *Optimal Design of Experiments*, 1993, section 12.5). Zero weights get
    zero pulls; ties go to the lowest index. The result satisfies the efficient-design
    apportionment condition ``max_j (m_j - 1) / w_j <= min_j m_j / w_j``.

    Parameters
    ----------
    weights : array_like of shape (m,)
        Non-negative proportions, not all zero (normalised here).
    total : int
        Pulls to apportion, at least the number of positive weights.

    Returns
    -------
    numpy.ndarray of int
        Pulls per support member, summing to ``total``.

    Examples
    --------
    ``ceil(5.5 w) = (3, 2, 1)`` for ``w = (1/2, 1/3, 1/6)`` and ``total = 7``, one short:
    the extra pull goes to the first minimiser of ``m_j / w_j = (6, 6, 6)``.

    >>> from fullbandit.design.rounding import efficient_rounding
    >>> efficient_rounding([1 / 2, 1 / 3, 1 / 6], 7).tolist()
    [4, 2, 1]
    """
    weights = np.asarray(weights, dtype=float)
    if weights.ndim != 1 or weights.size == 0 or np.any(~np.isfinite(weights)) or np.any(weights < 0) \
            or weights.sum() <= 0:
        raise InvalidParameterError("weights must be a non-empty vector of non-negative finite numbers, not all 0")
    total = check_int("total", total, low=0)
    weights = weights / weights.sum()
    positive = weights > 0
    support_size = int(positive.sum())
    if total < support_size:
        raise InvalidParameterError(
            f"total={total} must be at least the number of positive weights ({support_size}) to pull each once")
    counts = np.zeros(weights.size, dtype=np.int64)
    counts[positive] = np.ceil((total - support_size / 2.0) * weights[positive]).astype(np.int64)
    indices = np.flatnonzero(positive)
    while counts.sum() < total:
        j = indices[np.argmin(counts[indices] / weights[indices])]
        counts[j] += 1
    while counts.sum() > total:
        j = indices[np.argmax((counts[indices] - 1) / weights[indices])]
        counts[j] -= 1
    return counts
