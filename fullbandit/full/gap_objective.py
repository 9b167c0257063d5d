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
from typing import NamedTuple

import numpy as np

from fullbandit.dks import check_weight_matrix, get_oracle
from fullbandit.full.qp import pair_weights, positive_row_sums, top_sum
from fullbandit.linalg.spectrum import InverseSpectrum
from fullbandit.problems.classes import DecisionClass, TopK
from fullbandit.util.enumeration import ENUMERATION_LIMIT, indicator_rows, subset_chunks
from fullbandit.util.validation import InvalidParameterError


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
    >>> from fullbandit.problems.classes import PartitionMatroid
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
    >>> from fullbandit.problems.classes import TopK
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
    >>> from fullbandit.problems.classes import TopK
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
    tangent = GapSearch(theta, Q, best, radius).tangent(reference_value)
    P = tangent.scale * np.asarray(Q, dtype=float)
    P[np.diag_indices_from(P)] += tangent.linear
    return P, tangent.constant


def surrogate_step(theta, Q, best, radius, reference_value: float, oracle: str) -> tuple[tuple, float, str]:
    """One first-order step at ``f0 = reference_value``: Algorithm 1's maximiser of the surrogate,
    and a certified upper bound of ``max_M f(M)`` from the surrogate.

    See :meth:`GapSearch.step` (this builds the search of one check for one step).

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
    candidate, bound = GapSearch(theta, Q, best, radius).step(reference_value, oracle)
    return (candidate, *bound.value())


#: Oracles whose answer does not change when every edge weight grows by the same amount: greedy
#: peeling removes a vertex of least weighted degree, and a shift adds the same to every degree.
#: For these, a surrogate's shift to positive definiteness comes from Weyl's bound, not its spectrum.
SHIFT_INVARIANT_ORACLES = ("peeling",)


class Tangent(NamedTuple):
    """The surrogate at one tangent point: ``P = scale Q + diag(linear)``, plus ``constant``."""

    scale: float
    linear: np.ndarray
    constant: float


class GapSearch:
    """The gap objective (5) at one stopping check, and what its surrogate steps share.

    Everything that depends on the check only is computed once here and reused by every
    step: ``Q x_hat``, ``diag(Q)``, the positive row sums of :func:`fullbandit.full.qp.positive_row_sums`
    and the extreme eigenvalues of ``Q`` (from the check's
    :class:`fullbandit.linalg.spectrum.InverseSpectrum`). A surrogate ``P = a Q + diag(d)`` (``a > 0``,
    :func:`surrogate`) then costs ``O(n^2)``, and ``P`` itself is never formed:

    * its DkS weights are ``a Q_ij + (t_i + t_j)``, ``t = (a diag(Q) + d + s) / 2``, off the
      diagonal (:func:`fullbandit.full.qp.pair_weights`; ``s``: the shift that makes ``P + s I``
      positive definite for Algorithm 1);
    * its row bound takes the positive off-diagonal sums of ``a Q``, ``a`` times those of ``Q``;
    * its spectral bound ``k lambda_max(P)`` is needed only when it could be the smaller:
      ``lambda_max(P)`` is at least the largest diagonal entry and the Rayleigh quotient of the
      step's candidate, and when ``k`` times that already exceeds the row bound the row bound is
      the minimum; otherwise ``P``'s eigenvalues are computed, as before;
    * the shift: by Weyl's inequality ``lambda_min(P) >= a lambda_min(Q) + min(d)``, and for an
      oracle in :data:`SHIFT_INVARIANT_ORACLES` any shift that makes ``P + s I`` positive
      definite gives the same answer (other oracles get the exact ``lambda_min(P)``).

    The statistic and every candidate are those of computing each surrogate from scratch
    (up to rounding: the answer of greedy peeling may differ only where two weighted degrees
    tie to rounding).

    Parameters
    ----------
    theta : numpy.ndarray of shape (n,)
    Q : numpy.ndarray of shape (n, n)
        ``A_t^-1`` (symmetric positive definite).
    best : sequence of int
        ``M_hat``.
    radius : float
        ``C``.
    spectrum : fullbandit.linalg.spectrum.InverseSpectrum, optional
        The check's spectrum of ``Q`` (default: computed here when first needed).

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.full.gap_objective import GapSearch
    >>> search = GapSearch(np.array([0.9, 0.6, 0.5]), np.eye(3) / 4, (0, 1), 1.0)
    >>> round(search.value((0, 2)), 6), search.distance((0, 2)), search.distance((0, 1))
    (0.607107, 0.5, 0.0)
    >>> candidate, bound = search.step(0.5, "peeling")
    >>> value, name = bound.value()
    >>> candidate, round(value, 6), name
    ((0, 2), 0.607107, 'surrogate-row')
    """

    def __init__(self, theta, Q, best, radius: float, spectrum: InverseSpectrum | None = None):
        self.theta = np.asarray(theta, dtype=float)
        self.Q = np.asarray(Q, dtype=float)
        self.best = tuple(int(i) for i in best)
        self.radius = float(radius)
        self.k = len(self.best)
        self._best_set = frozenset(self.best)
        x_best = np.zeros(self.theta.size)
        x_best[list(self.best)] = 1.0
        self._q_best = self.Q @ x_best
        self._best_norm = float(x_best @ self._q_best)
        self._best_value = float(self.theta[list(self.best)].sum())
        self._diagonal = np.diag(self.Q).copy()
        self.spectrum = spectrum if spectrum is not None else InverseSpectrum(self.Q)
        self._positive_rows: np.ndarray | None = None

    # --- the objective ---------------------------------------------------------------------
    def distance(self, super_arm) -> float:
        """``||x_M - x_hat||^2_Q`` over the arms ``M`` and ``M_hat`` do not share (0 for ``M_hat``)."""
        arms = set(int(i) for i in super_arm)
        added, removed = sorted(arms - self._best_set), sorted(self._best_set - arms)
        if not added and not removed:
            return 0.0
        index = np.array(added + removed, dtype=np.intp)
        y = np.concatenate([np.ones(len(added)), -np.ones(len(removed))])
        return float(y @ self.Q[np.ix_(index, index)] @ y)

    def value(self, super_arm) -> float:
        """``f(M) = theta_hat(M) - theta_hat(M_hat) + C ||x_M - x_hat||_Q``."""
        gain = float(self.theta[list(super_arm)].sum()) - self._best_value
        return gain + self.radius * math.sqrt(max(self.distance(super_arm), 0.0))

    def references(self, count: int) -> list[tuple[int, ...]]:
        """The ``count`` single swaps of ``M_hat`` with the largest triangle-inequality score.

        Score of swapping ``i`` (in) for ``j`` (out): ``(theta_j + beta_j) - (theta_i - beta_i)``,
        ``beta = C sqrt(diag Q)``; ties to the smaller ``i``, then the smaller ``j``.
        """
        beta = self.radius * np.sqrt(np.clip(self._diagonal, 0.0, None))
        inside = np.array(sorted(self.best), dtype=np.intp)
        outside = np.setdiff1d(np.arange(self.theta.size), inside)
        scores = (self.theta[outside] + beta[outside])[None, :] - (self.theta[inside] - beta[inside])[:, None]
        order = np.argsort(-scores.ravel(), kind="stable")[:count]  # row-major: ties in (i, j) order
        swaps = []
        for flat in order.tolist():
            i, j = int(inside[flat // outside.size]), int(outside[flat % outside.size])
            swaps.append(tuple(sorted((self._best_set - {i}) | {j})))
        return swaps

    # --- the surrogate -------------------------------------------------------------------------
    def tangent(self, reference_value: float) -> Tangent:
        """The surrogate of :func:`surrogate` at ``f0 = reference_value > 0``, as ``(a, d, constant)``."""
        if not reference_value > 0:
            raise InvalidParameterError(f"reference_value={reference_value} must be positive")
        root = math.sqrt(reference_value)
        linear = self.theta - (self.radius / root) * self._q_best
        constant = -self._best_value + self.radius * (self._best_norm + reference_value) / (2.0 * root)
        return Tangent(self.radius / (2.0 * root), linear, constant)

    def _row_sums_of_q(self) -> np.ndarray:
        if self._positive_rows is None:
            self._positive_rows = positive_row_sums(self.Q, self.k - 1)
        return self._positive_rows

    def step(self, reference_value: float, oracle: str) -> tuple[tuple[int, ...], SurrogateBound]:
        """One first-order step at ``f0 = reference_value``: Algorithm 1's maximiser of the surrogate,
        and the surrogate's certified upper bound of ``max_M f(M)`` (:class:`SurrogateBound`).

        For Algorithm 1, ``P`` is shifted by ``s I`` to be positive definite, which adds the
        constant ``s k`` and leaves the maximiser unchanged.

        Returns
        -------
        candidate : tuple of int
        bound : SurrogateBound
        """
        k = self.k
        scale, linear, constant = self.tangent(reference_value)
        diagonal = scale * self._diagonal + linear
        row = float(np.max(diagonal)) if k == 1 else top_sum(diagonal + scale * self._row_sums_of_q(), k)
        exact = None
        if oracle in SHIFT_INVARIANT_ORACLES:  # Weyl: lambda_min(P) >= a lambda_min(Q) + min(d), likewise max
            eigenvalues = self.spectrum.eigenvalues()
            low, high = scale * eigenvalues[0] + linear.min(), scale * eigenvalues[-1] + linear.max()
        else:
            exact = self._eigenvalues_of(scale, linear)
            low, high = exact[0], exact[-1]
        shift = max(0.0, -low) + 1e-9 * max(1.0, abs(high)) + 1e-12
        candidate = self._candidate(scale, linear, shift, oracle)
        members = list(candidate)
        rayleigh = (scale * float(self.Q[np.ix_(members, members)].sum()) + float(linear[members].sum())) / k
        floor = max(float(np.max(diagonal)), rayleigh)  # Rayleigh quotients: lambda_max(P) >= both
        return candidate, SurrogateBound(self, scale, linear, constant, row, floor, exact)

    def _eigenvalues_of(self, scale: float, linear: np.ndarray) -> np.ndarray:
        P = scale * self.Q
        P[np.diag_indices_from(P)] += linear
        return np.linalg.eigvalsh(P)

    def _candidate(self, scale: float, linear: np.ndarray, shift: float, oracle: str) -> tuple[int, ...]:
        """Algorithm 1 on ``P + s I``: its DkS weights are ``a W(Q) + (d_i + d_j) / 2 + s`` off the diagonal."""
        if self.k == 1:
            return (int(np.argmax(scale * self._diagonal + linear)),)
        W = pair_weights(self.Q, scale, (scale * self._diagonal + linear + shift) / 2.0)
        return tuple(int(i) for i in get_oracle(oracle).solve(check_weight_matrix(W, owned=True), self.k))


class SurrogateBound:
    """A surrogate's certified bound ``min(k lambda_max(P), row bound) + constant`` of ``max_M f(M)``.

    Both terms bound ``max_{|x| = k} x^T P x`` for any symmetric ``P`` (:func:`fullbandit.full.qp.row_bound`
    for the row bound, ``x^T P x <= lambda_max ||x||^2`` for the spectral one), and the surrogate
    bounds ``f`` from above, so either plus the constant bounds ``max_M f(M)``. The row bound
    is known at once; ``lambda_max(P)`` costs an eigen-decomposition, so only a lower bound
    ``floor <= lambda_max(P)`` is kept until the exact value is asked for (:meth:`value`, or
    :func:`certified_minimum`, which asks only where it can matter).

    Attributes
    ----------
    row : float
        The row bound plus the constant.
    floor : float
        ``k floor + constant``: at most the spectral bound plus the constant.
    """

    def __init__(self, search: GapSearch, scale: float, linear: np.ndarray, constant: float, row: float,
                 floor: float, eigenvalues: np.ndarray | None = None):
        self._search, self._scale, self._linear = search, scale, linear
        self._eigenvalues = eigenvalues
        self.row = row + constant
        self.floor = search.k * floor + constant
        self._constant = constant

    def known(self) -> tuple[float, str] | None:
        """``(bound, name)`` when the floor already shows the row bound is the smaller, else ``None``."""
        if self.floor > self.row:
            return self.row, "surrogate-row"
        return None

    def value(self) -> tuple[float, str]:
        """``(bound, name)``: the smaller of the two bounds and its name (the spectral one on a tie)."""
        known = self.known()
        if known is not None:
            return known
        if self._eigenvalues is None:
            self._eigenvalues = self._search._eigenvalues_of(self._scale, self._linear)
        spectral = self._search.k * float(self._eigenvalues[-1]) + self._constant
        return (spectral, "surrogate-spectral") if spectral <= self.row else (self.row, "surrogate-row")


def certified_minimum(triangle: float, surrogates: list[SurrogateBound]) -> tuple[float, str]:
    """The smallest of the triangle bound and every surrogate's bound, and its name.

    The value of taking every surrogate's :meth:`SurrogateBound.value` and the minimum (names
    in the order ``"triangle"``, then as they first occur), computing a spectral bound only
    when its floor does not already exceed the smallest bound known: it cannot then be the
    minimum. (Only on an exact tie between two names can the name differ.)

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.full.gap_objective import GapSearch, certified_minimum
    >>> search = GapSearch(np.array([0.9, 0.6, 0.5]), np.eye(3) / 4, (0, 1), 1.0)
    >>> _, bound = search.step(0.5, "peeling")
    >>> value, name = certified_minimum(0.9, [bound])
    >>> round(value, 6), name
    (0.607107, 'surrogate-row')
    """
    current = min([triangle] + [surrogate.row for surrogate in surrogates])
    resolved: dict[int, tuple[float, str]] = {}
    for index in sorted(range(len(surrogates)), key=lambda i: surrogates[i].floor):
        surrogate = surrogates[index]
        known = surrogate.known()
        if known is not None:
            resolved[index] = known
        elif surrogate.floor <= current:
            resolved[index] = surrogate.value()
            current = min(current, resolved[index][0])
    bounds = {"triangle": triangle}
    for index in range(len(surrogates)):
        if index in resolved:
            value, name = resolved[index]
            bounds[name] = min(value, bounds.get(name, math.inf))
    name = min(bounds, key=bounds.__getitem__)
    return bounds[name], name
