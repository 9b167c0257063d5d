"""Transductive ("XY") optimal design over a static support: the swap directions.

The gap between two super-arms that differ by one swap (arm ``i`` out, arm ``j`` in) is
``y . theta`` with ``y = e_j - e_i``, and every difference of two super-arms is a sum of
such swaps. With proportions ``p`` over a support ``x_1, ..., x_m`` spanning R^n and
``A(p) = sum_j p_j x_j x_j^T``, the standard error of ``y . theta_hat`` after ``t`` pulls
is ``||y||_{A(p)^-1} / sqrt(t)`` in units of the noise scale, so the design that makes every swap gap as well
estimated as possible minimises

    ``f(p) = max_{i != j} ||e_i - e_j||^2_{A(p)^-1}``

over the simplex: the XY-allocation of Soare, Lazaric and Munos (2014) with the swap
directions as its set ``Y`` (the transductive design of Fiez et al. 2019 with the gap
directions as targets). ``f`` is convex (a maximum of the convex functions
``p -> y^T A(p)^-1 y``), so its minimum is certified by a lower bound (see
:func:`xy_lower_bound`), which :func:`xy_optimal_design` returns with its answer.

References
----------
M. Soare, A. Lazaric, R. Munos. Best-arm identification in linear bandits. NeurIPS 2014
(the XY-allocation).
T. Fiez, L. Jain, K. Jamieson, L. Ratliff. Sequential experimental design for
transductive linear bandits. NeurIPS 2019.
F. Pukelsheim. Optimal Design of Experiments. Wiley, 1993 (chapter 7: linear criteria and
their duality).
S. Boyd, L. Vandenberghe. Convex Optimization. Cambridge University Press, 2004,
section 11.3 (the barrier method).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sparse

from fullbandit.util.validation import InvalidParameterError, check_int, check_real

XY_TOLERANCE = 1e-3  # default relative duality gap certified by xy_optimal_design


@dataclass(frozen=True)
class XYDesign:
    """Proportions over a support with their XY value and a certified lower bound on the optimum.

    Parameters
    ----------
    weights : numpy.ndarray of shape (m,)
        Proportions ``p`` (non-negative, summing to 1), one per support member.
    value : float
        ``f(p) = max_{i != j} ||e_i - e_j||^2_{A(p)^-1}``.
    lower_bound : float
        A lower bound on ``min_p f(p)`` over the support (:func:`xy_lower_bound`).
    direction_weights : numpy.ndarray of shape (n, n)
        The distribution ``lambda`` over the swap directions behind ``lower_bound``:
        entry ``(i, j)``, ``i < j``, weighs ``e_i - e_j``; zero on and below the diagonal.
    newton_steps : int
        Newton steps of the barrier method.

    Examples
    --------
    >>> import itertools
    >>> from fullbandit.design.xy import xy_optimal_design
    >>> design = xy_optimal_design(4, list(itertools.combinations(range(4), 2)))
    >>> design.gap <= 1e-3, round(design.value, 6)  # uniform, by symmetry: A = (2 I + J) / 6
    (True, 6.0)
    """

    weights: np.ndarray
    value: float
    lower_bound: float
    direction_weights: np.ndarray
    newton_steps: int

    @property
    def gap(self) -> float:
        """Certified relative gap ``value / lower_bound - 1`` (an upper bound on the suboptimality)."""
        return self.value / self.lower_bound - 1.0


def swap_variances(n: int, support, weights) -> np.ndarray:
    """``V_ij = ||e_i - e_j||^2_{A(p)^-1}`` for every pair of arms.

    Parameters
    ----------
    n : int
        Number of arms.
    support : sequence of super-arms
        The members ``x_j`` (as arm indices).
    weights : array_like of shape (m,)
        Proportions ``p`` (their scale does not matter up to the factor it brings:
        ``A(c p) = c A(p)``; pass a distribution). ``A(p)`` must be invertible.

    Returns
    -------
    numpy.ndarray of shape (n, n)
        Symmetric, zero on the diagonal.

    Examples
    --------
    The three pairs of three arms with equal weights: ``A = (I + J) / 3``, whose inverse
    is ``3 I - (3/4) J``, so every swap variance is ``2 * 3 = 6``:

    >>> from fullbandit.design.xy import swap_variances
    >>> swap_variances(3, [(0, 1), (1, 2), (0, 2)], [1 / 3, 1 / 3, 1 / 3]).round(9).tolist()
    [[0.0, 6.0, 6.0], [6.0, 0.0, 6.0], [6.0, 6.0, 0.0]]
    """
    swaps = _Swaps(n, support)
    inverse = swaps.inverse(np.asarray(weights, dtype=float))
    if inverse is None:
        raise InvalidParameterError("A(p) is singular: the weighted members do not span R^n")
    d = np.diag(inverse)
    return np.maximum(d[:, None] + d[None, :] - 2.0 * inverse, 0.0)


def xy_objective(n: int, support, weights) -> float:
    """``f(p) = max_{i != j} ||e_i - e_j||^2_{A(p)^-1}`` (``inf`` when ``A(p)`` is singular).

    Parameters
    ----------
    n : int
        Number of arms, ``n >= 2``.
    support : sequence of super-arms
        The members ``x_j``.
    weights : array_like of shape (m,)
        Proportions ``p`` (a distribution: ``f(c p) = f(p) / c``).

    Returns
    -------
    float

    Examples
    --------
    >>> from fullbandit.design.xy import xy_objective
    >>> round(xy_objective(3, [(0, 1), (1, 2), (0, 2)], [1 / 3, 1 / 3, 1 / 3]), 9)
    6.0
    >>> xy_objective(3, [(0, 1), (1, 2), (0, 2)], [1.0, 0.0, 0.0])
    inf
    """
    swaps = _Swaps(check_int("n", n, low=2), support)
    inverse = swaps.inverse(np.asarray(weights, dtype=float))
    if inverse is None:
        return math.inf
    return float(swaps.variances(inverse).max())


def xy_lower_bound(n: int, support, weights, direction_weights) -> float:
    """A lower bound on ``min_q f(q)`` from any proportions ``p`` and any distribution ``lambda`` over the swaps.

    With ``A = A(p)`` invertible, ``M = sum_y lambda_y y y^T`` and ``d_x = x^T A^-1 M A^-1 x``,

        ``min_q f(q) >= (sum_y lambda_y ||y||^2_{A^-1})^2 / max_x d_x``.

    Proof: for any ``q`` with ``A(q) = B`` invertible, ``f(q) >= trace(M B^-1)`` (a mean is
    at most the maximum), and by Cauchy-Schwarz
    ``trace(M A^-1)^2 <= trace(A^-1 M A^-1 B) trace(M B^-1)``; finally
    ``trace(A^-1 M A^-1 B) = sum_x q_x d_x <= max_x d_x``. (A singular ``B`` leaves a swap
    direction unidentified, ``f(q) = inf``.) This is the duality of linear criteria
    (Pukelsheim 1993, chapter 7): the bound equals ``f(p)`` exactly when ``p`` is optimal and
    ``lambda`` is an optimal distribution on the active swaps, which is the
    equivalence theorem ``max_x d_x <= sum_y lambda_y ||y||^2_{A^-1} = f(p)``.

    Parameters
    ----------
    n : int
        Number of arms.
    support : sequence of super-arms
        The candidate members ``x``; the maximum over ``x`` runs over all of them.
    weights : array_like of shape (m,)
        Proportions ``p`` with ``A(p)`` invertible (need not be optimal).
    direction_weights : array_like of shape (n, n)
        Non-negative weights of the swaps ``e_i - e_j`` (entry ``(i, j)``; the matrix is
        symmetrised and its diagonal ignored), normalised here to a distribution.

    Returns
    -------
    float

    Examples
    --------
    At the uniform design over the three pairs of three arms, ``lambda`` uniform over the
    three swaps certifies that ``f = 6`` is optimal:

    >>> import numpy as np
    >>> from fullbandit.design.xy import xy_lower_bound
    >>> support = [(0, 1), (1, 2), (0, 2)]
    >>> round(xy_lower_bound(3, support, np.full(3, 1 / 3), np.ones((3, 3))), 9)
    6.0
    """
    swaps = _Swaps(check_int("n", n, low=2), support)
    inverse = swaps.inverse(np.asarray(weights, dtype=float))
    if inverse is None:
        raise InvalidParameterError("A(p) is singular: the weighted members do not span R^n")
    lam = np.asarray(direction_weights, dtype=float)
    if lam.shape != (n, n) or not np.all(np.isfinite(lam)) or np.any(lam < 0):
        raise InvalidParameterError(f"direction_weights must be a non-negative finite ({n}, {n}) matrix")
    lam = np.triu(lam + lam.T, 1)[swaps.rows, swaps.cols]
    if lam.sum() <= 0:
        raise InvalidParameterError("direction_weights must weigh at least one swap")
    lam = lam / lam.sum()
    return swaps.lower_bound(inverse, lam)[0]


def xy_optimal_design(n: int, support, tolerance: float = XY_TOLERANCE, max_rounds: int = 3) -> XYDesign:
    """Proportions minimising ``max_{i != j} ||e_i - e_j||^2_{A(p)^-1}`` over a support, with a certificate.

    The problem is ``min t`` subject to ``||y||^2_{A(p)^-1} <= t`` for every swap ``y``
    and ``p`` in the simplex, a convex program. By the Schur complement each constraint is
    the linear matrix inequality ``[[A(p), y], [y^T, t]] >= 0``, whose log-det barrier
    ``-log(t - ||y||^2_{A(p)^-1}) - log det A(p)`` is self-concordant. The program is solved
    by the barrier method (Boyd and Vandenberghe 2004, section 11.3): Newton steps on

        ``t / mu - sum_y [log(t - ||y||^2_{A(p)^-1}) + log det A(p)] - sum_x log p_x``

    with ``sum_x p_x = 1`` (gradient and Hessian in closed form from ``W = X A^-1``),
    started from the uniform design with ``mu`` making it central in ``t``, and ``mu``
    divided by 10 once centred until the barrier's bound on the gap is below
    ``tolerance / 10``. Only the swaps close to active (``||y||^2 >= 0.98 t``) carry a
    barrier term; the line search keeps every other swap out of that zone, and a swap that
    would enter it joins the barrier. The restriction changes no answer: a swap outside
    the barrier is strictly feasible and has multiplier 0.

    At the end the multipliers ``lambda_y = mu / (t - ||y||^2)`` form a distribution over
    the swaps, and :func:`xy_lower_bound` with this ``lambda`` certifies the answer: the
    result reports ``f(p)`` and the bound, and a run that does not reach
    ``f(p) <= (1 + tolerance) * bound`` (a stage at its step limit) is repeated with a
    hundred times tighter centring, up to ``max_rounds`` runs.

    Cost: a Newton step is ``O(m^2 r + m^2 n + m^3)`` for ``m`` members and ``r``
    near-active swaps, and a run takes 70 to 120 steps. Measured on one core (BLAS with
    one thread), with random supports and a certified gap of about ``1e-5``: 0.05 s at
    ``n = 37, k = 10`` with ``4 n`` members; 1.0 s at ``n = 111, k = 10`` and 1.4 to 1.7 s
    at ``n = 120, k = 2`` or ``5`` with ``4 n``; 1 s at ``n = 60, k = 3`` and 8 s at
    ``n = 120, k = 3`` with ``8 n``; 27 s at ``n = 111`` with ``16 n``. The optimal design
    keeps most of the support (about 90 % of the members have a weight above ``1e-4`` of
    the largest), so the members are not restricted.

    Parameters
    ----------
    n : int
        Number of arms, ``n >= 2``.
    support : sequence of super-arms
        Candidates; they must span R^n.
    tolerance : float
        Relative duality gap to certify, ``0 < tolerance < 1``.
    max_rounds : int
        Barrier runs allowed; the best design found is returned with its certified gap
        (which exceeds ``tolerance`` only if every run stopped short).

    Returns
    -------
    XYDesign
        The proportions, their value, the certified lower bound and its ``lambda``.

    Raises
    ------
    InvalidParameterError
        If the support does not span R^n.

    Examples
    --------
    Cyclic windows of five arms: the problem is invariant under the cyclic shift and convex, so
    the uniform design is optimal.

    >>> from fullbandit.design.support import cyclic_windows
    >>> from fullbandit.design.xy import xy_objective, xy_optimal_design
    >>> support = cyclic_windows(5, 2)
    >>> design = xy_optimal_design(5, support)
    >>> design.weights.round(3).tolist()
    [0.2, 0.2, 0.2, 0.2, 0.2]
    >>> round(design.value, 6), round(xy_objective(5, support, [0.2] * 5), 6)
    (20.0, 20.0)
    """
    n = check_int("n", n, low=2)
    tolerance = check_real("tolerance", tolerance, low=0.0, high=1.0, low_inclusive=False, high_inclusive=False)
    max_rounds = check_int("max_rounds", max_rounds, low=1)
    swaps = _Swaps(n, support)
    if np.linalg.matrix_rank(swaps.dense) < n:
        raise InvalidParameterError(
            f"support spans rank {np.linalg.matrix_rank(swaps.dense)} < n={n}: no design exists")
    return _solve(swaps, tolerance, max_rounds)


def xy_optimal_allocation(n: int, support, tolerance: float = XY_TOLERANCE) -> np.ndarray:
    """XY-optimal proportions for the swap directions (:func:`xy_optimal_design`'s weights).

    Parameters
    ----------
    n : int
        Number of arms.
    support : sequence of super-arms
        Candidates spanning R^n.
    tolerance : float
        Relative duality gap certified.

    Returns
    -------
    numpy.ndarray
        Proportions (non-negative, summing to 1), one per support member.

    Examples
    --------
    >>> from fullbandit.design.support import random_support
    >>> from fullbandit.design.xy import xy_objective, xy_optimal_allocation
    >>> support = random_support(8, 3, seed=0)
    >>> weights = xy_optimal_allocation(8, support)
    >>> bool(xy_objective(8, support, weights) < xy_objective(8, support, [1 / len(support)] * len(support)))
    True
    """
    return xy_optimal_design(n, support, tolerance).weights


# --- the solver --------------------------------------------------------------------------

_ACTIVE = 0.02  # swaps within this fraction of t carry a barrier term
_STAGE_STEPS = 200  # Newton steps allowed per value of mu
_SINGULAR = 1e-13  # a squared Cholesky pivot below this fraction of the largest diagonal entry: singular


class _Swaps:
    """The support as a sparse 0/1 matrix and the swap directions as index pairs."""

    def __init__(self, n: int, support):
        if len(support) == 0:
            raise InvalidParameterError("support must not be empty")
        self.n = n
        self.dense = np.zeros((len(support), n))
        for row, arm in enumerate(support):
            self.dense[row, list(arm)] = 1.0
        self.matrix = sparse.csr_matrix(self.dense)
        self.m = len(support)
        self.rows, self.cols = np.triu_indices(n, 1)
        # A(p) = sum_x p_x x x^T entry by entry: the flat positions a n + b for a, b in x
        members = [np.flatnonzero(row) for row in self.dense]
        self._cells = np.concatenate([(x[:, None] * n + x[None, :]).ravel() for x in members])
        self._owners = np.repeat(np.arange(self.m), [x.size ** 2 for x in members])

    def inverse(self, weights: np.ndarray) -> np.ndarray | None:
        """``A(p)^-1``, ``None`` if ``A(p)`` is not positive definite."""
        factored = self.factor(weights)
        return None if factored is None else factored[0]

    def factor(self, weights: np.ndarray) -> tuple[np.ndarray, float] | None:
        """``(A(p)^-1, log det A(p))``, ``None`` if ``A(p)`` is not positive definite."""
        if weights.shape != (self.m,) or not np.all(np.isfinite(weights)) or np.any(weights < 0):
            raise InvalidParameterError(f"weights must be {self.m} non-negative finite numbers, one per support member")
        gram = np.bincount(self._cells, weights=weights[self._owners], minlength=self.n * self.n)
        gram = gram.reshape(self.n, self.n)
        try:
            factor = sla.cho_factor(gram, check_finite=False)
        except (np.linalg.LinAlgError, ValueError):
            return None
        pivots = np.diag(factor[0])
        if pivots.min() ** 2 <= _SINGULAR * gram.diagonal().max():  # singular up to rounding
            return None
        inverse = sla.cho_solve(factor, np.eye(self.n), check_finite=False)
        return (inverse + inverse.T) / 2.0, 2.0 * float(np.log(np.diag(factor[0])).sum())

    def variances(self, inverse: np.ndarray, pairs=None) -> np.ndarray:
        rows, cols = (self.rows, self.cols) if pairs is None else (self.rows[pairs], self.cols[pairs])
        d = np.diag(inverse)
        return d[rows] + d[cols] - 2.0 * inverse[rows, cols]

    def laplacian(self, values: np.ndarray, pairs=None) -> np.ndarray:
        """``sum_y values_y y y^T`` over the swaps ``pairs`` (default all)."""
        rows, cols = (self.rows, self.cols) if pairs is None else (self.rows[pairs], self.cols[pairs])
        out = np.zeros((self.n, self.n))
        out[rows, cols] = -values
        out += out.T
        out[np.diag_indices(self.n)] = -out.sum(axis=1)
        return out

    def derivatives(self, inverse: np.ndarray, lam: np.ndarray, pairs=None) -> np.ndarray:
        """``d_x = x^T A^-1 M A^-1 x`` for every member, ``M = sum_y lam_y y y^T``."""
        G = inverse @ self.laplacian(lam, pairs) @ inverse
        return np.asarray(self.matrix.multiply(self.matrix @ G).sum(axis=1)).ravel()

    def lower_bound(self, inverse: np.ndarray, lam: np.ndarray, pairs=None) -> tuple[float, np.ndarray, float]:
        """(bound, d_x, phi) of :func:`xy_lower_bound` for a distribution ``lam`` over ``pairs``."""
        phi = float(lam @ self.variances(inverse, pairs))
        d = self.derivatives(inverse, lam, pairs)
        return phi * phi / float(d.max()), d, phi


def _barrier(swaps: _Swaps, start: np.ndarray, tolerance: float):
    """Barrier method from ``start``; returns (weights, pairs, lambda over pairs, Newton steps).

    The barrier of ``t >= y^T A(p)^-1 y`` is ``-log det [[A(p), y], [y^T, t]] =
    -log(t - y^T A^-1 y) - log det A(p)``, the self-concordant log-det barrier of a linear
    matrix inequality of size ``n + 1`` (parameter ``n + 1``): without the ``log det`` term
    damped Newton steps can stall next to the boundary.
    """
    X = swaps.matrix
    XT_dense = swaps.dense.T
    n, s = swaps.n, swaps.m
    p = start.copy()
    factored = swaps.factor(p)
    assert factored is not None
    inverse, logdet = factored
    everything = swaps.variances(inverse)
    t = 1.05 * float(everything.max())
    pairs = np.flatnonzero(everything >= (1.0 - _ACTIVE) * everything.max())
    mu = 1.0 / float((1.0 / (t - everything[pairs])).sum())  # the start is central in t
    steps = 0

    def potential(p, t, values, logdet):
        return t / mu - np.log(t - values).sum() - len(values) * logdet - np.log(p).sum()

    while True:
        pairs = np.union1d(pairs, np.flatnonzero(everything >= (1.0 - _ACTIVE) * t))
        for _ in range(_STAGE_STEPS):
            rows, cols = swaps.rows[pairs], swaps.cols[pairs]
            values = everything[pairs]
            r = len(pairs)
            a = 1.0 / (t - values)
            a2 = a * a
            W = X @ inverse  # s x n
            K = W @ XT_dense  # s x s: x^T A^-1 x'
            C = (W[:, rows] - W[:, cols]) ** 2  # s x r: (x^T A^-1 y)^2 = -dV_y/dp_x
            grad = np.concatenate([-(C @ a) - r * np.diag(K) - 1.0 / p, [1.0 / mu - a.sum()]])
            hessian = np.empty((s + 1, s + 1))
            hessian[:s, :s] = (C * a2) @ C.T + 2.0 * ((W @ swaps.laplacian(a, pairs) @ W.T) * K) + r * K * K
            hessian[np.diag_indices(s)] += 1.0 / (p * p)
            hessian[:s, s] = hessian[s, :s] = C @ a2
            hessian[s, s] = a2.sum()
            scale = np.concatenate([p, [t]])  # Newton in the scaled variables (p_x z_x, t z_t)
            direction = _newton_direction(scale[:, None] * hessian * scale[None, :], scale * grad,
                                          np.concatenate([p, [0.0]]))
            direction *= scale
            decrement = -float(grad @ direction)
            steps += 1
            if decrement <= 2e-8:
                break
            dp, dt = direction[:s], direction[s]
            shrinking = dp < 0
            alpha = min(1.0, 0.99 * float(np.min(-p[shrinking] / dp[shrinking]))) if shrinking.any() else 1.0
            current = potential(p, t, values, logdet)
            blocked = None
            damped = 1.0 / (1.0 + math.sqrt(decrement))  # the damped Newton step stays inside the domain
            while alpha > 1e-14:
                trial = np.maximum(p + alpha * dp, 1e-300)
                trial /= trial.sum()
                trial_t = t + alpha * dt
                trial_factored = swaps.factor(trial)
                if trial_factored is not None:
                    trial_everything = swaps.variances(trial_factored[0])
                    if (trial_everything[pairs] < trial_t).all():
                        # a swap outside the barrier must stay out of the near-active zone
                        outside = trial_everything >= (1.0 - _ACTIVE / 2.0) * trial_t
                        outside[pairs] = False
                        if outside.any():
                            blocked = np.flatnonzero(outside)
                            break
                        trial_value = potential(trial, trial_t, trial_everything[pairs], trial_factored[1])
                        if trial_value <= current - 0.25 * alpha * decrement:
                            break
                alpha = damped if alpha > damped > alpha / 2.0 else alpha / 2.0
            else:
                break  # no progress possible at this mu
            if blocked is not None:  # they join the barrier (their slack is at least _ACTIVE t / 2 here)
                pairs = np.union1d(pairs, blocked)
                continue
            p, t, everything = trial, trial_t, trial_everything
            inverse, logdet = trial_factored
        if (len(pairs) * (n + 1) + s) * mu <= tolerance * t / 10.0:
            break
        mu /= 10.0
    lam = mu / (t - everything[pairs])
    return p, pairs, lam / lam.sum(), steps


def _newton_direction(hessian: np.ndarray, grad: np.ndarray, constraint: np.ndarray) -> np.ndarray:
    """Solve ``H z = -(g + nu c)`` with ``c . z = 0``."""
    try:
        factor = sla.cho_factor(hessian, check_finite=False)
        hg, hc = (sla.cho_solve(factor, v, check_finite=False) for v in (grad, constraint))
    except np.linalg.LinAlgError:
        values, vectors = np.linalg.eigh(hessian)
        values = np.maximum(values, 1e-12 * values.max())
        hg, hc = ((vectors @ ((vectors.T @ v) / values)) for v in (grad, constraint))
    nu = -float(constraint @ hg) / float(constraint @ hc)
    return -(hg + nu * hc)


def _solve(swaps: _Swaps, tolerance: float, max_rounds: int) -> XYDesign:
    n = swaps.n
    uniform = np.full(swaps.m, 1.0 / swaps.m)
    inverse = swaps.inverse(uniform)
    assert inverse is not None
    best_weights, best_value = uniform, float(swaps.variances(inverse).max())  # never worse than the start
    lower, lower_weights = 0.0, np.zeros((n, n))
    steps = 0
    centring = tolerance
    for _ in range(max_rounds):
        weights, pairs, lam, used = _barrier(swaps, uniform, centring)
        steps += used
        inverse = swaps.inverse(weights)
        assert inverse is not None
        value = float(swaps.variances(inverse).max())
        bound = swaps.lower_bound(inverse, lam, pairs)[0]
        if value < best_value:
            best_weights, best_value = weights, value
        if bound > lower:
            lower = bound
            lower_weights = np.zeros((n, n))
            lower_weights[swaps.rows[pairs], swaps.cols[pairs]] = lam
        if best_value <= (1.0 + tolerance) * lower:
            break
        centring /= 100.0  # the barrier stopped short (a stage hit its step limit): centre closer
    return XYDesign(best_weights, best_value, lower, lower_weights, steps)
