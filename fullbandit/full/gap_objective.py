"""The gap objective (5) of Kuroki et al. (2020) and what bounds its maximum.

``f(M) = theta_hat(M) - theta_hat(M_hat) + C ||x_M - x_M_hat||_Q`` with ``Q = A_t^-1``:
on the confidence event (pairwise directions) ``theta(M) - theta(M_hat) <= f(M)`` for every
``M``, so ``max_M f(M) <= epsilon`` certifies that ``M_hat`` is epsilon-optimal. The
maximum is over exponentially many super-arms; this module evaluates it exactly by
enumeration (small classes), bounds it from above rigorously (any size), and builds the
first-order surrogate QP that SA-FOA maximises with Algorithm 1.
"""

from __future__ import annotations

import math

import numpy as np

from fullbandit._validation import InvalidParameterError
from fullbandit.enumeration import ENUMERATION_LIMIT, indicator_rows, subset_chunks
from fullbandit.problem import DecisionClass, TopK
from fullbandit.qp import approximate_qp, row_bound


def gap_values(theta, Q, best, radius, indicators) -> np.ndarray:
    """``f(M)`` for every row of ``indicators`` (0/1 matrix, one super-arm per row).

    Parameters
    ----------
    theta : numpy.ndarray of shape (n,)
        The estimate ``theta_hat``.
    Q : numpy.ndarray of shape (n, n)
        ``A_t^-1``.
    best : sequence of int
        The empirical best super-arm ``M_hat``.
    radius : float
        The confidence radius ``C``.
    indicators : numpy.ndarray of shape (m, n)
        The super-arms ``x_M`` as rows.

    Returns
    -------
    numpy.ndarray of shape (m,)

    Examples
    --------
    ``f(M_hat) = 0``; for ``M = {0, 2}``: ``1.4 - 1.5 + ||(0, -1, 1)||_Q = -0.1 + sqrt(1/2)``.

    >>> import numpy as np
    >>> from fullbandit.full.gap_objective import gap_values
    >>> theta, Q = np.array([0.9, 0.6, 0.5]), np.eye(3) / 4
    >>> rows = np.array([[1.0, 1.0, 0.0], [1.0, 0.0, 1.0]])
    >>> gap_values(theta, Q, (0, 1), 1.0, rows).round(6).tolist()
    [0.0, 0.607107]
    """
    x_best = np.zeros(len(theta))
    x_best[list(best)] = 1.0
    differences = indicators - x_best
    quadratic = np.einsum("ij,jk,ik->i", differences, Q, differences, optimize=True)
    return indicators @ theta - x_best @ theta + radius * np.sqrt(np.clip(quadratic, 0.0, None))


def gap_value(theta, Q, best, radius, super_arm) -> float:
    """``f(M)`` for one super-arm (see :func:`gap_values`).

    Parameters
    ----------
    theta, Q, best, radius
        As for :func:`gap_values`.
    super_arm : sequence of int
        ``M``.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.full.gap_objective import gap_value
    >>> theta, Q = np.array([0.9, 0.6, 0.5]), np.eye(3) / 4
    >>> round(gap_value(theta, Q, (0, 1), 1.0, (0, 2)), 6)
    0.607107
    """
    x = np.zeros(len(theta))
    x[list(super_arm)] = 1.0
    return float(gap_values(theta, Q, best, radius, x[None, :])[0])


def enumerate_class(problem: DecisionClass, limit: int = ENUMERATION_LIMIT):
    """Chunks of indicator rows covering every super-arm of ``problem`` (refuses above ``limit``).

    Parameters
    ----------
    problem : DecisionClass
    limit : int
        Largest class size to enumerate.

    Yields
    ------
    chunk : numpy.ndarray of shape (m, k)
        Super-arms (sorted indices), in lexicographic order.
    indicators : numpy.ndarray of shape (m, n)
        Their 0/1 indicators.

    Raises
    ------
    InvalidParameterError
        If ``problem.size > limit``.

    Examples
    --------
    >>> from fullbandit.full.gap_objective import enumerate_class
    >>> from fullbandit.problem import PartitionMatroid
    >>> problem = PartitionMatroid(groups=(0, 0, 1, 1), capacities=(1, 1), k=2)
    >>> [chunk.tolist() for chunk, _ in enumerate_class(problem)]
    [[[0, 2], [0, 3], [1, 2], [1, 3]]]
    """
    if problem.size > limit:
        raise InvalidParameterError(
            f"exact enumeration needs {problem.size} super-arms > limit={limit} "
            f"(n={problem.n}, k={problem.k}); use a polynomial algorithm (SAQM, SA-FOA, ICB)")
    n, k = problem.n, problem.k
    for chunk in subset_chunks(n, k, 16384):
        if not isinstance(problem, TopK):
            keep = [problem._is_member(tuple(int(i) for i in row)) is None for row in chunk]
            chunk = chunk[np.array(keep, dtype=bool)]
            if chunk.shape[0] == 0:
                continue
        yield chunk, indicator_rows(chunk, n)


def exact_maximum(problem, theta, Q, best, radius, limit: int = ENUMERATION_LIMIT) -> tuple[tuple, float]:
    """``max_M f(M)`` and a maximiser, by enumeration of the class.

    Parameters
    ----------
    problem : DecisionClass
    theta, Q, best, radius
        As for :func:`gap_values`.
    limit : int
        Largest class size to enumerate (:func:`enumerate_class`).

    Returns
    -------
    super_arm : tuple of int
        A maximiser (the first in lexicographic order among equal values).
    value : float
        ``max_M f(M)``; at least ``f(M_hat) = 0``.

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.full.gap_objective import exact_maximum
    >>> theta, Q = np.array([0.9, 0.6, 0.5]), np.eye(3) / 4
    >>> from fullbandit.problem import TopK
    >>> arms, value = exact_maximum(TopK(3, 2), theta, Q, (0, 1), 1.0)
    >>> arms, round(value, 6)
    ((0, 2), 0.607107)
    """
    top_value, top_arm = -math.inf, None
    for chunk, indicators in enumerate_class(problem, limit):
        values = gap_values(theta, Q, best, radius, indicators)
        index = int(np.argmax(values))
        if values[index] > top_value:
            top_value, top_arm = float(values[index]), tuple(int(i) for i in chunk[index])
    if top_arm is None:  # every value NaN (no comparison holds)
        raise InvalidParameterError("the gap objective is NaN for every super-arm: theta, Q and radius must be finite")
    return top_arm, top_value


def triangle_bound(problem, theta, Q, best, radius) -> float:
    """``max_M f(M) <= max_M theta_hat(M) - theta_hat(M_hat) + C sum_{i in M xor M_hat} sqrt(Q_ii)``.

    From ``||y||_Q <= sum_i |y_i| ||e_i||_Q`` (triangle inequality) with ``y = x_M - x_M_hat``
    in ``{-1, 0, 1}^n``; the right side is linear in ``x_M`` (the ICB objective), so the
    class's linear oracle maximises it exactly.

    Parameters
    ----------
    problem : DecisionClass
    theta, Q, best, radius
        As for :func:`gap_values`.

    Returns
    -------
    float
        An upper bound of ``max_M f(M)``.

    Examples
    --------
    With ``C sqrt(Q_ii) = 0.5`` for every arm, swapping arm 1 for arm 2 gains
    ``(0.5 + 0.5) - (0.6 - 0.5) = 0.9``, above the exact maximum 0.607:

    >>> import numpy as np
    >>> from fullbandit.full.gap_objective import triangle_bound
    >>> theta, Q = np.array([0.9, 0.6, 0.5]), np.eye(3) / 4
    >>> from fullbandit.problem import TopK
    >>> round(triangle_bound(TopK(3, 2), theta, Q, (0, 1), 1.0), 12)
    0.9
    """
    beta = radius * np.sqrt(np.clip(np.diag(Q), 0.0, None))
    inside = np.zeros(len(theta), dtype=bool)
    inside[list(best)] = True
    weights = np.where(inside, theta - beta, theta + beta)
    challenger = problem.maximize(weights)
    return float(weights[list(challenger)].sum() - weights[list(best)].sum())


def surrogate(theta, Q, best, radius, reference_value: float):
    """The first-order surrogate of (5) as ``x^T P x + constant`` for binary ``x`` with ``|x| = k``.

    ``sqrt(f) <= (f + f0) / (2 sqrt(f0))`` for any ``f0 > 0`` (tangent of the concave square
    root), with ``f = ||x - x_hat||^2_Q = x^T Q x - 2 (Q x_hat) . x + x_hat^T Q x_hat``, and a
    linear term ``c . x = x^T diag(c) x`` for binary ``x``. Returns ``(P, constant)`` with
    ``P = (C / (2 sqrt f0)) Q + diag(theta_hat - (C / sqrt f0) Q x_hat)``; the surrogate bounds
    ``f(M)`` from above for every ``M`` and equals it where ``||x_M - x_hat||^2_Q = f0``.

    Parameters
    ----------
    theta, Q, best, radius
        As for :func:`gap_values`.
    reference_value : float
        The tangent point ``f0 > 0``.

    Returns
    -------
    P : numpy.ndarray of shape (n, n)
    constant : float

    Examples
    --------
    ``||x_M - x_hat||^2_Q = 1/2`` for ``M = {0, 2}``, so at ``f0 = 1/2`` the surrogate is exact:

    >>> import numpy as np
    >>> from fullbandit.full.gap_objective import surrogate
    >>> theta, Q = np.array([0.9, 0.6, 0.5]), np.eye(3) / 4
    >>> P, constant = surrogate(theta, Q, (0, 1), 1.0, 0.5)
    >>> x = np.array([1.0, 0.0, 1.0])
    >>> round(float(x @ P @ x + constant), 6)
    0.607107
    """
    if not reference_value > 0:
        raise InvalidParameterError(f"reference_value={reference_value} must be positive")
    x_best = np.zeros(len(theta))
    x_best[list(best)] = 1.0
    root = math.sqrt(reference_value)
    P = (radius / (2.0 * root)) * Q
    P[np.diag_indices_from(P)] += theta - (radius / root) * (Q @ x_best)
    constant = -float(theta @ x_best) + radius * (float(x_best @ Q @ x_best) + reference_value) / (2.0 * root)
    return P, constant


def surrogate_step(theta, Q, best, radius, reference_value: float, oracle: str) -> tuple[tuple, float, str]:
    """One first-order step at ``f0 = reference_value``: Algorithm 1's maximiser of the surrogate,
    and a certified upper bound of ``max_M f(M)`` from the surrogate.

    The bound is the smaller of the spectral bound ``k lambda_max(P)`` and the row-sum bound
    of :func:`fullbandit.qp.row_bound` (both hold for any symmetric ``P``), plus the
    surrogate's constant. For Algorithm 1, ``P`` is shifted by ``s I`` to be positive
    definite, which adds the constant ``s k`` and leaves the maximiser unchanged.

    Parameters
    ----------
    theta, Q, best, radius
        As for :func:`gap_values`.
    reference_value : float
        The tangent point ``f0 > 0`` (:func:`surrogate`).
    oracle : str
        A name from :data:`fullbandit.dks.ORACLES`.

    Returns
    -------
    candidate : tuple of int
        Algorithm 1's maximiser of the surrogate.
    bound : float
        A certified upper bound of ``max_M f(M)``.
    bound_name : str
        ``"surrogate-spectral"`` or ``"surrogate-row"``, whichever was smaller.

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.full.gap_objective import surrogate_step
    >>> theta, Q = np.array([0.9, 0.6, 0.5]), np.eye(3) / 4
    >>> candidate, bound, name = surrogate_step(theta, Q, (0, 1), 1.0, 0.5, "peeling")
    >>> candidate, round(bound, 6), name
    ((0, 2), 0.607107, 'surrogate-row')
    """
    k = len(best)
    P, constant = surrogate(theta, Q, best, radius, reference_value)
    eigenvalues = np.linalg.eigvalsh(P)
    bounds = {"surrogate-spectral": k * float(eigenvalues[-1]), "surrogate-row": row_bound(P, k)}
    name = min(bounds, key=lambda key: bounds[key])
    shift = max(0.0, -eigenvalues[0]) + 1e-9 * max(1.0, abs(eigenvalues[-1])) + 1e-12
    candidate = approximate_qp(P + shift * np.eye(P.shape[0]), k, oracle, eigenvalues=eigenvalues + shift).subset
    return candidate, bounds[name] + constant, name
