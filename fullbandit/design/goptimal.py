"""The G-optimal design: proportions over a support minimising the largest variance
``max_{x in S} ||x||^2_{A(p)^-1}`` (equivalently D-optimal, Kiefer-Wolfowitz), with cvxpy and
multiplicative updates (Kuroki et al. 2020, Appendix D). The XY-optimal design for the swap
directions is :mod:`fullbandit.design.xy`.
"""

from __future__ import annotations

import numpy as np

from fullbandit.util.validation import InvalidParameterError


def g_optimal_allocation(n: int, support, solver: str | None = None, tolerance: float = 1e-6) -> np.ndarray:
    """G-optimal proportions over a candidate support (Kuroki et al. 2020, Appendix D).

    Minimises ``max_{x in S} ||x||^2_{A(p)^-1}`` with ``A(p) = sum_j p_j x_j x_j^T``. By the
    Kiefer-Wolfowitz equivalence theorem this is the D-optimal design
    ``max_p log det A(p)``, a convex program solved with cvxpy; at the optimum
    ``max_j x_j^T A(p)^-1 x_j = n``, attained wherever ``p_j > 0``. The solver's answer is
    polished with multiplicative (Titterington) updates ``p_j <- p_j x_j^T A^-1 x_j / n``,
    which keep ``p`` on the simplex and never decrease ``log det A``, until the
    Kiefer-Wolfowitz condition holds within ``tolerance`` (relative).

    Parameters
    ----------
    n : int
        Dimension.
    support : sequence of super-arms
        Candidates; they must span R^n.
    solver : str, optional
        A cvxpy solver name (default: cvxpy's choice among installed conic solvers).
    tolerance : float
        Relative tolerance on ``max_j x_j^T A^-1 x_j <= n (1 + tolerance)``.

    Returns
    -------
    numpy.ndarray
        Proportions ``p`` (non-negative, summing to 1), one per support member.

    Examples
    --------
    Over all pairs of four arms the optimum is uniform by symmetry, and every variance
    equals ``n = 4``:

    >>> import itertools
    >>> from fullbandit.design.goptimal import g_optimal_allocation
    >>> weights = g_optimal_allocation(4, list(itertools.combinations(range(4), 2)))
    >>> weights.round(3).tolist()
    [0.167, 0.167, 0.167, 0.167, 0.167, 0.167]
    """
    import cvxpy as cp
    X = _indicator_matrix(n, support)
    if np.linalg.matrix_rank(X) < n:
        raise InvalidParameterError(f"support spans rank {np.linalg.matrix_rank(X)} < n={n}: no design exists")
    m = X.shape[0]
    p = cp.Variable(m, nonneg=True)
    gram = X.T @ cp.diag(p) @ X
    problem = cp.Problem(cp.Maximize(cp.log_det((gram + gram.T) / 2)), [cp.sum(p) == 1])
    try:
        problem.solve(solver=solver)
        weights = np.clip(np.asarray(p.value, dtype=float).ravel(), 0.0, None) if p.value is not None else None
    except cp.error.SolverError:
        weights = None
    if weights is None or not np.isfinite(weights).all() or weights.sum() <= 0:
        weights = np.full(m, 1.0 / m)  # the multiplicative updates converge from any interior start
    weights = np.maximum(weights / weights.sum(), 1e-12 / m)  # interior: the updates need p_j > 0 to move
    weights /= weights.sum()
    for _ in range(100_000):
        variances = kiefer_wolfowitz_variances(X, weights)
        if variances.max() <= n * (1.0 + tolerance):
            break
        weights = weights * variances / n
        weights /= weights.sum()
    return weights


def kiefer_wolfowitz_variances(X, weights) -> np.ndarray:
    """``x_j^T A(p)^-1 x_j`` for every support row ``x_j`` of ``X``, with ``A(p) = X^T diag(p) X``.

    Their ``p``-weighted sum is ``trace(A^-1 A) = n`` for any ``p``, so the largest is at
    least ``n``; a D-optimal ``p`` attains ``n`` on its support and nowhere exceeds it.

    Parameters
    ----------
    X : numpy.ndarray of shape (m, n)
        Support members as rows (0/1 indicators).
    weights : array_like of shape (m,)
        Proportions ``p``; ``A(p)`` must be invertible.

    Returns
    -------
    numpy.ndarray of shape (m,)

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.design.goptimal import kiefer_wolfowitz_variances
    >>> X = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0], [1.0, 0.0, 1.0]])
    >>> kiefer_wolfowitz_variances(X, np.full(3, 1 / 3)).round(9).tolist()
    [3.0, 3.0, 3.0]
    """
    gram = X.T @ (np.asarray(weights)[:, None] * X)
    return np.einsum("ij,ij->i", X @ np.linalg.inv(gram), X)


def _indicator_matrix(n: int, support) -> np.ndarray:
    X = np.zeros((len(support), n))
    for row, arm in enumerate(support):
        X[row, list(arm)] = 1.0
    return X
