"""Static allocations: a support of super-arms spanning R^n, proportions over it, and
the deterministic tracking rule that turns proportions into a sequence of pulls.

The tracking rule ignores rewards, so the sequence of pulls is fixed in advance and the
confidence bounds of :mod:`fullbandit.estimation` apply (Soare et al. 2014; Kuroki et
al. 2020, section 4, "static algorithm").
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from fullbandit._validation import InvalidParameterError, check_choice, check_int, check_k

SUPPORT_KINDS = ("auto", "cyclic", "random")
RANDOM_SUPPORT_FACTOR = 4  # default random support size, in multiples of n (see random_support)


def cyclic_windows(n: int, k: int) -> list[tuple[int, ...]]:
    """The ``n`` windows ``{i, i+1, ..., i+k-1} mod n``.

    They span R^n exactly when ``gcd(n, k) = 1`` (their Gram matrix is circulant with
    eigenvalues ``|sum_{j<k} w^{mj}|^2`` over the n-th roots of unity ``w^m``, zero iff
    ``n`` divides ``mk`` for some ``0 < m < n``).

    Notes
    -----
    Spanning is not conditioning: for ``n = 37, k = 10`` the smallest eigenvalue of the
    circulant Gram matrix is about 0.01 against ``k^2 = 100`` for the largest, so a
    uniform allocation over cyclic windows needs far more pulls than one over a larger
    random support (``benchmarks/bench_core.py`` prints the condition numbers).
    """
    n = check_int("n", n, low=2)
    k = check_k(k, n)
    if math.gcd(n, k) != 1:
        raise InvalidParameterError(
            f"cyclic windows span R^n only when gcd(n, k) = 1; gcd(n={n}, k={k}) = {math.gcd(n, k)}: "
            "use support='random'")
    return [tuple(sorted((i + j) % n for j in range(k))) for i in range(n)]


def random_support(n: int, k: int, rng: np.random.Generator, size: int | None = None,
                   max_draws: int | None = None, problem=None) -> list[tuple[int, ...]]:
    """Distinct uniformly random ``k``-subsets, at least ``size`` of them, spanning R^n.

    Subsets are drawn until both ``size`` distinct subsets are held and they span R^n
    (rank tracked by incremental Gram-Schmidt, O(n) work per arm of a draw).

    Parameters
    ----------
    size : int, optional
        Minimum number of support members, ``n <= size <= C(n, k)``. Default
        ``min(4 n, C(n, k))``: a minimal (``size = n``) random support is badly conditioned
        (measured condition number of ``A`` about 10^4 to 10^5 for ``n = 36, k = 10``,
        about 40 with ``4 n`` members), and the pulls a static algorithm needs grow with
        it. This default is our choice; the paper leaves the support open.
    problem : DecisionClass, optional
        Draw members of this class (``problem.random_member``) instead of uniform ``k``-subsets.
    """
    n = check_int("n", n, low=2)
    k = check_k(k, n)
    total = math.comb(n, k) if problem is None else problem.size
    if size is None:
        size = min(RANDOM_SUPPORT_FACTOR * n, total)
    size = check_int("support_size", size, low=n, high=total)
    max_draws = max_draws if max_draws is not None else 100 * size + 10_000
    chosen: list[tuple[int, ...]] = []
    seen: set[tuple[int, ...]] = set()
    basis = np.zeros((n, n))
    rank = 0
    for _ in range(max_draws):
        if rank == n and len(chosen) >= size:
            return chosen
        arm = (tuple(sorted(int(i) for i in rng.choice(n, size=k, replace=False))) if problem is None
               else problem.random_member(rng))
        if arm in seen:
            continue
        x = np.zeros(n)
        x[list(arm)] = 1.0
        residual = x - basis[:rank].T @ (basis[:rank] @ x)
        norm = float(np.linalg.norm(residual))
        adds_rank = rank < n and norm > 1e-9 * math.sqrt(k)
        if adds_rank:
            basis[rank] = residual / norm
            rank += 1
        if adds_rank or len(chosen) < size - (n - rank):
            chosen.append(arm)
            seen.add(arm)
    if rank == n and len(chosen) >= size:
        return chosen
    if rank < n:
        raise InvalidParameterError(
            f"the super-arms drawn span only rank {rank} < n={n} after {max_draws} draws: if the decision "
            "class's super-arms do not span R^n, theta is not identifiable from full-bandit feedback "
            "(e.g. a partition matroid that fixes how many members each group has)")
    raise InvalidParameterError(
        f"could not draw a spanning random support of size {size} for n={n}, k={k} in {max_draws} draws")


def make_support(n: int, k: int, kind: str, rng: np.random.Generator,
                 size: int | None = None, problem=None) -> list[tuple[int, ...]]:
    """The support of a uniform allocation.

    ``kind="auto"`` follows the rule of the project's specification: cyclic windows when
    ``gcd(n, k) = 1``, otherwise a seeded random full-rank support; an explicit ``size``
    other than ``n`` asks for a random support.
    """
    check_choice("support", kind, SUPPORT_KINDS)
    restricted = problem is not None and type(problem).__name__ != "TopK"
    if kind == "cyclic" and restricted:
        raise InvalidParameterError("support='cyclic' needs the top-k class; use support='random'")
    if kind == "auto":
        kind = "cyclic" if math.gcd(n, k) == 1 and size in (None, n) and not restricted else "random"
    if kind == "cyclic":
        if size is not None and size != n:
            raise InvalidParameterError(f"support_size={size} must be None or n={n} with support='cyclic'")
        return cyclic_windows(n, k)
    return random_support(n, k, rng, size, problem=problem if restricted else None)


def design_condition_number(n: int, support, proportions=None) -> float:
    """Condition number of ``A(p) = sum_j p_j x_j x_j^T`` (``inf`` if singular)."""
    matrix = np.zeros((len(support), n))
    for row, arm in enumerate(support):
        matrix[row, list(arm)] = 1.0
    weights = np.full(len(support), 1.0 / len(support)) if proportions is None else np.asarray(proportions)
    eigenvalues = np.linalg.eigvalsh(matrix.T @ (weights[:, None] * matrix))
    return float("inf") if eigenvalues[0] <= 1e-12 * eigenvalues[-1] else float(eigenvalues[-1] / eigenvalues[0])


class Tracker:
    """Deterministic tracking of proportions ``p``: pull the member with the smallest ``T_j / p_j``.

    Ties go to the lowest index, so every member is pulled once before any is pulled
    twice, and a uniform ``p`` gives round robin. A heap keyed by ``(T_j / p_j, j)``
    makes a pull O(log m). The rule reads no reward, which keeps the design static.

    Parameters
    ----------
    proportions : array_like of shape (m,)
        Positive weights (normalised here).
    counts : array_like of shape (m,), optional
        Pulls already allocated per member (to resume a saved run).
    """

    def __init__(self, proportions, counts=None):
        weights = np.asarray(proportions, dtype=float)
        if weights.ndim != 1 or weights.size == 0 or np.any(~np.isfinite(weights)) or np.any(weights <= 0):
            raise InvalidParameterError("proportions must be a non-empty vector of positive finite weights")
        self.proportions = weights / weights.sum()
        # Keys use the weights as given: T_i / w_i == T_j / w_j as rationals then gives equal
        # floats (division is correctly rounded), so exact ties really go to the lower index.
        self._weights = [float(w) for w in weights]
        if counts is None:
            self.counts = np.zeros(weights.size, dtype=np.int64)
        else:
            self.counts = np.array(counts, dtype=np.int64)
            if self.counts.shape != weights.shape or np.any(self.counts < 0):
                raise InvalidParameterError(
                    f"counts must hold {weights.size} non-negative integers, one per member")
        self._heap = [(int(c) / w, j) for j, (c, w) in enumerate(zip(self.counts, self._weights))]
        heapq.heapify(self._heap)

    def peek(self) -> int:
        """The member the rule pulls next."""
        return self._heap[0][1]

    def advance(self) -> int:
        """Allocate one pull to the next member and return it."""
        _, member = self._heap[0]
        self.counts[member] += 1
        heapq.heapreplace(self._heap, (int(self.counts[member]) / self._weights[member], member))
        return member

    def allocate(self, total: int) -> np.ndarray:
        """Advance until ``total`` pulls are allocated; return the pulls added per member.

        The counts reached are those of ``total - counts.sum()`` calls of :meth:`advance`.
        With equal weights (round robin) they are computed in one step: every member is
        then within one pull of the others, and the next ones in line are the members with
        the fewest pulls, lowest index first.
        """
        total = check_int("total", total, low=int(self.counts.sum()))
        before = self.counts.copy()
        missing = total - int(before.sum())
        if missing and len(set(self._weights)) == 1:
            order = np.lexsort((np.arange(before.size), before))  # fewest pulls first, then index
            passes, extra = divmod(missing, before.size)
            added = np.full(before.size, passes, dtype=np.int64)
            added[order[:extra]] += 1
            self.counts += added
            self._heap = [(int(c) / w, j) for j, (c, w) in enumerate(zip(self.counts, self._weights, strict=True))]
            heapq.heapify(self._heap)
        else:
            for _ in range(missing):
                self.advance()
        return self.counts - before


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
    """``x_j^T A(p)^-1 x_j`` for every support row ``x_j`` of ``X`` (equal to ``n`` on the
    support of a D-optimal ``p``, at most ``n`` everywhere)."""
    gram = X.T @ (np.asarray(weights)[:, None] * X)
    return np.einsum("ij,ij->i", X @ np.linalg.inv(gram), X)


def _indicator_matrix(n: int, support) -> np.ndarray:
    X = np.zeros((len(support), n))
    for row, arm in enumerate(support):
        X[row, list(arm)] = 1.0
    return X


def efficient_rounding(weights, total: int) -> np.ndarray:
    """Pukelsheim's efficient apportionment of ``total`` pulls to proportions ``weights``.

    With ``p`` the number of positive weights: ``m_j = ceil((total - p/2) w_j)``; while
    ``sum(m) < total`` increase an ``m_j`` minimising ``m_j / w_j``; while it exceeds
    ``total`` decrease one maximising ``(m_j - 1) / w_j`` (Kuroki et al. 2020, Appendix D;
    F. Pukelsheim, *Optimal Design of Experiments*, 1993, section 12.5). Zero weights get
    zero pulls; ties go to the lowest index. The result satisfies the efficient-design
    apportionment condition ``max_j (m_j - 1) / w_j <= min_j m_j / w_j``.

    Returns
    -------
    numpy.ndarray of int
        Pulls per support member, summing to ``total``.
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
