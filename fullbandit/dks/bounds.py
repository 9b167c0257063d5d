"""Certified upper bounds on the densest-k-subgraph optimum.

For a simple undirected graph with non-negative edge weights ``W`` (zero diagonal) and
``1 <= k <= n``, every function here returns a number ``B`` with

    ``OPT_k = max_{|S| = k} w(S) <= B``,      ``w(S) = sum_{i < j in S} W_ij``,

so that ``w(S_alg) / B`` is a certified lower bound on the approximation ratio an oracle
reached on this instance (:func:`certified_ratio`), even when ``OPT_k`` is out of reach.

"Certified" is meant literally: each bound is proven below, and the floating-point
computation of each is rounded *up* by a margin covering the rounding of the sums it
adds (for a sum of ``m`` non-negative terms the computed value is within a factor
``1 +- m u / (1 - m u)`` of the exact one, ``u`` the unit roundoff), so the returned
``float`` is above the mathematical bound. The margins are ``O(n u)`` relative, far below
anything a user can see. Diagonal entries of ``W`` (self-loops) are ignored throughout.

==========  ==================================================  ====================
name        bound                                               cost
==========  ==================================================  ====================
spectral    ``k lambda_max(W) / 2``                             a few sparse mat-vecs
degree      ``sum of k largest min(d_i, top_{k-1}(W_i)) / 2``   ``O(nnz log nnz)``
edge        sum of the ``C(k, 2)`` heaviest edges               ``O(nnz)``
sdp         semidefinite relaxation, certified dual             cvxpy; ``n <= 200``
==========  ==================================================  ====================
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Mapping

import numpy as np
import scipy.sparse as sp

from fullbandit.dks.weights import WeightMatrix, check_graph, check_weight_matrix, graph_weights
from fullbandit.util.validation import InvalidParameterError, check_choice, check_int, check_real

__all__ = ["spectral_bound", "degree_bound", "edge_bound", "sdp_bound", "bound", "bound_matrix",
           "certified_ratio", "BOUNDS", "SDP_MAX_N", "SDP_AUTO_MAX_N"]

_EPS = float(np.finfo(float).eps)  # 2 u: every margin below is a multiple of it

BOUNDS = ("spectral", "degree", "edge", "sdp")  # every bound by name, cheapest first
SDP_MAX_N = 200  # sdp_bound refuses larger graphs unless max_n is raised
SDP_AUTO_MAX_N = 25  # bound()/bound_matrix() include "sdp" by default up to this many vertices
_DENSE_EIGEN_MAX_N = 1000  # components up to this size: LAPACK eigh; above: ARPACK eigsh
_SMOOTHING_STEPS = 32  # at most this many shifted power steps polishing the Collatz-Wielandt vector
_SPARSE_SOLVE_MAX_N = 20_000  # sparse components up to this size may get the M-matrix certificate
_CLARABEL_MAX_N = 25  # default SDP solver: Clarabel (accurate) up to here, SCS (fast) above


# --- input handling --------------------------------------------------------------------------

def _validated(W, k) -> tuple[WeightMatrix, int]:
    weights = check_weight_matrix(W)
    return weights, check_int("k", k, low=1, high=weights.n)


def _round_up(value: float, terms: int) -> float:
    """``value`` (a float sum of ``terms`` non-negative numbers) raised above the exact sum."""
    return float(value) * (1.0 + (terms + 4) * _EPS)


def _max_degree_terms(W) -> int:
    """The largest number of non-zero entries in a row: the length of each degree sum."""
    if sp.issparse(W):
        return int(np.diff(W.indptr).max(initial=0))
    return int(np.count_nonzero(W, axis=1).max(initial=0))


def _row_sums(W) -> np.ndarray:
    return np.asarray(W.sum(axis=1)).ravel()


# --- spectral ---------------------------------------------------------------------------------

def spectral_bound(W, k: int) -> float:
    """``OPT_k <= k lambda_max(W) / 2``, with a rigorous upper estimate of ``lambda_max``.

    Parameters
    ----------
    W : array_like, scipy sparse matrix or WeightMatrix of shape (n, n)
        Symmetric, non-negative off the diagonal (the diagonal is ignored).
    k : int
        Subset size, ``1 <= k <= n``.

    Returns
    -------
    float
        An upper bound on ``max_{|S|=k} w(S)``.

    Raises
    ------
    ValueError
        If ``W`` is not a valid weight matrix or ``k`` is out of range.

    Notes
    -----
    *Bound.* Let ``x`` be the indicator of ``S``, ``|S| = k``. With a zero diagonal,
    ``x^T W x = sum_{i != j in S} W_ij = 2 w(S)``, and ``x^T W x <= lambda_max(W) ||x||^2
    = k lambda_max(W)`` (Rayleigh), so ``w(S) <= k lambda_max(W) / 2``. Tight exactly when
    a ``k``-subset's indicator is a top eigenvector, e.g. an equal-weight ``k``-clique
    component that carries the largest eigenvalue.

    *Rigour.* An eigensolver (LAPACK or ARPACK) returns an approximation of
    ``lambda_max`` that may fall slightly *below* it, and a single Ritz pair ``(theta, v)``
    with residual ``r`` only says that *some* eigenvalue lies within ``||r||`` of
    ``theta``, not that none lies above. We therefore use the eigenvector only as a
    *guess* and certify with the Collatz-Wielandt inequality: for a non-negative matrix
    ``A`` and any entrywise positive vector ``v``,

        rho(A) <= max_i (A v)_i / v_i,

    because ``D^{-1} A D`` (``D = diag(v)``) is similar to ``A`` and has row sums
    ``(A v)_i / v_i``, which bound its spectral radius; and ``lambda_max(W) = rho(W)`` for
    symmetric non-negative ``W`` (Perron-Frobenius). Any positive ``v`` gives a valid
    bound, whatever its accuracy; the Perron vector makes it tight. Per connected component
    (``lambda_max`` is the largest over components, and the Perron vector of a connected
    component is strictly positive):

    1. a guess ``(theta, v)``: LAPACK ``eigh`` (components up to 1000 vertices) or ARPACK
       ``eigsh`` (larger ones); ``|v|`` floored at a tiny positive value;
    2. up to 32 shifted power steps ``v <- (W + theta/8 I) v``, which keep ``v`` positive and
       make its small entries accurate relative to themselves (the maximal ratio is
       non-increasing along them); every iterate is checked, the smallest bound kept;
    3. if that is not within a relative ``1e-9`` of ``theta`` (a Perron vector localised on
       a dense part, with entries below the guess's absolute accuracy, e.g. a clique with
       a long tail): ``v = (mu I - W)^{-1} 1`` for ``mu = theta (1 + delta)``,
       ``delta = 1e-10, 1e-7, ...``. When ``mu > lambda_max``, ``mu I - W`` is a non-singular
       M-matrix, so ``v >= 1/mu > 0`` and ``W v = mu v - 1 < mu v``: the bound is ``mu``
       (dense solve, or sparse LU up to 20000 vertices);
    4. the maximum weighted degree (``v = 1``) when it is smaller (e.g. ARPACK failed).

    Only the Collatz-Wielandt ratio of the final computed ``v`` is relied upon, rounded up
    by ``2 (d + 4) eps`` relative for the rounding of the row sums ``(W v)_i`` (``d`` the
    largest number of non-zeros in a row). In practice the result exceeds
    ``lambda_max`` by a relative ``1e-12`` or so.

    Examples
    --------
    >>> import numpy as np
    >>> K4 = np.ones((4, 4)) - np.eye(4)   # lambda_max = 3
    >>> round(spectral_bound(K4, 4), 9)    # OPT = 6 edges, tight
    6.0
    """
    weights, k = _validated(W, k)
    W = weights.matrix
    if k == 1:
        return 0.0
    return _round_up(k * _lambda_max_upper(W) / 2.0, 2)


def _lambda_max_upper(W) -> float:
    """A certified upper bound on ``lambda_max`` of a validated zero-diagonal non-negative ``W``."""
    from scipy.sparse.csgraph import connected_components

    n = W.shape[0]
    if n == 0:
        return 0.0
    A = W if sp.issparse(W) else sp.csr_array(W)
    if A.nnz == 0:
        return 0.0
    count, labels = connected_components(A, directed=False)
    order = np.argsort(labels, kind="stable")
    starts = np.searchsorted(labels[order], np.arange(count + 1))
    best = 0.0
    for c in range(count):
        members = order[starts[c]:starts[c + 1]]
        if members.size < 2:
            continue
        block = A[members][:, members] if sp.issparse(W) else W[np.ix_(members, members)]
        best = max(best, _component_lambda_upper(block))
    return best


def _component_lambda_upper(B) -> float:
    """Collatz-Wielandt bound on ``lambda_max`` of one connected component ``B`` (dense or CSR)."""
    terms = _max_degree_terms(B)
    margin = 1.0 + 2.0 * (terms + 4) * _EPS  # the row sums (W v)_i and the division
    best = float(_row_sums(B).max()) * (1.0 + (terms + 4) * _EPS)  # v = 1: the max degree
    theta, v = _perron_guess(B)
    if v is None or not np.all(np.isfinite(v)) or not np.abs(v).max() > 0:
        return best
    theta = max(float(theta), 0.0)
    # 1. the eigenvector guess, polished by shifted power steps (the ratio's max is
    #    non-increasing along them; every iterate certifies, so keep the smallest)
    v = np.maximum(np.abs(v) / np.abs(v).max(), 1e-300)
    previous = np.inf
    for _ in range(_SMOOTHING_STEPS + 1):
        Bv = np.asarray(B @ v).ravel()
        ratio = _collatz_wielandt(Bv, v, margin)
        best = min(best, ratio)
        if not ratio < previous * (1.0 - 1e-13):  # stopped improving
            break
        previous = ratio
        v = Bv + (theta / 8.0) * v
        v /= v.max()
        v = np.maximum(v, 1e-300)
    if best <= theta * (1.0 + 1e-9):
        return best
    # 2. a localised Perron vector (entries decaying below the guess's absolute accuracy):
    #    v = (lam I - B)^{-1} 1 for lam slightly above theta. If lam > lambda_max, lam I - B
    #    is a non-singular M-matrix, so v >= 1/lam > 0 entrywise and B v = lam v - 1 < lam v.
    #    Only the final Collatz-Wielandt check on the computed v is relied upon.
    if sp.issparse(B) and B.shape[0] > _SPARSE_SOLVE_MAX_N:
        return best
    for delta in (1e-10, 1e-7, 1e-4, 1e-2):
        target = theta * (1.0 + delta) + 1e-300
        if target >= best:
            break
        v = _shifted_solve(B, target)
        if v is None or not np.all(v > 0):
            continue
        ratio = _collatz_wielandt(np.asarray(B @ v).ravel(), v, margin)
        best = min(best, ratio)
        if ratio <= target * (1.0 + 1e-12):
            break
    return best


def _collatz_wielandt(Bv, v, margin) -> float:
    """``max_i (B v)_i / v_i`` rounded up (``inf`` if not finite)."""
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        ratio = float(np.max(Bv / v)) * margin
    return ratio if np.isfinite(ratio) else np.inf


def _shifted_solve(B, target):
    """``(target I - B)^{-1} 1`` (dense LAPACK or sparse LU), or ``None`` if the solve fails."""
    m = B.shape[0]
    try:
        if sp.issparse(B):
            from scipy.sparse.linalg import splu
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return splu(sp.csc_matrix(target * sp.eye(m) - B)).solve(np.ones(m))
        return np.linalg.solve(target * np.eye(m) - B, np.ones(m))
    except (np.linalg.LinAlgError, RuntimeError, ValueError):
        return None


def _perron_guess(B):
    """An approximate top eigenpair ``(theta, v)`` of a component; ``(0, None)`` on failure."""
    m = B.shape[0]
    if m <= _DENSE_EIGEN_MAX_N:
        dense = B.toarray() if sp.issparse(B) else B
        from scipy.linalg import eigh
        values, vectors = eigh(dense, subset_by_index=[m - 1, m - 1])
        return float(values[-1]), vectors[:, -1]
    from scipy.sparse.linalg import ArpackError, ArpackNoConvergence, eigsh
    try:
        values, vectors = eigsh(B, k=1, which="LA", tol=1e-10, v0=np.ones(m))
    except ArpackNoConvergence as failure:
        if failure.eigenvalues.size:
            return float(failure.eigenvalues[-1]), failure.eigenvectors[:, -1]
        return 0.0, None
    except ArpackError:
        return 0.0, None
    return float(values[-1]), vectors[:, -1]


# --- degree and edge ---------------------------------------------------------------------------

def degree_bound(W, k: int) -> float:
    """``OPT_k <= (sum of the k largest c_i) / 2``, ``c_i = min(d_i, sum of the k-1 largest W_ij)``.

    Parameters
    ----------
    W : array_like, scipy sparse matrix or WeightMatrix of shape (n, n)
        Symmetric, non-negative off the diagonal (the diagonal is ignored).
    k : int
        Subset size, ``1 <= k <= n``.

    Returns
    -------
    float
        An upper bound on ``max_{|S|=k} w(S)``.

    Notes
    -----
    ``2 w(S) = sum_{i in S} w(i, S - i)``. A member ``i`` has at most ``k - 1`` neighbours in
    ``S``, so ``w(i, S - i)`` is at most the sum of the ``k - 1`` heaviest weights in row ``i``,
    and at most its weighted degree ``d_i``; hence at most ``c_i``, and the ``k`` members
    contribute at most the ``k`` largest ``c_i``. (With non-negative weights the first
    term never exceeds ``d_i``; the ``min`` is kept as specified.) Tight, e.g., on disjoint
    equal-weight ``k``-cliques and on a star (centre plus ``k - 1`` leaves).

    Examples
    --------
    >>> import numpy as np
    >>> star = np.zeros((5, 5)); star[0, 1:] = star[1:, 0] = 1.0
    >>> round(degree_bound(star, 3), 9)    # OPT = 2: the centre and two leaves
    2.0
    """
    weights, k = _validated(W, k)
    W = weights.matrix
    if k == 1:
        return 0.0
    n = W.shape[0]
    degrees = _row_sums(W)
    if sp.issparse(W):
        rows = np.repeat(np.arange(n), np.diff(W.indptr))
        order = np.lexsort((-W.data, rows))  # by row, heaviest first within a row
        rank = np.arange(order.size) - W.indptr[rows[order]]
        keep = order[rank < k - 1]
        heaviest = np.bincount(rows[keep], weights=W.data[keep], minlength=n)
    elif k - 1 >= n - 1:
        heaviest = degrees
    else:
        heaviest = np.partition(W, n - (k - 1), axis=1)[:, n - (k - 1):].sum(axis=1)
    capped = np.minimum(degrees, heaviest)
    top = np.partition(capped, n - k)[n - k:] if k < n else capped
    terms = _max_degree_terms(W) + k
    return _round_up(float(top.sum()) / 2.0, terms)


def edge_bound(W, k: int) -> float:
    """``OPT_k <=`` the sum of the ``C(k, 2)`` heaviest edge weights.

    Parameters
    ----------
    W : array_like, scipy sparse matrix or WeightMatrix of shape (n, n)
        Symmetric, non-negative off the diagonal (the diagonal is ignored).
    k : int
        Subset size, ``1 <= k <= n``.

    Returns
    -------
    float
        An upper bound on ``max_{|S|=k} w(S)``.

    Notes
    -----
    ``S`` spans ``C(k, 2)`` vertex pairs; their weights are ``C(k, 2)`` distinct entries of
    the upper triangle, so their sum is at most the sum of the ``C(k, 2)`` largest ones
    (all of them, when the graph has fewer edges). Tight on an equal-weight complete graph.

    Examples
    --------
    >>> import numpy as np
    >>> K5 = np.ones((5, 5)) - np.eye(5)
    >>> round(edge_bound(K5, 3), 9)        # three edges of weight 1: tight
    3.0
    """
    weights, k = _validated(W, k)
    W = weights.matrix
    pairs = math.comb(k, 2)
    if pairs == 0:
        return 0.0
    if sp.issparse(W):
        edges = sp.triu(W, k=1, format="csr").data
    else:
        edges = W[np.triu_indices(W.shape[0], 1)]
    edges = edges[edges > 0]
    if edges.size > pairs:
        edges = np.partition(edges, edges.size - pairs)[edges.size - pairs:]
    return _round_up(float(edges.sum()), min(pairs, edges.size))


# --- semidefinite relaxation -------------------------------------------------------------------

def sdp_bound(W, k: int, solver: str | None = None, *, max_n: int = SDP_MAX_N,
              solver_options: dict | None = None) -> float:
    """The semidefinite relaxation of DkS, certified from the solver's dual multipliers.

    Parameters
    ----------
    W : array_like, scipy sparse matrix or WeightMatrix of shape (n, n)
        Symmetric, non-negative off the diagonal (the diagonal is ignored).
    k : int
        Subset size, ``1 <= k <= n``.
    solver : str, optional
        A cvxpy solver name able to solve SDPs (``"CLARABEL"``, ``"SCS"``, ...). Default:
        Clarabel (interior point, accurate) for ``n <= 25``, SCS (first order, much faster
        on larger graphs: 0.3 s against 5 s at ``n = 40``) above, whichever of the two is
        installed.
    max_n : int
        Refuse graphs with more vertices (the relaxation has ``O(n^2)`` variables and
        constraints and an ``(n+1) x (n+1)`` semidefinite block). Default 200.
    solver_options : dict, optional
        Passed to ``cvxpy.Problem.solve`` (e.g. ``{"eps": 1e-7}`` for SCS).

    Returns
    -------
    float
        A certified upper bound on ``max_{|S|=k} w(S)``, at least the relaxation's value.

    Raises
    ------
    ValueError
        If ``W``/``k`` are invalid, ``n > max_n``, or ``solver`` is not installed.
    RuntimeError
        If the solver returns no dual multipliers.

    Notes
    -----
    *Relaxation.* With ``C = [[0, 0], [0, W/2]]`` and ``M = [[1, x^T], [x, X]]``,

        max <C, M>  s.t.  M PSD,  M_00 = 1,  diag(X) = x,  sum(x) = k,  X 1 = k x,
                          0 <= X <= 1  (entrywise).

    For ``|S| = k`` with indicator ``x``, ``M = (1, x)(1, x)^T`` is feasible with value
    ``x^T W x / 2 = w(S)``; so the relaxation's optimum is ``>= OPT_k``. It is ``<=`` the
    :func:`edge_bound` (``sum_{i<j} X_ij = C(k, 2)`` with ``0 <= X_ij <= 1``) and
    ``<=`` ``k lambda_max(W) / 2`` (``X`` is PSD with trace ``k``).

    *Certificate (weak duality, for any multipliers).* Let ``t, s`` be scalars, ``u, r``
    vectors and ``R`` a symmetric matrix (multipliers of ``M_00 = 1``, ``sum(x) = k``,
    ``X_ii - x_i = 0``, ``sum_j X_ij - k x_i = 0`` and of the box ``0 <= X <= 1``, split as
    ``R = P - N`` with ``P = max(R, 0)``, ``N = max(-R, 0)``), and

        S = t E_00 + sum_l y_l A_l + [[0, 0], [0, R]] - C,

    i.e. ``S_00 = t``, ``S_0i = (s - u_i - k r_i) / 2``,
    ``S_ij = u_i [i = j] + (r_i + r_j) / 2 + R_ij - W_ij / 2``. For every feasible ``M``,
    adding ``y_l (b_l - <A_l, M>) = 0``, ``<P, J - X> >= 0`` and ``<N, X> >= 0`` to the
    objective gives

        <C, M> <= t + k s + sum(P) - <S, M> <= t + k s + sum(P) - (k + 1) lambda_min(S),

    since ``<S, M> >= lambda_min(S) trace(M)`` for ``M`` PSD and ``trace(M) = 1 + sum(x) =
    k + 1`` *exactly* on the feasible set. This holds for **any** ``(t, s, u, r, R)``, dual
    feasible or not: we take the multipliers the solver reports (its dual solution, with
    cvxpy's sign convention, checked by the tests) and pay for their infeasibility through
    ``lambda_min(S) < 0``. So an inexact solve (SCS stops at ``1e-4`` residuals) can only
    loosen the bound, never invalidate it. Rounding is covered as well: ``lambda_min`` is
    taken from LAPACK ``eigvalsh`` and lowered by ``16 (n + 2) eps ||S||_F`` plus the
    rounding of forming ``S`` (backward stability: the computed eigenvalues are exact for a
    perturbation of ``S`` of norm ``O(n eps ||S||)``), and the sum ``t + k s + sum(P)`` is
    rounded up.

    References
    ----------
    C. Jansson, D. Chaykin, C. Keil. Rigorous error bounds for the optimal value in
    semidefinite programming. SIAM J. Numer. Anal. 46(1), 2007 (the bounded-trace
    certificate). A. Srivastav, K. Wolf. Finding dense subgraphs with semidefinite
    programming. APPROX 1998 (SDP relaxations of DkS).

    Examples
    --------
    >>> import numpy as np
    >>> W = np.zeros((6, 6)); W[:3, :3] = 1.0 - np.eye(3)   # a triangle and three isolated vertices
    >>> value = sdp_bound(W, 3)
    >>> 3.0 <= value < 3.0 + 1e-5                           # OPT = 3: the relaxation is tight
    True
    """
    weights, k = _validated(W, k)
    n = weights.n
    max_n = check_int("max_n", max_n, low=1)
    if n > max_n:
        raise InvalidParameterError(
            f"sdp_bound on n={n} vertices exceeds max_n={max_n}: the relaxation has an "
            f"(n+1) x (n+1) semidefinite block and O(n^2) constraints; raise max_n to force it")
    W = weights.toarray()
    if k == 1 or not np.any(W > 0):
        return 0.0
    if k == n:  # the relaxation is exact: x = 1 forces X = J
        return _round_up(float(np.triu(W, 1).sum()), n * n)
    solver = _choose_solver(solver, n)
    multipliers = _solve_relaxation(W, k, solver, dict(solver_options or {}))
    return _certify(W, k, *multipliers)


def _choose_solver(solver, n: int) -> str:
    import cvxpy as cp
    installed = cp.installed_solvers()
    if solver is None:
        preferred = ["CLARABEL", "SCS"] if n <= _CLARABEL_MAX_N else ["SCS", "CLARABEL"]
        for name in preferred:
            if name in installed:
                return name
        raise InvalidParameterError(
            f"solver=None: neither CLARABEL nor SCS is installed (installed: {', '.join(installed)}); "
            "pass an SDP-capable cvxpy solver name")
    if not isinstance(solver, str):
        raise TypeError(f"solver must be a cvxpy solver name (str) or None, got {solver!r}")
    return check_choice("solver", solver.upper(), installed)


def _solve_relaxation(W, k, solver, options):
    """Solve the primal relaxation; return the multipliers ``(t, s, u, r, R)`` it reports."""
    import cvxpy as cp
    n = W.shape[0]
    M = cp.Variable((n + 1, n + 1), symmetric=True)
    x, X = M[0, 1:], M[1:, 1:]
    constraints = [
        M[0, 0] == 1,                      # t
        cp.sum(x) == k,                    # s
        cp.diag(X) == x,                   # u
        cp.sum(X, axis=1) == k * x,        # r
        X >= 0,                            # N
        X <= 1,                            # P
        M >> 0,
    ]
    problem = cp.Problem(cp.Maximize(cp.sum(cp.multiply(W, X)) / 2.0), constraints)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # "solution may be inaccurate": we certify anyway
            problem.solve(solver=solver, **options)
    except cp.error.SolverError as failure:
        raise RuntimeError(f"sdp_bound: solver={solver!r} failed: {failure}") from failure
    duals = [c.dual_value for c in constraints[:6]]
    if any(d is None for d in duals):
        raise RuntimeError(f"sdp_bound: solver={solver!r} returned no dual solution "
                           f"(status {problem.status!r}); try another solver")
    t, s, u, r, N, P = (np.asarray(d, dtype=float) for d in duals)
    if not all(np.all(np.isfinite(d)) for d in (t, s, u, r, N, P)):
        raise RuntimeError(f"sdp_bound: solver={solver!r} returned non-finite duals (status {problem.status!r})")
    R = P - N
    return float(t), float(s), u.ravel(), r.ravel(), (R + R.T) / 2.0


def _certify(W, k, t, s, u, r, R) -> float:
    """``t + k s + sum(max(R, 0)) - (k + 1) lambda_min(S)``, rounded up: valid for any inputs."""
    n = W.shape[0]
    S = np.empty((n + 1, n + 1))
    S[0, 0] = t
    off = (s - u - k * r) / 2.0
    S[0, 1:] = off
    S[1:, 0] = off
    S[1:, 1:] = (r[:, None] + r[None, :]) / 2.0 + R - W / 2.0
    S[1:, 1:][np.diag_indices(n)] += u
    # entrywise magnitudes of the terms forming S: the rounding of each entry is a few eps of it
    size = np.empty((n + 1, n + 1))
    size[0, 0] = abs(t)
    off_size = (abs(s) + np.abs(u) + k * np.abs(r)) / 2.0
    size[0, 1:] = off_size
    size[1:, 0] = off_size
    size[1:, 1:] = (np.abs(r)[:, None] + np.abs(r)[None, :]) / 2.0 + np.abs(R) + W / 2.0
    size[1:, 1:][np.diag_indices(n)] += np.abs(u)
    lam = float(np.linalg.eigvalsh(S)[0])
    lam -= 16.0 * (n + 2) * _EPS * (np.linalg.norm(S) + np.linalg.norm(size))
    positive = np.maximum(R, 0.0)
    value = t + k * s + float(positive.sum()) - (k + 1) * lam
    magnitude = abs(t) + k * abs(s) + float(positive.sum()) + (k + 1) * abs(lam)
    return float(value + (n * n + 8) * _EPS * magnitude)


# --- front ends ----------------------------------------------------------------------------------

_CHEAP = {"spectral": spectral_bound, "degree": degree_bound, "edge": edge_bound}


def bound_matrix(W, k: int, methods: Iterable[str] | str | None = None) -> dict[str, float]:
    """Certified upper bounds on ``max_{|S|=k} w(S)`` for a weight matrix, by name.

    Parameters
    ----------
    W : array_like, scipy sparse matrix or WeightMatrix of shape (n, n)
        Symmetric, non-negative off the diagonal (the diagonal is ignored).
    k : int
        Subset size, ``1 <= k <= n``.
    methods : str or iterable of str, optional
        Names among :data:`BOUNDS` (``"spectral"``, ``"degree"``, ``"edge"``, ``"sdp"``).
        Default: the three cheap bounds, plus ``"sdp"`` when ``n <= 25``
        (:data:`SDP_AUTO_MAX_N`); asked for explicitly, ``"sdp"`` runs up to ``n = 200``.

    Returns
    -------
    dict[str, float]
        Each requested bound, in the order of :data:`BOUNDS`.

    Raises
    ------
    ValueError
        If ``W``/``k`` are invalid or a method name is unknown.

    Examples
    --------
    >>> import numpy as np
    >>> K4 = np.ones((4, 4)) - np.eye(4)
    >>> {name: round(value, 6) for name, value in bound_matrix(K4, 2, ["edge", "degree"]).items()}
    {'degree': 1.0, 'edge': 1.0}
    """
    weights, k = _validated(W, k)
    requested = _check_methods(methods, weights.n)
    result = {}
    for name in BOUNDS:
        if name not in requested:
            continue
        if name == "sdp":
            if methods is None:  # included automatically: never let it break the cheap bounds
                try:
                    result[name] = sdp_bound(weights, k)
                except (RuntimeError, InvalidParameterError) as failure:
                    warnings.warn(f"sdp bound skipped: {failure}", RuntimeWarning, stacklevel=2)
            else:
                result[name] = sdp_bound(weights, k)
        else:
            result[name] = _CHEAP[name](weights, k)
    return result


def _check_methods(methods, n: int) -> tuple[str, ...]:
    if methods is None:
        return BOUNDS if n <= SDP_AUTO_MAX_N else BOUNDS[:3]
    if isinstance(methods, str):
        methods = (methods,)
    methods = tuple(methods)
    if not methods:
        raise InvalidParameterError("methods must name at least one bound: " + ", ".join(map(repr, BOUNDS)))
    for name in methods:
        check_choice("methods", name, BOUNDS)
    return methods


def bound(G, k: int, weight: str = "weight", methods: Iterable[str] | str | None = None) -> dict[str, float]:
    """Certified upper bounds on the densest-k-subgraph optimum of a networkx graph, by name.

    Parameters
    ----------
    G : networkx.Graph
        Undirected, not a multigraph; edge weights in attribute ``weight`` (default 1),
        non-negative. Self-loops are ignored.
    k : int
        Subset size, ``1 <= k <= G.number_of_nodes()``.
    weight : str
        Edge attribute holding the weight.
    methods : str or iterable of str, optional
        As in :func:`bound_matrix`.

    Returns
    -------
    dict[str, float]
        Bound name to value; every value is ``>= max_{|S|=k} w(S)``.

    Raises
    ------
    ValueError
        If ``G`` is directed or a multigraph, a weight is negative, ``k`` is out of range or
        a method name is unknown.

    Notes
    -----
    The graph goes through its sparse adjacency (:func:`bound_matrix` on it), so bounds on
    large sparse graphs cost ``O(m log m)`` plus a few sparse products.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.complete_graph(["a", "b", "c", "d"])
    >>> bounds = bound(G, 3)
    >>> sorted(bounds)
    ['degree', 'edge', 'sdp', 'spectral']
    >>> min(bounds.values()) >= 3.0     # OPT = 3 (a triangle)
    True
    >>> round(bounds["edge"], 9)
    3.0
    """
    k = check_graph(G, k)
    _, weights = graph_weights(G, weight, sparse=True)
    return bound_matrix(weights, k, methods)


def certified_ratio(weight: float, bounds: Mapping[str, float] | Iterable[float] | float) -> float:
    """``weight / min(bounds)``: a proven lower bound on ``weight / OPT``, capped at 1.

    Parameters
    ----------
    weight : float
        The weight ``w(S)`` of a ``k``-set found by some oracle (``>= 0``).
    bounds : dict[str, float] or iterable of float or float
        Certified upper bounds on ``OPT_k`` (e.g. the result of :func:`bound`).

    Returns
    -------
    float
        ``min(1, weight / min(bounds))``; ``1.0`` when the smallest bound is 0 (then every
        ``k``-set is optimal).

    Raises
    ------
    ValueError
        If ``bounds`` is empty, a value is not finite and non-negative, or ``weight`` exceeds
        the smallest bound by more than a relative ``1e-9`` (then a bound or the weight is
        wrong).

    Examples
    --------
    >>> certified_ratio(3.0, {"edge": 4.0, "degree": 6.0})
    0.75
    """
    weight = check_real("weight", weight, low=0.0)
    if isinstance(bounds, Mapping):
        values = list(bounds.values())
    elif isinstance(bounds, Iterable):
        values = list(bounds)
    else:
        values = [bounds]
    if not values:
        raise InvalidParameterError("bounds must contain at least one upper bound")
    values = [check_real("bounds", value, low=0.0) for value in values]
    smallest = min(values)
    if weight > smallest * (1 + 1e-9) + 1e-12:
        raise InvalidParameterError(
            f"weight={weight} exceeds the smallest upper bound {smallest}: not a valid certificate")
    if smallest == 0.0:
        return 1.0
    return min(1.0, weight / smallest)
