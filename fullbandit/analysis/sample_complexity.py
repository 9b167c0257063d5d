"""Instance-dependent lower bound on the sample complexity of best-team identification.

Setting: a decision class of super-arms ``M`` (``k``-subsets of ``n`` arms, e.g.
:class:`fullbandit.TopK`); the learner pulls any member ``M`` and observes
``x_M . theta + N(0, sigma^2)``. For a design ``lambda`` (a distribution over the class) let
``A(lambda) = sum_M lambda_M x_M x_M^T``.

Derivation
----------
Let ``Delta_M = theta(M*) - theta(M)`` and, for ``epsilon >= 0``, let
``G = {M : Delta_M <= epsilon}`` be the answers an ``(epsilon, delta)``-PAC algorithm may
return on ``theta`` (``epsilon = 0``: the optimal super-arms). The alternatives are the
``theta'`` on which no member of ``G`` is correct, ``Alt = {theta' : G(theta') and G(theta)
are disjoint}``. With the event ``E = {answer in G(theta)}`` (probability ``>= 1 - delta``
under ``theta``, ``<= delta`` under any ``theta'`` in ``Alt``), the transportation lemma of
Kaufmann, Cappe and Garivier (2016, Lemma 1) gives, for every ``theta'`` in ``Alt``,
``sum_M E[N_M] (x_M . (theta - theta'))^2 / (2 sigma^2) >= kl(1 - delta, delta) >=
log(1 / (2.4 delta))`` (Garivier and Kaufmann 2016; ``delta <= 1/2``, and for larger ``delta``
the right-hand side is negative anyway), hence, for every algorithm that stops almost surely
and returns an ``epsilon``-good super-arm with probability ``>= 1 - delta`` on every instance,

    E[pulls] >= T_eps(theta) log(1 / (2.4 delta)),
    1 / T_eps(theta) = max_lambda inf_{theta' in Alt} sum_M lambda_M (x_M . (theta - theta'))^2 / (2 sigma^2).

``theta'`` is in ``Alt`` exactly when its own best super-arm ``B`` beats every member of
``G`` by more than ``epsilon``; then ``B`` is not in ``G``, so ``Alt`` is the union over
``B`` with ``Delta_B > epsilon`` of the polyhedra ``P_B = {theta' : theta'(B) - theta'(G) >
epsilon for all G in G}``. When ``G = {M*}`` (always for ``epsilon = 0`` and a unique best)
``P_B`` is a half-space and the infimum has a closed form:

    T_eps(theta) = min_lambda max_{B : Delta_B > epsilon}
                   2 sigma^2 ||x_M* - x_B||^2_{A(lambda)^-1} / (Delta_B + epsilon)^2,

which for ``epsilon = 0`` is the characteristic time of Soare, Lazaric and Munos (2014) and
Fiez, Jain, Jamieson and Ratliff (2019) with the super-arms as both arms and measurements.
Ties at the top (several optimal super-arms) are handled by the same definition: ``G`` then
holds all of them, and the number bounds algorithms that must return *an* optimal (or
``epsilon``-good) super-arm. It is a lower bound for every such algorithm, not necessarily
attained (with several correct answers the attainable rate can be larger, Degenne and Koolen
2019). Note the ``+ epsilon``: keeping only the alternatives ``Delta_B > epsilon`` with
``Delta_B^2`` in the denominator would *not* be a valid bound (two arms, gap 1, ``epsilon =
1/2``: it gives ``8 sigma^2``, while an algorithm only has to rule out a reversal by ``3/2``,
``8 sigma^2 / (3/2)^2``).

The easiest single answer
-------------------------
With several correct answers ``T_eps`` lets one alternative defeat *every* member of ``G``
at once, and no algorithm can exploit that as ``delta -> 0``: Degenne and Koolen (2019,
Theorem 1) show that every ``delta``-correct algorithm has
``liminf_{delta -> 0} E[pulls] / log(1 / delta) >= T_easiest(theta) = min_{G in G} T_G(theta)``, with

    ``T_G(theta) = min_lambda max_{B != G} 2 sigma^2 ||x_G - x_B||^2_{A(lambda)^-1} / (theta(G) - theta(B) + eps)^2``,

(``eps = epsilon``) the characteristic time of answer ``G`` alone (its alternatives are the
half-spaces ``theta'(B) - theta'(G) > epsilon``), and their Sticky Track-and-Stop attains it. The
alternatives to ``G`` alone include ``Alt``, so ``T_G >= T_eps``, with equality when ``G``
is the only correct answer. It is an asymptotic bound, not one at a given ``delta``, and the
one an algorithm can approach where ``T_eps`` is smaller (on uniformly random means,
``n = 14``, ``k = 3``, ``epsilon = 0.1``, it was 1.6 to 11 times ``T_eps``). :func:`lower_bound` computes it
with ``easiest_answer=True`` (one cutting-plane solve per correct answer).

Methods and certificates
------------------------
``"cutting-plane"`` (exact, the default for enumerable classes): ``F_B(lambda) = inf_{P_B}
D(lambda, .)`` is a minimum of functions linear in ``lambda`` (one per point of ``P_B``), so
Kelley's cutting planes apply: a linear program over the cuts found so far proposes a design,
the nearest point of each ``P_B`` (closed form for a half-space, non-negative least squares
otherwise) gives the next cuts. ``"sdp"`` (exact, small classes, a cross-check) writes every
inner problem through its dual, ``max_{mu >= 0} b' mu - matrix_frac(C' mu, A(lambda)) / 2``,
and solves one semidefinite program with cvxpy. For any points ``theta_B`` in ``Alt`` and weights ``nu`` on them,
``max_lambda inf_Alt <= max_lambda sum_B nu_B D(lambda, theta_B) = max_M sum_B nu_B
(x_M . (theta - theta_B))^2 / (2 sigma^2)``: a maximum over the class, computed by
enumeration. Its inverse is the certified lower value ``T_star`` returned by the exact
methods, whatever the accuracy of the solver that proposed the points (weak duality). The
value of the returned design is an upper bound, so the two bracket ``T_eps(theta)``.

Instances too large to enumerate get a relaxation (``method="relaxed"``): alternatives of the
form ``theta - s (a e_i - b e_j) + c 1`` only (``i`` in ``M*``, ``j`` outside, ``a, b >= 0``:
fewer alternatives), and the design replaced by its marginals ``p_i = P(i in M)``, which
satisfy ``0 <= p <= 1``, ``sum p = k`` and ``P(i, j in M) >= max(0, p_i + p_j - 1)`` (more
designs). The pull-weighted squared distance to such an alternative, minimised over ``c``,
is ``s^2 Var(a x_i - b x_j) <= s^2 (a^2 p_i + b^2 p_j - (a p_i - b p_j)^2 - 2ab max(0, p_i +
p_j - 1))``, concave in ``p``; a maximum over a larger set of a minimum over fewer
alternatives is larger, so the inverse of the relaxed value is still a lower bound on
``T_eps``, certified by linearising the concave objective at the solver's point. When no
such pair perturbation makes every correct answer wrong (many ties, or a large ``epsilon``)
the relaxation has no alternative left and returns 0, a true but empty bound.

References
----------
M. Soare, A. Lazaric, R. Munos. Best-arm identification in linear bandits. NeurIPS 2014.
T. Fiez, L. Jain, K. Jamieson, L. Ratliff. Sequential experimental design for transductive
linear bandits. NeurIPS 2019.
A. Garivier, E. Kaufmann. Optimal best arm identification with fixed confidence. COLT 2016.
E. Kaufmann, O. Cappe, A. Garivier. On the complexity of best-arm identification in
multi-armed bandit models. JMLR 17, 2016.
R. Degenne, W. M. Koolen. Pure exploration with multiple correct answers. NeurIPS 2019,
Theorem 1 (the easiest single answer).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace

import numpy as np
from scipy.optimize import linprog

from fullbandit.problems.classes import DecisionClass, SuperArm
from fullbandit.util.enumeration import ENUMERATION_LIMIT
from fullbandit.util.validation import (
    InvalidParameterError,
    check_choice,
    check_int,
    check_probability,
    check_real,
    check_vector,
)

__all__ = ["LowerBound", "lower_bound", "METHODS", "SDP_LIMIT"]

#: The methods :func:`lower_bound` accepts.
METHODS = ("auto", "cutting-plane", "sdp", "relaxed")

#: Largest class the cvxpy method ("sdp") accepts by default: it has one semidefinite block per
#: alternative super-arm.
SDP_LIMIT = 100

_ROUNDING = 1e-12  # relative rounding error of a sum of k terms: gaps within it count as ties
_SAFETY = 1e-12  # alternatives are pushed this much (relatively) past the boundary of Alt
_SINGULAR = 1e-12  # a design whose smallest eigenvalue is below this fraction of its largest is singular


@dataclass(frozen=True)
class LowerBound:
    """The characteristic time ``T_eps(theta)`` of an instance and the design that attains it.

    Attributes
    ----------
    T_star : float
        Certified lower value of ``T_eps(theta)``: every ``(epsilon, delta)``-PAC algorithm
        needs ``E[pulls] >= T_star log(1 / (2.4 delta))`` (up to floating-point rounding).
    upper : float
        Exact methods: the value of :attr:`design`, an upper bound on ``T_eps(theta)``.
        ``"relaxed"``: the value of the relaxation at its marginals (it brackets the relaxed
        optimum with ``T_star``, and says nothing about ``T_eps(theta)`` from above).
    gap : float
        ``(upper - T_star) / upper``: the relative duality gap left by the solver.
    exact : bool
        ``True`` when the class was enumerated: ``[T_star, upper]`` brackets ``T_eps(theta)``
        itself, to within ``gap``; ``False`` for the relaxation, a certified lower bound only.
    design : tuple of (tuple of int, float)
        The super-arms that carry weight in the design and their weights (sum 1); empty for
        the relaxation, which has no design over super-arms.
    marginals : tuple of float
        ``P(i in M)`` under the design (or the relaxation's marginals), one per arm.
    samples : float or None
        ``T_star * log(1 / (2.4 delta))``, floored at 0, when ``delta`` was given.
    delta : float or None
    epsilon : float
    sigma : float
    best : tuple of int
        ``M* = problem.best(theta)``.
    n_correct : int or None
        Number of super-arms with ``Delta_M <= epsilon`` (the correct answers), when the
        class was enumerated.
    T_easiest : float or None
        Certified lower value of ``min_{G in G} T_G(theta)``, the characteristic time of the
        easiest single correct answer (see :func:`lower_bound`, ``easiest_answer``): the
        asymptotic lower bound of Degenne and Koolen (2019) for algorithms that may return any
        correct answer. Equal to ``T_star`` when there is one correct answer; ``None`` when not
        computed (the relaxation, or more than one correct answer without ``easiest_answer``).
    easiest : tuple of int or None
        The correct answer that attains ``T_easiest`` (``None`` with it).
    method : str
        ``"cutting-plane"``, ``"sdp"`` or ``"relaxed"``.
    iterations : int
        Linear programs solved (``"cutting-plane"``), interior-point iterations (``"sdp"``) or
        convex programs solved (``"relaxed"``).
    solver : str
        What solved the design problem (``"highs"``: scipy's HiGHS linear programs, or the
        cvxpy solver's name).
    seconds : float
        Wall-clock time of the computation.

    Examples
    --------
    >>> from fullbandit.analysis.sample_complexity import lower_bound
    >>> from fullbandit.problems.classes import TopK
    >>> result = lower_bound(TopK(3, 1), [1.0, 0.5, 0.0], 1.0, delta=0.05)
    >>> result.best, result.exact, round(result.T_star, 1), round(result.samples, 1)
    ((0,), True, 34.3, 72.7)
    """

    T_star: float
    upper: float
    gap: float
    exact: bool
    design: tuple[tuple[SuperArm, float], ...]
    marginals: tuple[float, ...]
    samples: float | None
    delta: float | None
    epsilon: float
    sigma: float
    best: SuperArm
    n_correct: int | None
    method: str
    iterations: int
    solver: str
    seconds: float = field(compare=False)
    T_easiest: float | None = None
    easiest: SuperArm | None = None


# --- the enumerated instance ------------------------------------------------------------------

@dataclass
class _Instance:
    members: list[SuperArm]
    X: np.ndarray  # (N, n) indicators
    Z: np.ndarray  # (N, d) indicators in an orthonormal basis of their span
    star: int  # index of M* in members
    gaps: np.ndarray  # (N,) Delta_M >= 0
    good: np.ndarray  # indices with Delta_M <= epsilon (the correct answers)
    bad: np.ndarray  # indices with Delta_M > epsilon (the alternatives' best super-arms)


def _enumerate(problem: DecisionClass, theta: np.ndarray, epsilon: float, limit: int) -> _Instance:
    from fullbandit.full.gap_objective import enumerate_class

    members: list[SuperArm] = []
    rows = []
    for chunk, indicators in enumerate_class(problem, limit):
        members.extend(tuple(int(i) for i in row) for row in chunk)
        rows.append(indicators)
    X = np.vstack(rows)
    best = problem.best(theta)
    star = members.index(tuple(best))
    values = X @ theta
    gaps = np.maximum(values[star] - values, 0.0)
    tolerance = _ROUNDING * max(1.0, float(np.abs(theta).sum()))
    good = np.flatnonzero(gaps <= epsilon + tolerance)
    bad = np.flatnonzero(gaps > epsilon + tolerance)
    # Orthonormal basis of span{x_M}: the design only ever sees that subspace.
    _, singular, vt = np.linalg.svd(X, full_matrices=False)
    rank = int(np.sum(singular > 1e-9 * singular[0]))
    Z = X @ vt[:rank].T
    return _Instance(members, X, Z, star, gaps, good, bad)


def _gram(Z: np.ndarray, lam: np.ndarray) -> np.ndarray:
    return Z.T @ (lam[:, None] * Z)


def _certify(Z: np.ndarray, points: np.ndarray, sigma: float) -> tuple[float, np.ndarray]:
    """``1 / min_nu max_M sum_B nu_B (z_M . d_B)^2 / (2 sigma^2)`` for alternatives ``theta - d_B``.

    The weights come from a linear program; whatever its accuracy, the returned value is
    recomputed from the clipped, normalised weights, so it is a valid lower bound on
    ``T_eps`` as long as every ``theta - d_B`` lies in the closure of ``Alt``.
    """
    if points.shape[0] == 0:
        return 0.0, np.zeros(0)
    a = (Z @ points.T) ** 2 / (2.0 * sigma ** 2)  # (N, m)
    m = points.shape[0]
    scale = float(a.max())
    nu = np.full(m, 1.0 / m)
    if m > 1 and scale > 0:
        objective = np.zeros(m + 1)
        objective[-1] = 1.0
        result = linprog(objective, A_ub=np.hstack([a / scale, -np.ones((a.shape[0], 1))]),
                         b_ub=np.zeros(a.shape[0]), A_eq=np.hstack([np.ones((1, m)), np.zeros((1, 1))]),
                         b_eq=np.ones(1), bounds=[(0, None)] * m + [(None, None)], method="highs")
        if result.status == 0:
            nu = np.clip(result.x[:m], 0.0, None)
            nu = nu / nu.sum()
    value = float((a @ nu).max())
    return (1.0 / value if value > 0 else math.inf), nu


def _halfspace_points(inst: _Instance, Ainv: np.ndarray, alternatives: np.ndarray, epsilon: float) -> np.ndarray:
    """Closest point of each half-space ``{d : y_B . d >= Delta_B + epsilon}`` in the ``A``-norm."""
    Y = inst.Z[inst.star] - inst.Z[alternatives]
    S = Y @ Ainv
    norms = np.einsum("ij,ij->i", S, Y)
    return S * ((inst.gaps[alternatives] + epsilon) * (1.0 + _SAFETY) / norms)[:, None]


def _design(inst: _Instance, lam: np.ndarray, cutoff: float = 1e-9) -> tuple[np.ndarray, tuple]:
    lam = np.where(lam > cutoff * lam.max(), lam, 0.0) if cutoff > 0 else np.clip(lam, 0.0, None)
    lam = lam / lam.sum()
    support = np.flatnonzero(lam)
    order = support[np.argsort(-lam[support], kind="stable")]
    return lam, tuple((inst.members[i], float(lam[i])) for i in order)


# --- cutting planes (any set of correct answers) ------------------------------------------------------

def _cut_matrix(Z: np.ndarray, points: np.ndarray, sigma: float) -> np.ndarray:
    """``(z_M . d)^2 / (2 sigma^2)``: one row per alternative ``theta - d``, one column per super-arm."""
    return ((points @ Z.T) ** 2) / (2.0 * sigma ** 2)


def _nearest_alternatives(inst: _Instance, A: np.ndarray, sigma: float, epsilon: float):
    """For each alternative best super-arm ``B``: ``>= 1 / F_B(lambda)`` and a point of ``P_B``.

    ``F_B(lambda) = min {d' A d / (2 sigma^2) : (x_G - x_B) . d >= epsilon + Delta_B - Delta_G for
    every correct G}`` is the distance from ``theta`` to the alternatives whose best super-arm
    is ``B``. With one correct answer it is a half-space and everything is in closed form.
    Otherwise the least-distance problem is solved by non-negative least squares (Lawson and
    Hanson 1974, ch. 23); the returned value comes from the dual (weak duality: ``F_B >= (b . mu)^2
    / (2 sigma^2 mu' C A^-1 C' mu)`` for every ``mu >= 0``), so it never understates ``T``, and
    the point is scaled until it satisfies every constraint. Rows whose point cannot be built
    are ``nan``.
    """
    from scipy.optimize import nnls

    _require_nonsingular(A)
    Z, bad, good = inst.Z, inst.bad, inst.good
    if len(good) == 1:
        Ainv = np.linalg.inv(A)
        return (2.0 * sigma ** 2 * np.einsum("ij,jk,ik->i", Z[inst.star] - Z[bad], Ainv, Z[inst.star] - Z[bad])
                / (inst.gaps[bad] + epsilon) ** 2), _halfspace_points(inst, Ainv, bad, epsilon)
    L_inverse = np.linalg.inv(np.linalg.cholesky(A))  # A^-1 = L^-T L^-1
    white = Z @ L_inverse.T  # L^-1 z_M for every member
    dim = Z.shape[1]
    values = np.full(len(bad), np.inf)
    points = np.full((len(bad), dim), np.nan)
    target = np.zeros(dim + 1)
    target[-1] = 1.0
    for row, B in enumerate(bad):
        C = Z[good] - Z[B]
        b = epsilon + inst.gaps[B] - inst.gaps[good]
        whitened = (white[good] - white[B]).T  # L^-1 C^T, (dim, |G|)
        mu, _ = nnls(np.vstack([whitened, b[None, :]]), target)
        v = whitened @ mu
        reach = float(b @ mu)
        if reach <= 0 or not np.any(v):
            continue
        values[row] = 2.0 * sigma ** 2 * float(v @ v) / reach ** 2
        point = L_inverse.T @ v  # A^-1 C^T mu, the direction of the optimum
        attained = C @ point
        if np.all(attained > 0):
            points[row] = point * float(np.max(b / attained)) * (1.0 + _SAFETY)
    return values, points


def _require_nonsingular(A: np.ndarray) -> None:
    """Raise ``LinAlgError`` for a (numerically) singular design matrix.

    A design that misses a direction of the span has alternatives at distance 0 (value
    infinite); inverting it anyway gives rounding noise, which once passed for a finite value
    and let a sparsified design report an "upper" bound below the true value.
    """
    eigenvalues = np.linalg.eigvalsh(A)
    if eigenvalues[0] <= _SINGULAR * max(float(eigenvalues[-1]), 0.0):
        raise np.linalg.LinAlgError("singular design")


def _cutting_plane(inst: _Instance, sigma: float, epsilon: float, tol: float, max_iter: int):
    """Kelley's cutting planes on ``max_lambda min_B F_B(lambda)``, ``F_B`` as in :func:`_nearest_alternatives`.

    Each ``F_B`` is a minimum of functions linear in ``lambda``, so every alternative point ``d``
    gives a cut ``F(lambda) <= sum_M lambda_M (x_M . d)^2 / (2 sigma^2)``. The linear program
    over the cuts found so far bounds ``max F`` from above (its dual weights are the certificate
    of :func:`_certify`); its solution, mixed with the best design so far (in-out
    stabilisation), is where the next cuts are taken.

    Returns the best design, its value (upper bound on ``T_eps``), the certified lower value
    and the number of iterations.
    """
    Z = inst.Z
    N, dim = Z.shape
    lam_best = np.full(N, 1.0 / N)
    per_round = min(len(inst.bad), dim)

    def evaluate(lam):
        try:
            values, points = _nearest_alternatives(inst, _gram(Z, lam), sigma, epsilon)
        except np.linalg.LinAlgError:  # a singular design: no cuts from it
            return math.inf, None, np.zeros((0, dim))
        order = np.argsort(-values, kind="stable")
        order = order[np.all(np.isfinite(points[order]), axis=1)][:per_round]
        return float(values.max()), values, points[order]

    def new_cuts(points):
        return _cut_matrix(Z, points, sigma)

    upper, _, points = evaluate(lam_best)
    cuts = new_cuts(points)
    # The linear programs see only some columns (super-arms); the certificate looks at all of
    # them, and the columns it finds most attractive join the next program.
    columns = np.argsort(-cuts.sum(axis=0), kind="stable")[: min(N, 4 * dim)]
    lower, mix, iterations, stalled = 0.0, 0.5, 0, False
    lam_lp = lam_best
    found = [points]
    for iterations in range(1, max_iter + 1):  # noqa: B007 (the count is returned)
        sub = cuts[:, columns]
        scale = float(sub.max())
        m, width = sub.shape
        objective = np.zeros(width + 1)
        objective[-1] = -1.0
        result = _cut_program(objective, sub / scale, width)
        if result is None:
            # Every solver gave up on this program (numerically hard cuts): the bracket so far stands, and the
            # certificate below is recomputed from every alternative point found.
            stalled = True
            break
        nu = np.clip(-np.asarray(result.ineqlin.marginals, dtype=float), 0.0, None)
        lam_lp = np.zeros(N)
        lam_lp[columns] = np.clip(result.x[:width], 0.0, None)
        lam_lp /= lam_lp.sum()
        if nu.sum() > 0:
            scores = cuts.T @ (nu / nu.sum())
            lower = max(lower, 1.0 / float(scores.max()))
            program_value = float(scores[columns].max())
            entering = np.setdiff1d(np.flatnonzero(scores > program_value * (1 + 1e-9)), columns)
            entering = entering[np.argsort(-scores[entering], kind="stable")][:dim]
            columns = np.concatenate([columns, entering])
        if upper - lower <= tol * upper:
            break
        lam_query = mix * lam_lp + (1.0 - mix) * lam_best
        value, _, points = evaluate(lam_query)
        if value < upper:
            upper, lam_best = value, lam_query
            mix = min(0.999, mix * 1.2)  # the best design keeps some weight: queries stay non-singular
        else:
            mix = max(0.05, mix * 0.7)
        cuts = np.vstack([cuts, new_cuts(points)])
        found.append(points)
        # Keep the linear program small: drop the cuts its solution left slack (dropping cuts
        # only loosens later linear programs; the certificate stays valid).
        if cuts.shape[0] > 8 * dim:
            keep = np.flatnonzero(nu > 0)
            cuts = np.vstack([cuts[keep], cuts[m:]])
    # The last linear program's design is sparse; keep it if it is as good.
    value, _, _ = evaluate(lam_lp)  # inf when singular
    if value <= upper:
        upper, lam_best = value, lam_lp
    if stalled or lower <= 0.0:
        lower = max(lower, _certify(Z, np.vstack(found), sigma)[0])
    return lam_best, upper, lower, iterations


#: The linear-programming methods tried in turn on a cutting-plane program (HiGHS's dual simplex first).
CUT_PROGRAM_METHODS = ("highs-ds", "highs-ipm", "highs")


def _cut_program(objective: np.ndarray, cuts: np.ndarray, width: int):
    """``max t`` subject to ``t <= cuts @ lambda`` over the simplex, by the first of :data:`CUT_PROGRAM_METHODS`
    that solves it (``None`` when none does: HiGHS can end with an unknown model status on nearly
    degenerate cuts)."""
    m = cuts.shape[0]
    for method in CUT_PROGRAM_METHODS:
        result = linprog(objective, A_ub=np.hstack([-cuts, np.ones((m, 1))]), b_ub=np.zeros(m),
                         A_eq=np.hstack([np.ones((1, width)), np.zeros((1, 1))]), b_eq=np.ones(1),
                         bounds=[(0, None)] * width + [(None, None)], method=method)
        if result.status == 0 and getattr(result, "ineqlin", None) is not None:
            return result
    return None


def _sparsest(inst: _Instance, lam: np.ndarray, sigma: float, epsilon: float, tol: float):
    """Drop the small weights of ``lam`` while its value grows by less than ``tol / 10`` (relative).

    Returns the design, its (super-arm, weight) pairs and the values of its alternatives.
    """
    values, _ = _nearest_alternatives(inst, _gram(inst.Z, lam), sigma, epsilon)
    reference = float(values.max())
    for cutoff in (1e-3, 1e-5, 1e-7, 1e-9):
        cleaned, design = _design(inst, lam, cutoff)
        try:
            cleaned_values, _ = _nearest_alternatives(inst, _gram(inst.Z, cleaned), sigma, epsilon)
        except np.linalg.LinAlgError:  # the dropped weights were needed
            continue
        if float(cleaned_values.max()) <= reference * (1.0 + tol / 10.0):
            return cleaned, design, cleaned_values
    lam, design = _design(inst, lam, cutoff=0.0)
    return lam, design, values


# --- cvxpy (any set of correct answers) -------------------------------------------------------------

def _sdp(inst: _Instance, sigma: float, epsilon: float, solver: str | None):
    """Solve ``max_lambda min_B min_{d in P_B} d' A d / 2`` with every inner problem dualised.

    ``min {d' A d / 2 : C d >= b} = max_{mu >= 0} b' mu - matrix_frac(C' mu, A) / 2``, jointly
    concave in ``(lambda, mu)``: one semidefinite block per alternative best super-arm ``B``.
    Gaps are divided by ``sigma`` and by the smallest right-hand side, so the program is well scaled.
    """
    import cvxpy as cp

    Z = inst.Z
    N, d = Z.shape
    good, bad = inst.good, inst.bad
    rhs = epsilon + inst.gaps[bad][:, None] - inst.gaps[good][None, :]  # (|bad|, |good|) all > 0
    unit = float(rhs.min()) / sigma
    lam = cp.Variable(N, nonneg=True)
    lifted = np.stack([np.outer(z, z).ravel() for z in Z], axis=1)  # (d*d, N)
    A = cp.reshape(lifted @ lam, (d, d), order="C")
    A = (A + A.T) / 2
    t = cp.Variable()
    mus, constraints = [], [cp.sum(lam) == 1]
    for row, B in enumerate(bad):
        C = Z[good] - Z[B]  # rows x_G - x_B
        mu = cp.Variable(len(good), nonneg=True)
        mus.append(mu)
        constraints.append(t <= (rhs[row] / sigma / unit) @ mu - 0.5 * cp.matrix_frac(C.T @ mu, A))
    problem = cp.Problem(cp.Maximize(t), constraints)
    if solver is None and "CLARABEL" in cp.installed_solvers():
        solver = "CLARABEL"  # interior point: far more accurate than SCS, which cvxpy picks for SDPs
    import warnings

    with warnings.catch_warnings():  # an inaccurate solution is still certified (and its gap reported)
        warnings.simplefilter("ignore")
        problem.solve(solver=solver)
    if lam.value is None or problem.status not in ("optimal", "optimal_inaccurate"):
        raise RuntimeError(f"cvxpy could not solve the design problem (status {problem.status!r})")
    lam_value = np.clip(np.asarray(lam.value, dtype=float), 0.0, None)
    mu_values = [np.clip(np.asarray(mu.value, dtype=float), 0.0, None) for mu in mus]
    return lam_value, mu_values, problem.solver_stats.solver_name, problem.solver_stats.num_iters


def _general_bounds(inst: _Instance, lam: np.ndarray, mus: list[np.ndarray], sigma: float, epsilon: float):
    """Upper bound (weak duality of each inner problem) and certified lower value at ``lam``."""
    Z = inst.Z
    A = _gram(Z, lam)
    if np.linalg.eigvalsh(A)[0] <= 1e-14 * np.trace(A):
        return math.inf, 0.0
    Ainv = np.linalg.inv(A)
    good, bad = inst.good, inst.bad
    worst = math.inf
    points = []
    for row, B in enumerate(bad):
        C = Z[good] - Z[B]
        b = epsilon + inst.gaps[B] - inst.gaps[good]
        mu = mus[row]
        v = C.T @ mu
        quadratic = float(v @ Ainv @ v)
        linear = float(b @ mu)
        if quadratic <= 0 or linear <= 0:
            return math.inf, 0.0
        worst = min(worst, linear ** 2 / (2.0 * sigma ** 2 * quadratic))
        # The inner primal point d = alpha A^-1 C' mu, scaled into P_B.
        point = Ainv @ v
        reach = C @ point
        if np.all(reach > 0):
            points.append(point * float(np.max(b / reach)) * (1.0 + _SAFETY))
    lower, _ = _certify(Z, np.array(points).reshape(-1, Z.shape[1]), sigma)
    return 1.0 / worst, lower


# --- the relaxation for classes too large to enumerate ---------------------------------------------

_CASES = np.array([(1, 1), (1, 0), (0, 1), (0, 0)])  # (i in G, j in G)


def _case_maxima(problem: DecisionClass, theta: np.ndarray, pairs) -> np.ndarray:
    """``max theta(G)`` over the members with ``i in G`` / ``j in G`` prescribed; ``-inf`` if no member.

    One row per pair ``(i, j)``, one column per case of :data:`_CASES`, from the class's own
    maximisation oracle with ``i`` and ``j`` forced in or out by a large weight.
    """
    big = 4.0 * (float(np.abs(theta).sum()) + 1.0)
    maxima = np.full((len(pairs), len(_CASES)), -np.inf)
    for row, (i, j) in enumerate(pairs):
        for column, (inside_i, inside_j) in enumerate(_CASES):
            weights = theta.copy()
            weights[i] += big if inside_i else -big
            weights[j] += big if inside_j else -big
            member = problem.best(weights)
            if (i in member) == bool(inside_i) and (j in member) == bool(inside_j):
                maxima[row, column] = float(theta[list(member)].sum())
    return maxima


def _entry_distances(maxima: np.ndarray, optimum: float, epsilon: float, tolerance: float,
                     a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Smallest ``s >= 0`` with ``theta - s a e_i + s b e_j`` in the closure of ``Alt`` (inf if none).

    ``maxima`` has one row per pair (:func:`_case_maxima`); ``a`` and ``b`` one entry per
    direction; the result is (pairs, directions). Under the perturbation a member's value moves
    by ``s alpha_c``, ``alpha_c = -a [i in G] + b [j in G]``, which depends only on its case
    ``c``; the best correct member of a case is the case's maximiser when that one is correct
    (``>= optimum - epsilon``), so ``Alt`` is reached when some case whose maximiser is not
    correct beats every case whose maximiser is correct by ``epsilon``.
    """
    feasible = np.isfinite(maxima)
    correct = feasible & (maxima >= optimum - epsilon - tolerance)  # (P, 4)
    wrong = feasible & ~correct
    slopes = -np.outer(_CASES[:, 0], a) + np.outer(_CASES[:, 1], b)  # (4, D)
    rate = slopes[:, None, :] - slopes[None, :, :]  # (c, g, D)
    with np.errstate(invalid="ignore"):
        slack = np.where(feasible[:, None, :] & feasible[:, :, None],
                         maxima[:, None, :] - maxima[:, :, None] + epsilon, 0.0)  # (P, c, g)
    # (Almost) parallel directions never enter, or only far away: no alternative there.
    with np.errstate(divide="ignore", invalid="ignore"):
        needed = np.where(rate[None] > 1e-9, slack[..., None] / rate[None], np.inf)  # (P, c, g, D)
    needed = np.where(correct[:, None, :, None], needed, 0.0)
    needed = np.maximum(needed.max(axis=2), 0.0)  # (P, c, D)
    needed = np.where(wrong[:, :, None], needed, np.inf)
    return needed.min(axis=1)


def _relaxed_terms(p: np.ndarray, a, b, rows_i, rows_j) -> np.ndarray:
    """``a^2 p_i + b^2 p_j - (a p_i - b p_j)^2 - 2ab max(0, p_i + p_j - 1)`` (bounds ``Var(a x_i - b x_j)``)."""
    pi, pj = p[rows_i], p[rows_j]
    return a ** 2 * pi + b ** 2 * pj - (a * pi - b * pj) ** 2 - 2 * a * b * np.maximum(0.0, pi + pj - 1.0)


def _relaxation_certificate(p, nu, weight, a, b, index, pair_i, pair_j, k, kink_theta) -> float:
    """``1 / max_{0 <= p <= 1, sum p = k} l(p)`` for an affine ``l >= sum_r nu_r h_r``: a lower bound on ``T_eps``.

    ``h_r(p) = w_r (a^2 p_i + b^2 p_j - (a p_i - b p_j)^2 - 2ab max(0, p_i + p_j - 1))``. The
    smooth part is majorised by its tangent at ``p`` (it is concave), and ``-max(0, x)`` by
    ``-theta x`` for any ``theta in [0, 1]`` (chosen from the sign of ``x`` at ``p``, or from
    the solver's multiplier at the kink). A linear function's maximum over the polytope is the
    sum of its ``k`` largest coefficients (plus the constant).
    """
    n = len(p)
    rows_i, rows_j = pair_i[index], pair_j[index]
    pi, pj = p[rows_i], p[rows_j]
    w = nu * weight
    difference = a * pi - b * pj
    smooth = w * (a ** 2 * pi + b ** 2 * pj - difference ** 2)
    gradient = np.zeros(n)
    np.add.at(gradient, rows_i, w * (a ** 2 - 2 * a * difference))
    np.add.at(gradient, rows_j, w * (b ** 2 + 2 * b * difference))
    constant = float(smooth.sum() - gradient @ p)
    # Kink terms, one per pair: -W max(0, p_i + p_j - 1) <= -W theta (p_i + p_j - 1).
    W = np.zeros(len(pair_i))
    np.add.at(W, index, 2.0 * w * a * b)
    x = p[pair_i] + p[pair_j] - 1.0
    theta = (x > 0).astype(float)
    if kink_theta is not None:
        theta = np.where(np.abs(x) <= 1e-6, np.clip(kink_theta, 0.0, 1.0), theta)
    np.add.at(gradient, pair_i, -W * theta)
    np.add.at(gradient, pair_j, -W * theta)
    constant += float((W * theta).sum())
    bound = constant + float(np.sort(gradient)[::-1][:k].sum())
    return 1.0 / bound if bound > 0 else math.inf


def _relaxed(problem: DecisionClass, theta: np.ndarray, sigma: float, epsilon: float, angles: int,
             refinements: int, solver: str | None):
    """The relaxation of the module docstring, solved by cvxpy and certified by :func:`_relaxation_certificate`.

    Returns the certified lower value, the relaxation's value at the solver's marginals, the
    marginals, the number of programs solved and the solver's name.
    """
    import warnings

    import cvxpy as cp

    n, k = problem.n, problem.k
    best = problem.best(theta)
    optimum = float(theta[list(best)].sum())
    tolerance = _ROUNDING * max(1.0, float(np.abs(theta).sum()))
    outsiders = [j for j in range(n) if j not in best]
    pairs = [(i, j) for i in best for j in outsiders]
    pair_i = np.array([i for i, _ in pairs])
    pair_j = np.array([j for _, j in pairs])
    maxima = _case_maxima(problem, theta, pairs)

    def rows_for(pair_index: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """Rows (pair, a, b, s) for the given pairs and directions, finite entry distances only."""
        s = _entry_distances(maxima[pair_index], optimum, epsilon, tolerance, a, b)
        P, D = np.nonzero(np.isfinite(s))
        return np.column_stack([pair_index[P], a[D], b[D], s[P, D]])

    phi = np.linspace(0.0, math.pi / 2, angles)
    a0, b0 = np.cos(phi), np.sin(phi)
    a0[-1], b0[0] = 0.0, 0.0
    rows = rows_for(np.arange(len(pairs)), a0, b0)
    if len(rows) == 0:  # no alternative at all: every super-arm is epsilon-good
        return 0.0, 0.0, np.full(n, k / n), 0, "none"
    # Alternatives a thousand times farther than the nearest never bind; dropping them (fewer
    # alternatives) keeps the bound valid and the program well scaled.
    rows = rows[rows[:, 3] <= 1e3 * rows[:, 3].min()]
    every = rows  # all the alternatives considered: the relaxation's value is taken over them
    p_value = np.full(n, k / n)
    certified, name, iterations = 0.0, "none", 0
    points: list[np.ndarray] = []
    fine = np.linspace(0.0, math.pi / 2, 65)
    fine_a, fine_b = np.cos(fine), np.sin(fine)
    fine_a[-1], fine_b[0] = 0.0, 0.0
    while True:
        iterations += 1
        index = rows[:, 0].astype(int)
        a, b = rows[:, 1], rows[:, 2]
        weight = rows[:, 3] ** 2 / (2.0 * sigma ** 2)
        scaled = weight / float(weight.min())
        rows_i, rows_j = pair_i[index], pair_j[index]
        p = cp.Variable(n)
        m = cp.Variable(len(pairs), nonneg=True)
        t = cp.Variable()
        rows_constraint = t <= cp.multiply(scaled, cp.multiply(a ** 2, p[rows_i]) + cp.multiply(b ** 2, p[rows_j])
                                           - cp.square(cp.multiply(a, p[rows_i]) - cp.multiply(b, p[rows_j]))
                                           - cp.multiply(2.0 * a * b, m[index]))
        kink_constraint = m >= p[pair_i] + p[pair_j] - 1
        program = cp.Problem(cp.Maximize(t), [rows_constraint, p >= 0, p <= 1, cp.sum(p) == k, kink_constraint])
        with warnings.catch_warnings():  # an inaccurate solution is still certified below
            warnings.simplefilter("ignore")
            program.solve(solver=solver)
        if p.value is None or rows_constraint.dual_value is None:
            raise RuntimeError(f"cvxpy could not solve the relaxation (status {program.status!r})")
        name = program.solver_stats.solver_name
        p_value = np.asarray(p.value, dtype=float)
        nu = np.clip(np.asarray(rows_constraint.dual_value, dtype=float).ravel(), 0.0, None)
        if nu.sum() <= 0:
            nu = np.ones(len(rows))
        # Stationarity in m: at a kink, the multiplier of m >= p_i + p_j - 1 over the pair's
        # weight is the convex combination the solver used.
        kink_weight = np.zeros(len(pairs))
        np.add.at(kink_weight, index, nu * scaled * 2.0 * a * b)
        kink_theta = None
        if kink_constraint.dual_value is not None:
            kink_dual = np.clip(np.asarray(kink_constraint.dual_value, dtype=float).ravel(), 0.0, None)
            kink_theta = np.divide(kink_dual, kink_weight, out=np.zeros(len(pairs)), where=kink_weight > 0)
        certified = max(certified, _relaxation_certificate(p_value, nu / nu.sum(), weight, a, b, index,
                                                           pair_i, pair_j, k, kink_theta))
        feasible = np.clip(p_value, 0.0, 1.0)
        points.append(feasible)
        h = weight * _relaxed_terms(feasible, a, b, rows_i, rows_j)
        if iterations > refinements:
            break
        # Keep the rows that are nearly binding (fewer alternatives: still valid, smaller
        # programs) and add, for their pairs, the direction that is cheapest at p.
        rows = rows[h <= 3.0 * h.min()]
        close = np.unique(rows[:, 0].astype(int))
        s = _entry_distances(maxima[close], optimum, epsilon, tolerance, fine_a, fine_b)
        with np.errstate(invalid="ignore"):
            cost = s ** 2 * _relaxed_terms(feasible, fine_a[None, :], fine_b[None, :],
                                           pair_i[close][:, None], pair_j[close][:, None])
        cost = np.where(np.isfinite(s), cost, np.inf)
        cheapest = np.argmin(cost, axis=1)
        keep = np.isfinite(cost[np.arange(len(close)), cheapest])
        new = np.column_stack([close, fine_a[cheapest], fine_b[cheapest], s[np.arange(len(close)), cheapest]])
        rows = np.vstack([rows, new[keep]])
        every = np.vstack([every, new[keep]])
    # The relaxation's value over every alternative considered, at the best marginals found.
    every_index = every[:, 0].astype(int)
    values = [float((every[:, 3] ** 2 / (2.0 * sigma ** 2)
                     * _relaxed_terms(point, every[:, 1], every[:, 2], pair_i[every_index],
                                      pair_j[every_index])).min()) for point in points]
    chosen = int(np.argmax(values))
    relaxed_value = 1.0 / values[chosen] if values[chosen] > 0 else math.inf
    return certified, relaxed_value, points[chosen], iterations, name


# --- the public function ------------------------------------------------------------------------

def lower_bound(problem: DecisionClass, theta, sigma, *, delta=None, epsilon=0.0, method: str = "auto",
                tol: float = 1e-3, max_iter: int = 5000, limit: int = ENUMERATION_LIMIT,
                sdp_limit: int = SDP_LIMIT, solver: str | None = None, angles: int = 9,
                refinements: int = 2, easiest_answer: bool = False) -> LowerBound:
    """Instance-dependent lower bound on the expected number of pulls of any PAC algorithm.

    ``T_eps(theta) = min_lambda max_{B : Delta_B > epsilon} 2 sigma^2 ||x_M* - x_B||^2_{A(lambda)^-1}
    / (Delta_B + epsilon)^2`` when ``M*`` is the only ``epsilon``-good super-arm (Soare, Lazaric
    and Munos 2014 for ``epsilon = 0``), and in general the value derived in the module
    docstring; every ``(epsilon, delta)``-PAC algorithm needs ``E[pulls] >= T_eps(theta)
    log(1 / (2.4 delta))``.

    Parameters
    ----------
    problem : DecisionClass
        The decision class (e.g. ``TopK(n, k)``); every member may be pulled.
    theta : array_like of shape (n,)
        The arm means.
    sigma : float
        Standard deviation of the Gaussian noise on the observed sum, ``> 0``.
    delta : float, optional
        Confidence level in ``(0, 1)``; when given, ``samples = T_star log(1 / (2.4 delta))``.
    epsilon : float
        Tolerance ``>= 0``: the algorithm may return any ``M`` with ``Delta_M <= epsilon``.
    method : {"auto", "cutting-plane", "sdp", "relaxed"}
        ``"cutting-plane"``: exact, enumerates the class (Kelley's cutting planes on the
        design, linear programs by HiGHS, certified by the dual weights).
        ``"sdp"``: exact, cvxpy (one semidefinite block per alternative), classes up to
        ``sdp_limit``; a cross-check.
        ``"relaxed"``: certified lower bound for classes of any size.
        ``"auto"``: cutting planes when the class is enumerable (size ``<= limit``), else the
        relaxation.
    tol : float
        Relative duality gap ``(upper - T_star) / upper`` at which the cutting planes stop.
    max_iter : int
        Largest number of cutting-plane iterations (the bound returned is certified anyway).
    limit : int
        Largest class size enumerated (default :data:`fullbandit.util.enumeration.ENUMERATION_LIMIT`).
    sdp_limit : int
        Largest class size the cvxpy method accepts (default :data:`SDP_LIMIT`).
    solver : str, optional
        cvxpy solver name for ``"sdp"`` and ``"relaxed"`` (default: CLARABEL for ``"sdp"``,
        cvxpy's choice for ``"relaxed"``).
    angles : int
        Directions ``(a, b)`` per pair of arms in the relaxation, ``>= 2``.
    refinements : int
        Rounds in which the relaxation adds the cheapest direction of each nearly binding pair.
    easiest_answer : bool
        Exact methods with several correct answers: also compute ``T_easiest``, the
        characteristic time of the easiest single correct answer (module docstring; one
        cutting-plane solve per correct answer). With one correct answer it is ``T_star``
        whatever this says.

    Returns
    -------
    LowerBound

    Raises
    ------
    InvalidParameterError
        If an argument is out of range, or the class is too large for the method asked for.
    TypeError
        If ``problem`` is not a :class:`~fullbandit.problems.classes.DecisionClass` or a number is not one.

    Examples
    --------
    Top-2 of 4 arms, exact; the relaxation is a smaller (certified) lower bound:

    >>> from fullbandit.analysis.sample_complexity import lower_bound
    >>> from fullbandit.problems.classes import TopK
    >>> theta = [1.0, 0.8, 0.3, 0.0]
    >>> exact = lower_bound(TopK(4, 2), theta, 0.5, delta=0.05)
    >>> exact.method, exact.exact, exact.gap <= 1e-3
    ('cutting-plane', True, True)
    >>> relaxed = lower_bound(TopK(4, 2), theta, 0.5, method="relaxed")
    >>> relaxed.T_star <= exact.T_star, relaxed.exact
    (True, False)

    With ties at the top, ``epsilon = 0`` bounds algorithms that return one of the optimal
    super-arms; cvxpy agrees with the cutting planes:

    >>> tied = lower_bound(TopK(4, 2), [1.0, 0.5, 0.5, 0.0], 0.5)
    >>> tied.n_correct, round(tied.T_star, 2)
    (2, 8.0)
    >>> round(lower_bound(TopK(4, 2), [1.0, 0.5, 0.5, 0.0], 0.5, method="sdp").T_star, 2)
    8.0

    Every algorithm pays for settling on one answer as ``delta -> 0``: with ``epsilon = 0.1`` both
    ``(0, 1)`` and ``(0, 2)`` are correct, and the easiest of them alone costs 16 times ``T_star``
    (between the two exactly tied teams above, no single one can ever be certified):

    >>> easiest = lower_bound(TopK(4, 2), [1.0, 0.5, 0.45, 0.0], 0.5, epsilon=0.1, easiest_answer=True)
    >>> easiest.n_correct, easiest.easiest, round(easiest.T_easiest / easiest.T_star)
    (2, (0, 1), 16)
    >>> lower_bound(TopK(4, 2), [1.0, 0.5, 0.5, 0.0], 0.5, easiest_answer=True).T_easiest
    inf
    """
    started = time.perf_counter()
    if not isinstance(problem, DecisionClass):
        raise TypeError(f"problem must be a DecisionClass such as TopK(n, k), got {type(problem).__name__}")
    theta = check_vector("theta", theta, length=problem.n)
    sigma = check_real("sigma", sigma, low=0.0, low_inclusive=False)
    if delta is not None:
        delta = check_probability("delta", delta)
    epsilon = check_real("epsilon", epsilon, low=0.0)
    method = check_choice("method", method, METHODS)
    tol = check_real("tol", tol, low=0.0, low_inclusive=False, high=1.0)
    max_iter = check_int("max_iter", max_iter, low=1)
    limit = check_int("limit", limit, low=1)
    sdp_limit = check_int("sdp_limit", sdp_limit, low=1)
    angles = check_int("angles", angles, low=2)
    refinements = check_int("refinements", refinements, low=0)
    if not isinstance(easiest_answer, bool):
        raise TypeError(f"easiest_answer must be True or False, got {easiest_answer!r}")
    if solver is not None and not isinstance(solver, str):
        raise TypeError(f"solver must be a cvxpy solver name or None, got {solver!r}")
    best = tuple(problem.best(theta))
    size = problem.size

    if method == "auto":
        method = "cutting-plane" if size <= limit else "relaxed"
    if method in ("cutting-plane", "sdp"):
        if method == "sdp" and size > sdp_limit:
            raise InvalidParameterError(
                f"method='sdp' has one semidefinite block per super-arm: {size} super-arms > sdp_limit={sdp_limit}; "
                "use method='cutting-plane' or 'relaxed', or raise sdp_limit")
        instance = _enumerate(problem, theta, epsilon, limit)
        bound = _exact(problem, instance, theta, sigma, delta, epsilon, method, tol, max_iter, solver, best, started)
        if len(instance.good) == 1:
            return replace(bound, T_easiest=bound.T_star, easiest=best)
        if easiest_answer:
            value, answer = _easiest_answer(instance, sigma, epsilon, tol, max_iter)
            return replace(bound, T_easiest=value, easiest=answer, seconds=time.perf_counter() - started)
        return bound

    certified, relaxed_value, p_value, iterations, name = _relaxed(problem, theta, sigma, epsilon, angles,
                                                                   refinements, solver)
    gap = (relaxed_value - certified) / relaxed_value if math.isfinite(relaxed_value) and relaxed_value > 0 else 0.0
    return LowerBound(T_star=certified, upper=relaxed_value, gap=max(gap, 0.0), exact=False, design=(),
                      marginals=tuple(float(x) for x in np.clip(p_value, 0.0, 1.0)),
                      samples=_samples(certified, delta), delta=delta, epsilon=epsilon, sigma=sigma, best=best,
                      n_correct=None, method="relaxed", iterations=iterations, solver=name,
                      seconds=time.perf_counter() - started)


def _single_answer(inst: _Instance, answer: int) -> _Instance:
    """The instance of answer ``inst.members[answer]`` alone: every other super-arm is an alternative, its margin
    ``theta(G) - theta(B) + epsilon`` (``gaps`` measured from ``G``, negative for better super-arms)."""
    gaps = inst.gaps - inst.gaps[answer]  # theta(G) - theta(B)
    others = np.flatnonzero(np.arange(len(inst.members)) != answer)
    return _Instance(inst.members, inst.X, inst.Z, answer, gaps, np.array([answer]), others)


def _easiest_answer(inst: _Instance, sigma: float, epsilon: float, tol: float,
                    max_iter: int) -> tuple[float, SuperArm | None]:
    """``min_G T_G`` over the correct answers (certified lower values of each cutting-plane solve) and its ``G``.

    An answer whose margin to some super-arm is 0 (its gap is exactly ``epsilon``) has an alternative at
    distance 0 for every design: ``T_G`` is infinite and it is skipped.
    """
    values = {}
    for answer in inst.good.tolist():
        single = _single_answer(inst, answer)
        if np.any(single.gaps[single.bad] + epsilon <= _ROUNDING * max(1.0, float(np.abs(single.gaps).max()))):
            continue
        values[answer] = _cutting_plane(single, sigma, epsilon, tol, max_iter)[2]
    if not values:
        return math.inf, None
    answer = min(values, key=values.__getitem__)
    return values[answer], inst.members[answer]


def _samples(T: float, delta: float | None) -> float | None:
    if delta is None:
        return None
    return max(0.0, T * math.log(1.0 / (2.4 * delta)))


def _exact(problem, inst: _Instance, theta, sigma, delta, epsilon, method, tol, max_iter, solver, best, started):
    n = problem.n
    if len(inst.bad) == 0:  # every super-arm is correct: nothing to learn
        lam = np.zeros(len(inst.members))
        lam[inst.star] = 1.0
        _, design = _design(inst, lam)
        return LowerBound(T_star=0.0, upper=0.0, gap=0.0, exact=True, design=design,
                          marginals=tuple(float(x) for x in inst.X[inst.star]), samples=_samples(0.0, delta),
                          delta=delta, epsilon=epsilon, sigma=sigma, best=best, n_correct=len(inst.good),
                          method=method, iterations=0, solver="none", seconds=time.perf_counter() - started)
    if method == "cutting-plane":
        lam, _, lower, iterations = _cutting_plane(inst, sigma, epsilon, tol, max_iter)
        lam, design, values = _sparsest(inst, lam, sigma, epsilon, tol)
        upper = float(values.max())
        name = "highs"
    else:
        lam, mus, name, iterations = _sdp(inst, sigma, epsilon, solver)
        lam, design = _design(inst, lam)
        upper, lower = _general_bounds(inst, lam, mus, sigma, epsilon)
        iterations = int(iterations or 0)
    lower = min(lower, upper)
    gap = (upper - lower) / upper if math.isfinite(upper) and upper > 0 else math.inf
    marginals = inst.X.T @ lam
    return LowerBound(T_star=lower, upper=upper, gap=gap, exact=True, design=design,
                      marginals=tuple(float(x) for x in marginals[:n]), samples=_samples(lower, delta), delta=delta,
                      epsilon=epsilon, sigma=sigma, best=best, n_correct=len(inst.good), method=method,
                      iterations=iterations, solver=name, seconds=time.perf_counter() - started)
