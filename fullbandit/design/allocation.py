"""Static allocations: a support of super-arms spanning R^n, proportions over it, and
the deterministic tracking rule that turns proportions into a sequence of pulls.

The tracking rule ignores rewards, so the sequence of pulls is fixed in advance and the
confidence bounds of :mod:`fullbandit.linalg.estimation` apply (Soare et al. 2014; Kuroki et
al. 2020, section 4, "static algorithm"). The XY-optimal proportions for the swap
directions are in :mod:`fullbandit.design.xy`.
"""

from __future__ import annotations

import heapq
import math

import numpy as np

from fullbandit.linalg.incidence import Incidence
from fullbandit.linalg.spectrum import SingularMatrixError, cholesky_inverse
from fullbandit.util.validation import InvalidParameterError, as_generator, check_choice, check_int, check_k

SUPPORT_KINDS = ("auto", "swap-optimal", "cyclic", "random")
RANDOM_SUPPORT_FACTOR = 4  # default random support size, in multiples of n (see random_support)
AUTO_CONDITION_FACTOR = 3.0  # support="auto" stays within this factor of the best condition number
SWAP_OPTIMAL_FACTOR = 1.1  # support="swap-optimal" stays within this factor of the best swap variance
SUPPORT_ENTRY_CAP = 1 << 22  # largest support size times n that "swap-optimal" grows to (32 MB of indicators)


def cyclic_windows(n: int, k: int) -> list[tuple[int, ...]]:
    """The ``n`` windows ``{i, i+1, ..., i+k-1} mod n``.

    They span R^n exactly when ``gcd(n, k) = 1`` (their Gram matrix is circulant with
    eigenvalues ``|sum_{j<k} w^{mj}|^2`` over the n-th roots of unity ``w^m``, zero iff
    ``n`` divides ``mk`` for some ``0 < m < n``).

    Parameters
    ----------
    n : int
        Number of arms, ``n >= 2``.
    k : int
        Window size, ``1 <= k < n`` with ``gcd(n, k) = 1``.

    Returns
    -------
    list of tuple of int
        The windows as sorted tuples, window ``i`` starting at arm ``i``.

    Raises
    ------
    InvalidParameterError
        If ``gcd(n, k) > 1``: the windows then leave a direction unidentified.

    Notes
    -----
    Spanning is not conditioning: for ``n = 37, k = 10`` the smallest eigenvalue of the
    circulant Gram matrix is about 0.011 against ``k^2 = 100`` for the largest (condition
    number 8,988, :func:`cyclic_condition_number`), so a uniform allocation over cyclic
    windows needs far more pulls than one over a larger random support. ``support="auto"``
    therefore takes them only when they are well conditioned (:func:`make_support`).

    Examples
    --------
    >>> from fullbandit.design.allocation import cyclic_windows
    >>> cyclic_windows(5, 2)
    [(0, 1), (1, 2), (2, 3), (3, 4), (0, 4)]
    """
    n = check_int("n", n, low=2)
    k = check_k(k, n)
    if math.gcd(n, k) != 1:
        raise InvalidParameterError(
            f"cyclic windows span R^n only when gcd(n, k) = 1; gcd(n={n}, k={k}) = {math.gcd(n, k)}: "
            "use support='random'")
    return [tuple(sorted((i + j) % n for j in range(k))) for i in range(n)]


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
    >>> from fullbandit.design.allocation import cyclic_condition_number, cyclic_windows, design_condition_number
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
    >>> from fullbandit.design.allocation import design_condition_number, min_condition_number
    >>> round(min_condition_number(37, 10), 4)
    13.3333
    >>> support = list(itertools.combinations(range(7), 3))
    >>> round(design_condition_number(7, support), 9), min_condition_number(7, 3)
    (4.5, 4.5)
    """
    n = check_int("n", n, low=2)
    k = check_k(k, n)
    return k * (n - 1) / (n - k)


def random_support(n: int, k: int, seed=None, size: int | None = None,
                   max_draws: int | None = None, problem=None) -> list[tuple[int, ...]]:
    """Distinct uniformly random ``k``-subsets, at least ``size`` of them, spanning R^n.

    Subsets are drawn until both ``size`` distinct subsets are held and they span R^n
    (rank tracked by incremental Gram-Schmidt, O(n) work per arm of a draw).

    Parameters
    ----------
    n : int
        Number of arms, ``n >= 2``.
    k : int
        Super-arm size, ``1 <= k < n``.
    seed : None, int, SeedSequence or Generator
        Source of the draws (a ``Generator`` is used as is and advanced).
    size : int, optional
        Minimum number of support members, ``n <= size <= C(n, k)``. Default
        ``min(4 n, C(n, k))``: a minimal (``size = n``) random support is badly conditioned
        (measured condition number of ``A`` about 10^4 to 10^5 for ``n = 36, k = 10``,
        about 40 with ``4 n`` members), and the pulls a static algorithm needs grow with
        it. This default is our choice; the paper leaves the support open.
    max_draws : int, optional
        Draws allowed before giving up (default ``100 size + 10000``).
    problem : DecisionClass, optional
        Draw members of this class (``problem.random_member``) instead of uniform ``k``-subsets.

    Returns
    -------
    list of tuple of int
        The members in the order drawn, each a sorted tuple; their indicator vectors
        span R^n.

    Raises
    ------
    InvalidParameterError
        If ``size`` is out of range, or no spanning support was found in ``max_draws``
        draws (e.g. a class whose super-arms do not span R^n).

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.design.allocation import random_support
    >>> support = random_support(6, 2, seed=1, size=8)
    >>> x = np.zeros((len(support), 6))
    >>> for row, arm in enumerate(support):
    ...     x[row, list(arm)] = 1.0
    >>> len(support) >= 8, int(np.linalg.matrix_rank(x))
    (True, 6)
    >>> support == random_support(6, 2, seed=1, size=8)  # same seed, same support
    True
    >>> len(random_support(6, 2, seed=0))  # default size min(4 n, C(n, k)): every pair
    15
    """
    n = check_int("n", n, low=2)
    k = check_k(k, n)
    rng = as_generator(seed)
    total = math.comb(n, k) if problem is None else problem.size
    if size is None:
        size = min(RANDOM_SUPPORT_FACTOR * n, total)
    size = check_int("support_size", size, low=n, high=total)
    max_draws = max_draws if max_draws is not None else 100 * size + 10_000
    chosen: list[tuple[int, ...]] = []
    seen: set[tuple[int, ...]] = set()
    basis = _SpanTracker(n, tolerance=1e-9 * math.sqrt(k))
    arm_indices = list(range(n))  # every member holds these int objects: 8 bytes per entry, not 36
    for _ in range(max_draws):
        if len(chosen) >= size and basis.rank() == n:
            return chosen
        arm = tuple(map(arm_indices.__getitem__, np.sort(rng.choice(n, size=k, replace=False)).tolist())) \
            if problem is None else problem.random_member(rng)
        if arm in seen:
            continue
        # A member that adds to the rank is always kept, any other only while there is room for it;
        # while there is room whatever the rank, its rank test may wait (it is done in blocks).
        if len(chosen) < size - (n - basis.known_rank):
            basis.defer(arm)
        elif not basis.adds(arm) and len(chosen) >= size - (n - basis.rank()):
            continue
        chosen.append(arm)
        seen.add(arm)
    if basis.rank() == n and len(chosen) >= size:
        return chosen
    if basis.rank() < n:
        raise InvalidParameterError(
            f"the super-arms drawn span only rank {basis.rank()} < n={n} after {max_draws} draws: if the decision "
            "class's super-arms do not span R^n, theta is not identifiable from full-bandit feedback "
            "(e.g. a partition matroid that fixes how many members each group has)")
    raise InvalidParameterError(
        f"could not draw a spanning random support of size {size} for n={n}, k={k} in {max_draws} draws")


class _SpanTracker:
    """The rank of a growing list of 0/1 vectors, by Gram-Schmidt against an orthonormal basis.

    A vector adds to the rank when its residual after projecting out the basis (classical
    Gram-Schmidt: ``x - B^T (B x)``) has norm above ``tolerance``. Vectors whose rank test may
    wait (:meth:`defer`) are tested together, in order, when the rank is next needed or
    ``BLOCK`` of them are waiting: their projections on the basis are then one matrix product.
    The decisions are those of testing each vector as it comes.
    """

    BLOCK = 128

    def __init__(self, n: int, tolerance: float):
        self.n = n
        self.tolerance = tolerance
        self.basis = np.zeros((n, n))
        self.known_rank = 0  # the rank of the vectors tested so far
        self._waiting: list[tuple[int, ...]] = []

    def rank(self) -> int:
        self._flush()
        return self.known_rank

    def defer(self, arm) -> None:
        if self.known_rank < self.n:  # a full basis takes nothing more
            self._waiting.append(arm)
            if len(self._waiting) >= self.BLOCK:
                self._flush()

    def adds(self, arm) -> bool:
        """Test ``arm`` now (after the waiting ones); add it to the basis if it adds to the rank."""
        self._flush()
        return self.known_rank < self.n and self._test(self._projections([arm])[0])

    def _indicators(self, arms) -> np.ndarray:
        vectors = np.zeros((len(arms), self.n))
        for row, arm in enumerate(arms):
            vectors[row, list(arm)] = 1.0
        return vectors

    def _projections(self, arms) -> np.ndarray:
        vectors = self._indicators(arms)
        old = self.basis[:self.known_rank]
        return vectors - (vectors @ old.T) @ old

    def _flush(self) -> None:
        waiting, self._waiting = self._waiting, []
        if not waiting or self.known_rank == self.n:
            return
        start = self.known_rank
        residuals = self._projections(waiting)
        vectors = self._indicators(waiting)
        for residual, vector in zip(residuals, vectors, strict=True):
            if self.known_rank == self.n:
                break
            new = self.basis[start:self.known_rank]  # rows added in this block: the rest of x - B^T (B x)
            self._test(residual - new.T @ (new @ vector))

    def _test(self, residual: np.ndarray) -> bool:
        norm = float(np.linalg.norm(residual))
        if norm > self.tolerance:
            self.basis[self.known_rank] = residual / norm
            self.known_rank += 1
            return True
        return False


def make_support(n: int, k: int, kind: str, seed=None,
                 size: int | None = None, problem=None) -> list[tuple[int, ...]]:
    """The support of a static allocation, by kind.

    ``kind="auto"`` (top-k, ``size`` not given) never returns a badly conditioned support.
    With ``kappa(S)`` the condition number of the uniform design over ``S``
    (:func:`design_condition_number`) and ``kappa* = k (n-1) / (n-k)`` the smallest
    condition number any design over ``k``-subsets can have (:func:`min_condition_number`),
    the threshold is ``AUTO_CONDITION_FACTOR * kappa* = 3 kappa*``, and auto returns the first
    candidate below it:

    1. the cyclic windows, if ``gcd(n, k) = 1`` and their closed-form condition number
       (:func:`cyclic_condition_number`) is below the threshold;
    2. a seeded random support (:func:`random_support`) of ``min(4 n, C(n, k))`` members,
       then of twice as many, and so on, each drawn from the continuing stream of
       ``seed``. Once ``C(n, k)`` is reached the support is the whole class, whose
       condition number is ``kappa*`` itself, so the loop ends.

    Why: the windows are the smallest spanning support, but their conditioning grows
    with ``n`` (8,988 at ``n = 37, k = 10``, where ``kappa* = 13.3``: 674 ``kappa*``;
    26,533 at ``n = 63`` and 11,717 at ``n = 111``, ``k = 10``). For every
    ``3 <= n <= 300`` and ``k`` with ``gcd(n, k) = 1`` they are below ``3 kappa*`` only for
    ``k = 1`` and ``k = n - 1``, where they are the whole class; otherwise at least
    ``3.93 kappa*`` (``n = 5``, where the class has only ``C(5, 2) = 10 <= 4 n`` members),
    and at least ``6.49 kappa*`` whenever ``C(n, k) > 4 n`` (``n = 7, k = 3``). Random
    supports (5 seeds, ``n`` in steps of 10 up to 120): ``4 n`` members give 2.9 to 4.7
    ``kappa*`` at ``k = 10`` (mostly above 3.4), 3.0 to 4.8 at ``k = 5``, and up to 16
    ``kappa*`` at ``k = 2, 3`` (sparse random graphs have arms in few members); ``8 n``
    members give 2.1 to 2.6 ``kappa*`` at ``k = 5, 10`` and up to 4.1 at ``k = 2, 3``;
    ``16 n`` give at most 2.2. Over ``5 <= n <= 120`` and ``k`` in ``{2, 3, 5, 10}`` auto
    takes ``8 n`` members in 403 of 457 cases, ``4 n`` or the whole class in 45 (mostly
    small ``n``) and ``16 n`` in 9 (``k = 2, 3``), with the seeds ``1000 n + k``. Pulls
    follow conditioning: the largest swap variance ``max_{i != j} ||e_i - e_j||^2_{A^-1}``
    of a uniform design at ``n = 111, k = 10`` is 2,442 for the windows, 51 with ``4 n``,
    40 with ``8 n`` and 33 with ``16 n`` random members (24 for the whole class).

    An explicit ``size`` asks for a random support of that size (no conditioning check);
    a decision class other than top-k gets a random support of its own members of the
    default size (the bound ``kappa*`` need not be attainable within the class).

    Parameters
    ----------
    n : int
        Number of arms.
    k : int
        Super-arm size.
    kind : {"auto", "swap-optimal", "cyclic", "random"}
        See above; ``"swap-optimal"`` (top-k, ``size`` not given) draws seeded random
        supports of ``8 n``, ``16 n``, ... members until the uniform design's largest swap
        variance (:func:`swap_variance`) is within ``SWAP_OPTIMAL_FACTOR = 1.1`` of the
        optimum :func:`optimal_swap_variance` (that of the whole class), the whole class is
        reached, or ``size * n`` reaches ``2^22`` (32 MB of indicators). Measured with seed
        0: 32 n members come within 1.14 to 1.21 of the optimum at ``n = 36, 55, 111``,
        ``k = 10``, and 64 n within 1.09 to 1.13, against 1.46 to 1.53 for 8 n. ``"cyclic"``
        is :func:`cyclic_windows`, ``"random"`` is :func:`random_support`.
    seed : None, int, SeedSequence or Generator
        Source of a random support (unused for cyclic windows).
    size : int, optional
        Size of a random support (default: :func:`random_support`'s, or the rule above).
    problem : DecisionClass, optional
        Restrict a random support to this class (cyclic windows need top-k).

    Returns
    -------
    list of tuple of int
        Super-arms spanning R^n.

    Examples
    --------
    >>> from fullbandit.design.allocation import design_condition_number, make_support, min_condition_number
    >>> support = make_support(37, 10, "auto", seed=0)  # the windows' 8,988 is far above 3 * 13.3
    >>> len(support), design_condition_number(37, support) <= 3 * min_condition_number(37, 10)
    (296, True)
    >>> make_support(5, 1, "auto")  # k = 1: the windows are the whole class
    [(0,), (1,), (2,), (3,), (4,)]
    >>> make_support(5, 2, "cyclic")
    [(0, 1), (1, 2), (2, 3), (3, 4), (0, 4)]
    >>> len(make_support(6, 2, "auto", seed=0))  # min(4 n, C(6, 2)): the whole class
    15
    """
    check_choice("support", kind, SUPPORT_KINDS)
    restricted = problem is not None and type(problem).__name__ != "TopK"
    if kind == "cyclic" and restricted:
        raise InvalidParameterError("support='cyclic' needs the top-k class; use support='random'")
    if kind == "auto" and size is None and not restricted:
        return _well_conditioned_support(n, k, seed)
    if kind == "swap-optimal" and size is None and not restricted:
        return _swap_optimal_support(n, k, seed)
    if kind == "cyclic":
        if size is not None and size != n:
            raise InvalidParameterError(f"support_size={size} must be None or n={n} with support='cyclic'")
        return cyclic_windows(n, k)
    return random_support(n, k, seed, size, problem=problem if restricted else None)


def _well_conditioned_support(n: int, k: int, seed) -> list[tuple[int, ...]]:
    """The rule of ``make_support(kind="auto")`` for top-k."""
    n = check_int("n", n, low=2)
    k = check_k(k, n)
    threshold = AUTO_CONDITION_FACTOR * min_condition_number(n, k)
    if cyclic_condition_number(n, k) <= threshold:
        return cyclic_windows(n, k)
    rng = as_generator(seed)
    total = math.comb(n, k)
    size = min(RANDOM_SUPPORT_FACTOR * n, total)
    while True:
        support = random_support(n, k, rng, size)
        if size == total or design_condition_number(n, support) <= threshold:
            return support
        size = min(2 * size, total)


def _swap_optimal_support(n: int, k: int, seed) -> list[tuple[int, ...]]:
    """The rule of ``make_support(kind="swap-optimal")`` for top-k."""
    n = check_int("n", n, low=2)
    k = check_k(k, n)
    target = SWAP_OPTIMAL_FACTOR * optimal_swap_variance(n, k)
    rng = as_generator(seed)
    largest = min(math.comb(n, k), max(n, SUPPORT_ENTRY_CAP // n))
    size = min(2 * RANDOM_SUPPORT_FACTOR * n, largest)
    while True:
        support = random_support(n, k, rng, size)
        if size == largest or swap_variance(n, support) <= target:
            return support
        size = min(2 * size, largest)


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
    >>> from fullbandit.design.allocation import optimal_swap_variance, swap_variance
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
    >>> from fullbandit.design.allocation import swap_variance
    >>> round(swap_variance(3, [(0, 1), (1, 2), (0, 2)]), 9)   # A = (I + 1 1^T) / 3
    6.0
    """
    try:
        inverse = cholesky_inverse(_design_gram(n, support, proportions))
    except SingularMatrixError:
        return math.inf
    d = np.diag(inverse)
    return float(np.max(d[:, None] + d[None, :] - 2.0 * inverse))


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

    >>> from fullbandit.design.allocation import design_condition_number
    >>> round(design_condition_number(3, [(0, 1), (1, 2), (0, 2)]), 9)
    4.0
    >>> design_condition_number(4, [(0, 1), (1, 2), (2, 3), (0, 3)])  # x = (1, -1, 1, -1) unseen
    inf
    """
    eigenvalues = np.linalg.eigvalsh(_design_gram(n, support, proportions))
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

    Attributes
    ----------
    proportions : numpy.ndarray
        The weights normalised to sum to 1.
    counts : numpy.ndarray of int
        Pulls allocated per member so far.

    Examples
    --------
    With weights ``(2, 1)`` member 0 gets two pulls out of three:

    >>> from fullbandit.design.allocation import Tracker
    >>> tracker = Tracker([2, 1])
    >>> [tracker.advance() for _ in range(6)]
    [0, 1, 0, 0, 1, 0]
    >>> tracker.counts.tolist()
    [4, 2]
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
        self._heap = [(int(c) / w, j) for j, (c, w) in enumerate(zip(self.counts, self._weights, strict=True))]
        heapq.heapify(self._heap)

    def peek(self) -> int:
        """The member the rule pulls next, without allocating it.

        Returns
        -------
        int
            Index of the member :meth:`advance` would allocate.

        Examples
        --------
        >>> from fullbandit.design.allocation import Tracker
        >>> tracker = Tracker([1, 3])
        >>> tracker.peek(), tracker.counts.tolist()
        (0, [0, 0])
        """
        return self._heap[0][1]

    def advance(self) -> int:
        """Allocate one pull to the next member and return it.

        Returns
        -------
        int
            Index of the member allocated.

        Examples
        --------
        >>> from fullbandit.design.allocation import Tracker
        >>> tracker = Tracker([1, 3])
        >>> [tracker.advance() for _ in range(4)]
        [0, 1, 1, 1]
        """
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

        Parameters
        ----------
        total : int
            Total pulls allocated after the call (at least the current total).

        Returns
        -------
        numpy.ndarray of int
            Pulls added per member.

        Examples
        --------
        >>> from fullbandit.design.allocation import Tracker
        >>> tracker = Tracker([1, 1, 1])
        >>> tracker.allocate(7).tolist()
        [3, 2, 2]
        >>> tracker.allocate(8).tolist()  # member 1 is next in line
        [0, 1, 0]
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


class Handout:
    """The pulls a :class:`Tracker` allocates up to the next stopping check, handed out in blocks.

    Members come in turn from a cursor, so single pulls interleave the members, and a block
    takes a member's whole remaining share at once (up to the caller's ``max_count``). Which
    member comes next never reads a reward, so the design stays static.

    Parameters
    ----------
    tracker : Tracker
        The allocation rule (its counts include what is planned here).
    plan : sequence of int, optional
        Pulls allocated to each member and not yet handed out (to resume a saved run).
    cursor : int
        The member the next hand-out starts from.

    Examples
    --------
    >>> from fullbandit.design.allocation import Handout, Tracker
    >>> handout = Handout(Tracker([1, 1, 2]))
    >>> [handout.take(max_count=10, next_check=8, room=100) for _ in range(3)]   # 2 + 2 + 4 pulls
    [(0, 2), (1, 2), (2, 4)]
    >>> handout.take(max_count=10, next_check=8, room=100)   # past the check: one pull at a time
    (0, 1)
    """

    def __init__(self, tracker: Tracker, plan=None, cursor: int = 0):
        self.tracker = tracker
        self.plan = [0] * tracker.counts.size if plan is None else [int(v) for v in plan]
        self.cursor = int(cursor)
        self.planned = sum(self.plan)

    def take(self, max_count: int, next_check: int, room: int) -> tuple[int, int]:
        """The next block ``(member, count)``, planning first when nothing is planned.

        The plan reaches ``next_check`` allocated pulls (one more pull once past it), but
        allocates at most ``room`` pulls beyond those allocated so far (``room >= 1``).
        """
        self._plan_if_empty(next_check, room)
        plan, member = self.plan, self.cursor
        while not plan[member]:
            member = (member + 1) % len(plan)
        count = min(plan[member], max_count)
        plan[member] -= count
        self.planned -= count
        self.cursor = (member + 1) % len(plan)
        return member, count

    def take_all(self, max_count: int, next_check: int, room: int) -> tuple[np.ndarray, np.ndarray]:
        """Every planned block at once, in the order :meth:`take` would hand them out: ``(members, counts)``.

        Plans first when nothing is planned (as :meth:`take`); a member's block holds at
        most ``max_count`` pulls, the rest of its share stays planned.

        Examples
        --------
        >>> from fullbandit.design.allocation import Handout, Tracker
        >>> handout = Handout(Tracker([1, 1, 2]))
        >>> members, counts = handout.take_all(max_count=3, next_check=8, room=100)
        >>> members.tolist(), counts.tolist(), handout.planned   # member 2's fourth pull stays planned
        ([0, 1, 2], [2, 2, 3], 1)
        """
        self._plan_if_empty(next_check, room)
        plan = np.asarray(self.plan, dtype=np.int64)
        order = np.roll(np.arange(plan.size), -self.cursor)
        members = order[plan[order] > 0]
        counts = np.minimum(plan[members], max_count)
        plan[members] -= counts
        self.plan = plan.tolist()
        self.planned -= int(counts.sum())
        if members.size:
            self.cursor = int(members[-1] + 1) % plan.size
        return members, counts

    def _plan_if_empty(self, next_check: int, room: int) -> None:
        if not self.planned:
            allocated = int(self.tracker.counts.sum())
            target = next_check if allocated < next_check else allocated + 1
            self.plan = self.tracker.allocate(min(target, allocated + room)).tolist()
            self.planned = sum(self.plan)

    def give_back(self, member: int, count: int) -> None:
        """Return ``count`` pulls of ``member`` that were handed out and will never be told."""
        self.plan[member] += count
        self.planned += count

    def accounts_for(self, counts, outstanding) -> bool:
        """Whether the tracker's counts are ``counts`` told + ``outstanding`` + the plan (a state check)."""
        return bool(np.array_equal(self.tracker.counts, np.asarray(counts) + np.asarray(outstanding) + self.plan))


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
    >>> from fullbandit.design.allocation import g_optimal_allocation
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
    >>> from fullbandit.design.allocation import kiefer_wolfowitz_variances
    >>> X = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0], [1.0, 0.0, 1.0]])
    >>> kiefer_wolfowitz_variances(X, np.full(3, 1 / 3)).round(9).tolist()
    [3.0, 3.0, 3.0]
    """
    gram = X.T @ (np.asarray(weights)[:, None] * X)
    return np.einsum("ij,ij->i", X @ np.linalg.inv(gram), X)


def _design_gram(n: int, support, proportions=None) -> np.ndarray:
    """``A(p) = sum_j p_j x_j x_j^T`` (``p`` normalised; uniform by default) from the support's incidence."""
    rows = Incidence(n, support)
    if proportions is None:
        return rows.gram() / len(rows)
    weights = np.asarray(proportions, dtype=float)
    return rows.gram(weights / weights.sum())


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

    >>> from fullbandit.design.allocation import efficient_rounding
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
