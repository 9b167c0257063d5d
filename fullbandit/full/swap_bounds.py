"""Certified bounds on the gap of the empirical best team over *gap directions* (top-k).

For the top-k class every gap direction is a sum of swaps: if ``M`` differs from
``M_hat`` by removing ``I = M_hat \\ M`` and adding ``J = M \\ M_hat`` (``|I| = |J| = m``,
the *swap size*), then ``x_M - x_M_hat = e_J - e_I = sum_l (e_{j_l} - e_{i_l})`` for any
pairing of ``J`` with ``I``. The stopping rules of this module bound
``max_M theta(M) - theta(M_hat)``, the gap of ``M_hat``, with union bounds over such
directions rather than over super-arms (SAQM, ``C(n, k)``), pairs of super-arms (SA-FOA,
Exhaustive, ``C(n, k)^2 / 2``) or single arms (ICB, ``n``).

The confidence event
--------------------
With a static design (the pulls never depend on a reward, and the data of a check are the
first pulls handed out: :meth:`fullbandit.core.algorithm.Algorithm.tell` records observations in
handing-out order whatever order they are told in, so which pulls a check reads cannot
depend on their rewards) the least-squares error along a *fixed* direction ``y`` is
sub-Gaussian with variance proxy ``R^2 ||y||^2_{A_t^-1}``, so for a fixed finite set ``Y``
of directions and a level ``delta`` the one-sided event

    ``E(Y, delta): y . (theta - theta_hat_t) <= C_t(Y, delta) ||y||_{A_t^-1}``
    for all ``y`` in ``Y`` and all checks ``t``

holds with probability at least ``1 - delta``, where ``C_t(Y, delta)`` is
:func:`fullbandit.linalg.radius.confidence_radius` with ``n_directions = |Y|`` and
``one_sided=True`` (Soare, Lazaric, Munos 2014, Proposition 1, one side; or the
time-uniform boundary of :mod:`fullbandit.linalg.time_uniform`). ``Y`` must not depend on the
data.

*Directed events.* Fix, before the run, one optimal team ``M*`` (say the first in
lexicographic order among those of largest ``theta(M)``; it is unknown, but fixed). The
rules below use only directions that point *from a team to* ``M*``:

* ``D_m = {x_M* - x_M : |M* \\ M| = m} = {e_J - e_I : J subset of M*, I outside M*, |I| = |J| = m}``,
  ``|D_m| = C(k, m) C(n - k, m)`` (:func:`n_directed_swaps`), for ``1 <= m <= min(k, n - k)``;
  ``D_1 = {e_j - e_i : j in M*, i outside M*}`` has ``k (n - k)`` members.

Their sizes are known without knowing ``M*``. Why they suffice: a rule returns a team
``M_hat`` chosen from the data and a number ``B``, and ``gap(M_hat) = theta(M*) -
theta(M_hat) = y . theta`` for ``y = x_M* - x_M_hat`` in ``D_m`` (``m = |M* \\ M_hat|``), so
``gap(M_hat) <= y . theta_hat + C_m ||y||`` on ``E(D_m)``; every rule's ``B`` bounds that
right-hand side for *every* ``m``-swap partner of ``M_hat``, ``M*`` among them. So on
``E = intersection over m of E(D_m, delta_m)``, ``gap(M) <= B(M)`` for every team ``M`` at once,
and a rule may certify whichever team it likes, chosen from the data, at no extra cost.
This is the argument of the generalised likelihood ratio stopping rules (Garivier and
Kaufmann 2016, Proposition 12: only the deviations at the true parameter matter); it
replaces the union over all ``C(n, m) C(n - m, m) / 2`` two-sided m-swap directions among
``n`` arms (:func:`n_swap_directions`), which a bound must pay when it has to hold for
every possible ``M_hat`` *and* every partner: for ``n = 10``, ``k = 3`` that is 90 against
21 one-sided events for single swaps, 4200 against 35 for ``m = 3``.

Levels: ``delta_m = delta m^-2 / H`` with ``H = sum_{i <= m_max} i^-2`` (:func:`graded_deltas`;
they sum to ``delta``), and both the pair rule and the graded rule's ``m = 1`` term read the one event
``E(D_1, delta_1)``: no level is split between rules.

The rules
---------
Pair rule (:func:`pair_bound`), on ``E(D_1, delta_1)`` with ``C = C_t(D_1, delta_1)``:
for ``i`` in ``M_hat`` and ``j`` outside let
``g(i, j) = theta_hat_j - theta_hat_i + C ||e_j - e_i||_{A^-1}`` and ``g+ = max(g, 0)``.

*Claim.* On the event, ``gap(M_hat) = theta(M*) - theta(M_hat) <= W``, the maximum weight
of a matching (of any size) between ``M_hat`` and its complement with weights ``g+``.

*Proof.* Let ``I = M_hat \\ M*``, ``J = M* \\ M_hat``, ``|I| = |J| = m``, and take any
bijection ``pi: J -> I``. Then
``theta(M*) - theta(M_hat) = sum_{j in J} (theta_j - theta_pi(j))
= sum_j [(theta_hat_j - theta_hat_pi(j)) + (e_j - e_pi(j)) . (theta - theta_hat)]
<= sum_j g(pi(j), j) <= sum_j g+(pi(j), j) <= W``: the second step is the event for each
direction ``e_j - e_pi(j)`` (``j`` in ``M*``, ``pi(j)`` outside: a member of ``D_1``), the last
because ``{(pi(j), j)}`` is a matching.
``M = M_hat`` gives 0 and ``W >= 0``. QED. Because ``g+ >= 0`` and the bipartite graph is
complete, a maximum-weight matching can be taken of full size ``min(k, n - k)`` (pad with
zero-or-more-weight edges), which is what ``scipy.optimize.linear_sum_assignment`` on the
``k x (n - k)`` matrix computes; time ``O(n^3)``, no densest-subgraph step.

Graded rule (:func:`graded_bound`), on ``E(D_m, delta_m)`` for every ``m`` with
``C_m = C_t(D_m, delta_m)``: let ``P = I - 1 1^T / n`` and ``lambda = lambda_max(P A^-1 P)``.
For an m-swap direction ``y = e_J - e_I``, ``1^T y = 0`` so ``y = P y`` and ``||y||^2_{A^-1} = y^T P A^-1 P y
<= lambda ||y||^2 = 2 m lambda``. Let ``G_m = max_{|M \\ M_hat| = m} theta_hat(M) - theta_hat(M_hat)``,
the sum of the ``m`` largest ``theta_hat_j`` outside ``M_hat`` minus the ``m`` smallest
inside (a sort).

*Claim (spectral).* On the events,
``gap(M_hat) <= max(0, max_m G_m + C_m sqrt(2 m lambda))``.

*Proof.* With ``m = |M* \\ M_hat|``, ``y = x_M* - x_M_hat`` is in ``D_m``, so
``theta(M*) - theta(M_hat) = theta_hat . y + (theta - theta_hat) . y <= G_m + C_m ||y||_{A^-1}
<= G_m + C_m sqrt(2 m lambda)``; ``m = 0`` is ``M_hat = M*`` (0). QED.

``lambda`` is the worst direction of the whole space, and a random static support makes
``A^-1`` far from isotropic (at the stopping time of a 111-arm quiz run, ``2 m lambda`` was
2.3 times the largest ``||y||^2`` over sampled m-swaps). So each term is also bounded by a
*coupled row bound*, and the smaller of the two is used; both bound the same quantity
``T_m = max_{|M \\ M_hat| = m} theta_hat . y_M + C_m ||y_M||_{A^-1}`` on the same event, so no
level is spent on the choice.

*Row bound.* Write ``Q = A^-1``, ``O`` for the complement of ``M_hat``. For ``y = e_J - e_I``,
``||y||^2_Q = sum_{a in J} (Q y)_a - sum_{a in I} (Q y)_a``. For ``a`` in ``J``,
``(Q y)_a = Q_aa + sum_{b in J - a} Q_ab - sum_{b in I} Q_ab <= r_a``, with ``r_a`` =
``Q_aa`` + the ``m - 1`` largest ``Q_ab`` over ``b`` in ``O - a`` - the ``m`` smallest over
``b`` in ``M_hat``; for ``a`` in ``I``, ``-(Q y)_a = Q_aa + sum_{b in I - a} Q_ab - sum_{b in J} Q_ab
<= r_a`` with the same roles swapped (``Q_aa`` + the ``m - 1`` largest ``Q_ab`` over ``M_hat - a``
- the ``m`` smallest over ``O``). So ``||y||^2_Q <= sum_{a in J union I} r_a``.

*Coupling.* For ``s >= 0`` and any ``s0 > 0``, ``sqrt(s) <= (s + s0) / (2 sqrt(s0))``
(``(sqrt(s) - sqrt(s0))^2 >= 0``). With ``c = C_m / (2 sqrt(s0))``,
``theta_hat . y + C_m ||y||_Q <= sum_{j in J} (theta_hat_j + c r_j) + sum_{i in I} (-theta_hat_i + c r_i)
+ C_m sqrt(s0) / 2``, a separable sum maximised over ``J``, ``I`` by taking the ``m`` largest
terms on each side. Every ``s0`` gives an upper bound of ``T_m``; :func:`coupled_swap_terms`
takes the smallest over a geometric grid of ``s0`` (ratio ``2^(1/4)``, so within 0.1% of the
best ``s0`` in the grid's range). Time ``O(n^2 log n)`` for the rows plus
``O(m_max L n log n)`` for ``L`` grid points.

The levels: ``delta_m = delta m^-2 / H``, ``H = sum_{i <= m_max} i^-2`` over the swap sizes
``m_max = min(k, n - k)`` there are (:func:`graded_deltas`; they sum to ``delta``).
``log |D_m|`` grows like ``m log(k (n - k) / m^2)`` anyway, so the ``log(H m^2)`` this costs
at large ``m`` is small, while the single swaps (``m = 1``, the ones that decide most runs)
keep ``delta_1 = delta / H``, from ``delta`` (``m_max = 1``) and ``0.73 delta`` (``k = 3``) down
to ``0.61 delta``, instead of ``delta / m_max``.

The ICB bound (:func:`icb_bound`) is Kuroki et al. (2020), Appendix A, Lemma 1, on the
two-sided event over the ``n`` directions ``e_i``, for top-k. Where the pair rule's matching uses
``||e_j - e_i||_{A^-1}``, ICB uses ``||e_i||_{A^-1} + ||e_j||_{A^-1}`` (larger, by the triangle
inequality; about ``sqrt(2)`` times larger for a balanced design) with a smaller union.

References
----------
M. Soare, A. Lazaric, R. Munos. Best-arm identification in linear bandits. NeurIPS 2014,
Proposition 1 (the fixed-design confidence bound).
Y. Kuroki, L. Xu, A. Miyauchi, J. Honda, M. Sugiyama. Polynomial-time algorithms for
multiple-arm identification with full-bandit feedback. Neural Computation 32(9), 2020,
Proposition 1, objective (5), Appendix A (ICB).

Examples
--------
Two arms clearly in, one clearly out and one close to the boundary: only the swap with
the close arm can still pay, and the pair bound is that single swap's optimistic gain.

>>> import numpy as np
>>> from fullbandit.full.swap_bounds import graded_bound, icb_bound, pair_bound
>>> theta = np.array([1.0, 0.9, 0.85, 0.0])
>>> Q = np.eye(4) * 0.01                    # A^-1: standard errors 0.1 per arm
>>> best = (0, 1)
>>> round(pair_bound(theta, Q, best, radius=1.0).value, 4)      # -0.05 + sqrt(0.02)
0.0914
>>> round(icb_bound(theta, Q, best, radius=1.0), 4)             # -0.05 + 0.1 + 0.1
0.15
>>> round(graded_bound(theta, Q, best, radii=[1.0, 1.0]).value, 4)
0.0914
"""

from __future__ import annotations

import itertools
import math
from typing import NamedTuple

import numpy as np
from scipy.optimize import linear_sum_assignment

from fullbandit.linalg.spectrum import centred_lambda_max


class PairBound(NamedTuple):
    """The pair rule's bound and the matching that attains it.

    Attributes
    ----------
    value : float
        The maximum weight ``W >= 0`` of a matching with weights ``g+``.
    pairs : tuple of (int, int)
        The matched ``(i, j)`` (``i`` in ``M_hat``, ``j`` outside) with positive weight.
    """

    value: float
    pairs: tuple[tuple[int, int], ...]


class GradedBound(NamedTuple):
    """The graded rule's bound and where it is attained.

    Attributes
    ----------
    value : float
        ``max(0, max_m terms_m)``.
    swaps : int
        The maximising swap size ``m`` (0 when no swap can pay: the bound is 0).
    lambda_max : float
        ``lambda_max(P A^-1 P)``.
    terms : tuple of float
        The bound on ``T_m`` used for ``m = 1, ..., min(k, n - k)``: the smaller of
        ``G_m + C_m sqrt(2 m lambda)`` and the coupled row bound (when asked for).
    """

    value: float
    swaps: int
    lambda_max: float
    terms: tuple[float, ...]


def n_pair_directions(n: int) -> int:
    """``n (n - 1) / 2``: all the directions ``e_j - e_i`` up to sign (the pair rule needs only ``k (n - k)``).

    Examples
    --------
    >>> from fullbandit.full.swap_bounds import n_pair_directions
    >>> n_pair_directions(6)
    15
    """
    return n * (n - 1) // 2


def max_swaps(n: int, k: int) -> int:
    """The largest swap size between two k-subsets of ``n`` arms, ``min(k, n - k)``.

    Examples
    --------
    >>> from fullbandit.full.swap_bounds import max_swaps
    >>> max_swaps(6, 2), max_swaps(6, 4)
    (2, 2)
    """
    return min(k, n - k)


def n_swap_directions(n: int, m: int) -> int:
    """``C(n, m) C(n - m, m) / 2``: all the directions ``e_J - e_I`` with ``|I| = |J| = m``, up to sign.

    A bound over all of them would hold for every pair of teams; the rules of this module
    need only the directed ones (:func:`n_directed_swaps`).

    See the module docstring for the count (and why it does not depend on ``k``).

    Examples
    --------
    >>> from fullbandit.full.swap_bounds import n_pair_directions, n_swap_directions
    >>> n_swap_directions(6, 1) == n_pair_directions(6), n_swap_directions(6, 2), n_swap_directions(6, 3)
    (True, 45, 10)
    """
    if not 1 <= m <= n // 2:
        raise ValueError(f"a swap of m={m} arms needs 1 <= m <= n // 2 = {n // 2}")
    return math.comb(n, m) * math.comb(n - m, m) // 2


def n_directed_swaps(n: int, k: int, m: int) -> int:
    """``|D_m| = C(k, m) C(n - k, m)``: the directions ``x_M* - x_M`` with ``|M* \\ M| = m``, one-sided.

    See the module docstring (directed events): only the directions from a team to the
    fixed optimal team ``M*`` need bounding, on one side.

    Examples
    --------
    >>> from fullbandit.full.swap_bounds import n_directed_swaps, n_swap_directions
    >>> n_directed_swaps(10, 3, 1), n_directed_swaps(10, 3, 3), n_swap_directions(10, 3)
    (21, 35, 2100)
    """
    if not 1 <= m <= min(k, n - k):
        raise ValueError(f"a swap of m={m} arms between {k}-subsets of {n} arms needs 1 <= m <= {min(k, n - k)}")
    return math.comb(k, m) * math.comb(n - k, m)


def graded_deltas(delta: float, m_max: int) -> np.ndarray:
    """The levels ``delta_m = delta m^-2 / H``, ``m = 1..m_max``, ``H = sum_{i <= m_max} i^-2`` (they sum to ``delta``).

    Examples
    --------
    >>> from fullbandit.full.swap_bounds import graded_deltas
    >>> levels = graded_deltas(0.1, 3)
    >>> levels.round(5).tolist(), bool(levels.sum() <= 0.1)
    ([0.07347, 0.01837, 0.00816], True)
    """
    weights = 1.0 / np.arange(1, m_max + 1, dtype=float) ** 2
    return delta * weights / math.fsum(weights)


def _split(theta, best) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    theta = np.asarray(theta, dtype=float)
    inside = np.zeros(theta.size, dtype=bool)
    inside[list(best)] = True
    return theta, np.flatnonzero(inside), np.flatnonzero(~inside)


def pair_widths(gram_inverse) -> np.ndarray:
    """``||e_i - e_j||_{A^-1} = sqrt(Q_ii + Q_jj - 2 Q_ij)`` for every pair (rounding below 0 clipped).

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.full.swap_bounds import pair_widths
    >>> pair_widths(np.array([[2.0, 1.0], [1.0, 2.0]])).tolist()
    [[0.0, 1.4142135623730951], [1.4142135623730951, 0.0]]
    """
    Q = np.asarray(gram_inverse, dtype=float)
    d = np.diag(Q)
    return np.sqrt(np.clip(d[:, None] + d[None, :] - 2.0 * Q, 0.0, None))


#: Rows of ``Q`` that the blockwise computations read at once (:func:`pair_beats`, :func:`largest_pair_width`,
#: :func:`swap_rows`): a few MB at n = 10,000 instead of the 800 MB of ``Q``.
ROWS_BLOCK = 256


def _pair_width_blocks(Q: np.ndarray):
    """``(rows, pair_widths(Q)[rows])`` block by block: no ``n x n`` temporaries (10^8 entries at n = 10,000)."""
    d = np.diag(Q)
    for start in range(0, Q.shape[0], ROWS_BLOCK):
        rows = np.arange(start, min(start + ROWS_BLOCK, Q.shape[0]))
        yield rows, np.sqrt(np.clip(d[rows, None] + d[None, :] - 2.0 * Q[rows], 0.0, None))


def pair_beats(theta, gram_inverse, radius: float) -> tuple[np.ndarray, np.ndarray]:
    """For each arm, how many arms it beats and how many beat it: ``theta_i - theta_j > C ||e_i - e_j||_{A^-1}``.

    Entry by entry the comparisons of ``theta[:, None] - theta[None, :] - C * pair_widths(Q) > 0``
    (the same floating-point operations), made a block of rows at a time.

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.full.swap_bounds import pair_beats
    >>> wins, losses = pair_beats(np.array([1.0, 0.5, 0.45]), np.eye(3) * 0.01, radius=2.0)
    >>> wins.tolist(), losses.tolist()                     # 0.05 < 2 sqrt(0.02): arms 1 and 2 are tied
    ([2, 0, 0], [0, 1, 1])
    """
    theta = np.asarray(theta, dtype=float)
    Q = np.asarray(gram_inverse, dtype=float)
    wins = np.zeros(theta.size, dtype=np.int64)
    losses = np.zeros(theta.size, dtype=np.int64)
    for rows, widths in _pair_width_blocks(Q):
        beats = theta[rows, None] - theta[None, :] - radius * widths > 0.0
        beats[np.arange(rows.size), rows] = False
        wins[rows] = beats.sum(axis=1)
        losses += beats.sum(axis=0)
    return wins, losses


def largest_pair_width(gram_inverse) -> float:
    """``max_{i, j} ||e_i - e_j||_{A^-1}``, as ``pair_widths(Q).max()``, a block of rows at a time.

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.full.swap_bounds import largest_pair_width
    >>> round(largest_pair_width(np.diag([1.0, 2.0, 6.0])), 12)   # sqrt(2 + 6)
    2.828427124746
    """
    return max(float(widths.max()) for _, widths in _pair_width_blocks(np.asarray(gram_inverse, dtype=float)))


def pair_gains(theta, gram_inverse, best, radius: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``g(i, j) = theta_hat_j - theta_hat_i + C ||e_j - e_i||_{A^-1}`` for ``i`` in ``best``, ``j`` outside.

    Returns
    -------
    gains : numpy.ndarray of shape (k, n - k)
    inside, outside : numpy.ndarray of int
        The arms of the rows and of the columns (increasing).

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.full.swap_bounds import pair_gains
    >>> gains, inside, outside = pair_gains([0.5, 0.2, 0.4], np.eye(3) / 2, (0, 2), radius=1.0)
    >>> gains.round(3).tolist(), inside.tolist(), outside.tolist()
    ([[0.7], [0.8]], [0, 2], [1])
    """
    theta, inside, outside = _split(theta, best)
    Q = np.asarray(gram_inverse, dtype=float)
    d = np.diag(Q)
    widths = np.sqrt(np.clip(d[inside][:, None] + d[outside][None, :] - 2.0 * Q[np.ix_(inside, outside)], 0.0, None))
    gains = theta[outside][None, :] - theta[inside][:, None] + radius * widths
    return gains, inside, outside


def max_weight_matching(weights) -> tuple[float, list[tuple[int, int]]]:
    """Maximum weight of a matching of any size in a complete bipartite graph, weights clipped at 0.

    Parameters
    ----------
    weights : array_like of shape (a, b)
        Edge weights (negative ones count as 0: an edge may be left out).

    Returns
    -------
    value : float
        The maximum total weight (``>= 0``).
    edges : list of (int, int)
        Row and column of the matched edges of positive weight.

    Examples
    --------
    >>> from fullbandit.full.swap_bounds import max_weight_matching
    >>> max_weight_matching([[3.0, 2.0], [2.0, -1.0]])     # 2 + 2 beats 3 alone
    (4.0, [(0, 1), (1, 0)])
    """
    positive = np.clip(np.asarray(weights, dtype=float), 0.0, None)
    if positive.size == 0:
        return 0.0, []
    rows, cols = linear_sum_assignment(positive, maximize=True)
    edges = [(int(r), int(c)) for r, c in zip(rows, cols, strict=True) if positive[r, c] > 0.0]
    return float(sum(positive[r, c] for r, c in edges)), edges


def pair_bound(theta, gram_inverse, best, radius: float) -> PairBound:
    """The pair rule: ``gap(M_hat) <= W`` on ``E(D_1)`` (proof in the module docstring).

    Parameters
    ----------
    theta : array_like of shape (n,)
        ``theta_hat``.
    gram_inverse : array_like of shape (n, n)
        ``A^-1``.
    best : sequence of int
        ``M_hat``: the k arms of the largest ``theta_hat`` (the bound needs only that
        ``M_hat`` is a k-subset; it is tightest for the empirical best).
    radius : float
        ``C_t(D_1, delta_1)``.

    Returns
    -------
    PairBound

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.full.swap_bounds import pair_bound
    >>> Q = np.diag([0.03, 0.01, 0.01, 0.03])
    >>> bound = pair_bound([1.0, 0.9, 0.85, 0.8], Q, (0, 1), radius=1.5)
    >>> round(bound.value, 4), bound.pairs      # two swaps pay: 0.15 + 0.2 beats 0.1621 + 0.1674
    (0.35, ((0, 2), (1, 3)))
    """
    gains, inside, outside = pair_gains(theta, gram_inverse, best, radius)
    value, edges = max_weight_matching(gains)
    return PairBound(value, tuple((int(inside[r]), int(outside[c])) for r, c in edges))


def swap_gains(theta, best) -> np.ndarray:
    """``G_m = max_{|M \\ M_hat| = m} theta_hat(M) - theta_hat(M_hat)``, ``m = 1..min(k, n - k)``.

    The ``m`` largest estimates outside ``M_hat`` replace the ``m`` smallest inside.

    Examples
    --------
    >>> from fullbandit.full.swap_bounds import swap_gains
    >>> swap_gains([1.0, 0.9, 0.85, 0.8], (0, 1)).round(3).tolist()   # -0.05, -0.05 - 0.2
    [-0.05, -0.25]
    """
    theta, inside, outside = _split(theta, best)
    m_max = min(inside.size, outside.size)
    ins = np.sort(theta[inside])[:m_max]
    outs = np.sort(theta[outside])[::-1][:m_max]
    return np.cumsum(outs - ins)


def projected_lambda_max(gram_inverse) -> float:
    """``lambda_max(P A^-1 P)`` with ``P = I - 1 1^T / n``: ``||y||^2_{A^-1} <= lambda ||y||^2`` when ``1^T y = 0``.

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.full.swap_bounds import projected_lambda_max
    >>> Q = np.eye(3) + 5.0 * np.ones((3, 3))     # the large eigenvalue is along 1, projected out
    >>> round(projected_lambda_max(Q), 12)
    1.0
    """
    return centred_lambda_max(gram_inverse)


def swap_rows(gram_inverse, best, m_max: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The row bounds ``r_a`` for every swap size: ``||e_J - e_I||^2_{A^-1} <= sum_{a in J union I} r_a``.

    See the module docstring (row bound) for the definition and the proof.

    Parameters
    ----------
    gram_inverse : array_like of shape (n, n)
        ``Q = A^-1``.
    best : sequence of int
        ``M_hat`` (a k-subset).
    m_max : int, optional
        The largest swap size (default ``min(k, n - k)``).

    Returns
    -------
    outside_rows : numpy.ndarray of shape (m_max, n - k)
        ``r_a`` for the arms outside ``M_hat`` (increasing), row ``m - 1`` for ``m`` swaps.
    inside_rows : numpy.ndarray of shape (m_max, k)
        ``r_a`` for the arms of ``M_hat`` (increasing).

    Examples
    --------
    A diagonal ``Q``: the bound is exact, ``||e_J - e_I||^2 = sum of the diagonal entries``.

    >>> import numpy as np
    >>> from fullbandit.full.swap_bounds import swap_rows
    >>> out_rows, in_rows = swap_rows(np.diag([1.0, 2.0, 3.0, 4.0]), (0, 1))
    >>> out_rows.tolist(), in_rows.tolist()
    ([[3.0, 4.0], [3.0, 4.0]], [[1.0, 2.0], [1.0, 2.0]])
    """
    Q = np.asarray(gram_inverse, dtype=float)
    _, inside, outside = _split(np.zeros(Q.shape[0]), best)
    m_max = min(inside.size, outside.size) if m_max is None else m_max

    def rows(own: np.ndarray, other: np.ndarray) -> np.ndarray:
        # Q_aa + the m - 1 largest Q_ab on a's own side (b != a) - the m smallest across. Only the
        # m_max extremes of each row are sorted, a block of rows at a time: at n = 10,000 the
        # outside block is 10^8 entries.
        result = np.empty((m_max, own.size))
        for start in range(0, own.size, ROWS_BLOCK):
            chunk = own[start:start + ROWS_BLOCK]
            within = Q[np.ix_(chunk, own)]
            within[np.arange(chunk.size), start + np.arange(chunk.size)] = -np.inf  # a itself
            largest = -_smallest_sorted(-within, m_max)[:, : m_max - 1]
            within_sums = np.concatenate([np.zeros((chunk.size, 1)), np.cumsum(largest, axis=1)], axis=1)
            across_sums = np.cumsum(_smallest_sorted(Q[np.ix_(chunk, other)], m_max), axis=1)
            result[:, start:start + chunk.size] = np.diag(Q)[chunk][None, :] + within_sums.T - across_sums.T
        return result

    return rows(outside, inside), rows(inside, outside)


def _smallest_sorted(rows: np.ndarray, count: int) -> np.ndarray:
    """The ``count`` smallest entries of each row, increasing (a partial sort when ``count`` is small)."""
    if count < rows.shape[1]:
        rows = np.partition(rows, count - 1, axis=1)[:, :count]
    return np.sort(rows, axis=1)


#: The grid of ``s0 / S_m`` in the coupled bound: 2^(-i/4), i = 0..47.
S0_GRID = 2.0 ** (-np.arange(48) / 4.0)


def coupled_swap_terms(theta, gram_inverse, best, radii) -> np.ndarray:
    """Upper bounds of ``T_m = max_{m swaps} theta_hat . y_M + C_m ||y_M||_{A^-1}``, row bound and tangent.

    See the module docstring (coupling) for the proof. ``s0`` runs over ``S_m`` times
    :data:`S0_GRID`, with ``S_m`` the largest value the row bound can take for ``m`` swaps.

    Parameters
    ----------
    theta : array_like of shape (n,)
        ``theta_hat``.
    gram_inverse : array_like of shape (n, n)
        ``A^-1``.
    best : sequence of int
        ``M_hat`` (a k-subset).
    radii : array_like of shape (min(k, n - k),)
        ``C_m`` for ``m = 1, 2, ...``.

    Returns
    -------
    numpy.ndarray of shape (min(k, n - k),)

    Examples
    --------
    A diagonal ``Q`` with one noisy arm outside: the spectral bound charges that arm's variance
    to every swap, the coupled bound mostly to the swaps that take it (the exact ``T_1`` is
    ``-0.05 + sqrt(0.02) = 0.091``).

    >>> import numpy as np
    >>> from fullbandit.full.swap_bounds import coupled_swap_terms, swap_gains, projected_lambda_max
    >>> theta, Q, best = np.array([1.0, 0.9, 0.85, 0.5]), np.diag([0.01, 0.01, 0.01, 0.2]), (0, 1)
    >>> coupled = coupled_swap_terms(theta, Q, best, [1.0, 1.0])
    >>> spectral = swap_gains(theta, best) + np.sqrt(2 * np.arange(1, 3) * projected_lambda_max(Q))
    >>> coupled.round(3).tolist(), spectral.round(3).tolist()   # exact for m = 2: -0.55 + sqrt(0.23)
    ([0.123, -0.07], [0.502, 0.231])
    """
    theta, inside, outside = _split(theta, best)
    radii = np.asarray(radii, dtype=float)
    out_rows, in_rows = swap_rows(gram_inverse, best, radii.size)
    terms = np.empty(radii.size)
    for index, radius in enumerate(radii):
        m = index + 1
        largest = np.sort(out_rows[index])[::-1][:m].sum() + np.sort(in_rows[index])[::-1][:m].sum()
        if radius <= 0.0 or largest <= 0.0:  # every width is 0: the term is the best empirical gain
            terms[index] = np.sort(theta[outside])[::-1][:m].sum() - np.sort(theta[inside])[:m].sum()
            continue
        s0 = largest * S0_GRID
        c = radius / (2.0 * np.sqrt(s0))[:, None]
        outs = -np.sort(-(theta[outside][None, :] + c * out_rows[index][None, :]), axis=1)[:, :m].sum(axis=1)
        ins = -np.sort(-(-theta[inside][None, :] + c * in_rows[index][None, :]), axis=1)[:, :m].sum(axis=1)
        terms[index] = float(np.min(outs + ins + radius * np.sqrt(s0) / 2.0))
    return terms


def graded_bound(theta, gram_inverse, best, radii, *, lambda_max: float | None = None,
                 rows: bool = True) -> GradedBound:
    """The graded rule: ``max(0, max_m min(G_m + C_m sqrt(2 m lambda), coupled row bound))`` (proofs above).

    Parameters
    ----------
    theta : array_like of shape (n,)
        ``theta_hat``.
    gram_inverse : array_like of shape (n, n)
        ``A^-1``.
    best : sequence of int
        ``M_hat`` (a k-subset).
    radii : array_like of shape (min(k, n - k),)
        ``C_m = C_t(D_m, delta_m)`` for ``m = 1, 2, ...``.
    lambda_max : float, optional
        ``lambda_max(P A^-1 P)`` if already known.
    rows : bool
        Also use the coupled row bound (:func:`coupled_swap_terms`); ``False`` gives the
        spectral bound alone.

    Returns
    -------
    GradedBound

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.full.swap_bounds import graded_bound
    >>> bound = graded_bound([1.0, 0.9, 0.85, 0.8], np.eye(4) * 0.01, (0, 1), radii=[1.0, 1.2])
    >>> round(bound.value, 4), bound.swaps, [round(v, 4) for v in bound.terms]
    (0.0914, 1, [0.0914, -0.01])
    """
    gains = swap_gains(theta, best)
    radii = np.asarray(radii, dtype=float)
    if radii.shape != gains.shape:
        raise ValueError(f"radii must hold one radius per swap size 1..{gains.size}, got shape {radii.shape}")
    lam = projected_lambda_max(gram_inverse) if lambda_max is None else float(lambda_max)
    m = np.arange(1, gains.size + 1, dtype=float)
    terms = gains + radii * np.sqrt(2.0 * m * lam)
    if rows and terms.size:
        terms = np.minimum(terms, coupled_swap_terms(theta, gram_inverse, best, radii))
    top = int(np.argmax(terms)) if terms.size else 0
    if not terms.size or terms[top] <= 0.0:
        return GradedBound(0.0, 0, lam, tuple(float(v) for v in terms))
    return GradedBound(float(terms[top]), top + 1, lam, tuple(float(v) for v in terms))


def icb_bound(theta, gram_inverse, best, radius: float) -> float:
    """ICB for top-k: ``max_M sum_{M} w - sum_{M_hat} w``, ``w = theta_hat -/+ C sqrt((A^-1)_ii)`` in/out.

    Kuroki et al. (2020), Appendix A, Lemma 1, on the event over the ``n`` arms; the same value as
    :class:`fullbandit.ICB`'s statistic at the same radius.

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.full.swap_bounds import icb_bound
    >>> round(icb_bound([1.0, 0.9, 0.85, 0.8], np.eye(4) * 0.01, (0, 1), radius=1.0), 4)   # 0.8 -> 0.95 pays
    0.15
    """
    theta, inside, _ = _split(theta, best)
    beta = radius * np.sqrt(np.clip(np.diag(np.asarray(gram_inverse, dtype=float)), 0.0, None))
    weights = theta + beta
    weights[inside] = theta[inside] - beta[inside]
    k = inside.size
    return max(float(np.sort(weights)[::-1][:k].sum() - weights[inside].sum()), 0.0)


#: The largest number of m-swaps per swap size that :func:`exact_swap_terms` enumerates.
EXACT_SWAP_LIMIT = 200_000
#: The bounds :func:`team_bound` may combine, per swap size.
TERM_RULES = ("pair", "graded", "exact")
LABEL_TOLERANCE = 1e-9  # relative: terms this close are one value computed in two orders


class TeamBound(NamedTuple):
    """A team's certified gap bound ``max(0, max_m min_rule term[rule][m])`` and where it is attained.

    Attributes
    ----------
    value : float
        The bound (``>= 0``).
    swaps : int
        The swap size ``m`` that attains it (0 when every term is at most 0).
    rule : str
        The rule whose term is the smallest at that ``m`` (``""`` when ``swaps == 0``). Where terms
        tie to rounding (``LABEL_TOLERANCE``), the smallest ``m`` and the first rule of
        ``TERM_RULES`` are named.
    terms : dict of str to tuple of float
        Each rule's term for ``m = 1, ..., min(k, n - k)`` (``inf`` where a rule gives none, or,
        for the pair terms, where another rule's term is already at most the bound, so that
        the pair term cannot change it and is not computed).
    """

    value: float
    swaps: int
    rule: str
    terms: dict[str, tuple[float, ...]]


def _oriented(weights: np.ndarray) -> np.ndarray:
    return weights if weights.shape[0] <= weights.shape[1] else weights.T


def pair_terms(theta, gram_inverse, team, radius: float) -> np.ndarray:
    """``P_m``: the largest total of ``g(i, j)`` over matchings of exactly ``m`` pairs, ``m = 1..min(k, n - k)``.

    ``g(i, j) = theta_hat_j - theta_hat_i + C_1 ||e_j - e_i||_{A^-1}`` for ``i`` in the team and
    ``j`` outside (unclipped). On ``E(D_1)``, if ``|M* \\ team| = m`` then ``gap(team) <= P_m``
    (the pair rule's proof with a bijection of exactly ``m`` pairs). Each ``m`` is one
    assignment problem: the ``s - m`` extra columns (``s`` the smaller side) of weight
    larger than any matching take ``s - m`` rows, the other ``m`` are matched at best.

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.full.swap_bounds import pair_bound, pair_terms
    >>> theta, Q = [1.0, 0.9, 0.85, 0.8], np.diag([0.03, 0.01, 0.01, 0.03])
    >>> pair_terms(theta, Q, (0, 1), radius=1.5).round(4).tolist()
    [0.2, 0.35]
    >>> round(pair_bound(theta, Q, (0, 1), radius=1.5).value, 4)    # max(0, max_m P_m)
    0.35
    """
    gains, _, _ = pair_gains(theta, gram_inverse, team, radius)
    weights = _oriented(gains)
    return np.array([_matching_of_size(weights, m) for m in range(1, weights.shape[0] + 1)])


def exact_swap_terms(theta, gram_inverse, team, radii, limit: int = EXACT_SWAP_LIMIT) -> np.ndarray:
    """``T_m = max_{|M \\ team| = m} theta_hat . y + C_m ||y||_{A^-1}`` (``y = x_M - x_team``) by enumeration.

    Exact where the ``C(k, m) C(n - k, m)`` m-swaps number at most ``limit``; ``inf`` for the
    other ``m`` (no bound from this rule there). On ``E(D_m)``, if ``|M* \\ team| = m`` then
    ``gap(team) <= T_m`` (the graded rule's proof without its relaxations). Time
    ``O(limit m^2)`` per swap size.

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.full.swap_bounds import exact_swap_terms
    >>> theta, Q = np.array([1.0, 0.9, 0.85, 0.5]), np.diag([0.01, 0.01, 0.01, 0.2])
    >>> exact_swap_terms(theta, Q, (0, 1), [1.0, 1.0]).round(4).tolist()   # -0.05 + sqrt(0.02); -0.55 + sqrt(0.23)
    [0.0914, -0.0704]
    >>> exact_swap_terms(theta, Q, (0, 1), [1.0, 1.0], limit=3).round(4).tolist()   # 4 single swaps > 3
    [inf, -0.0704]
    """
    theta, inside, outside = _split(theta, team)
    Q = np.asarray(gram_inverse, dtype=float)
    radii = np.asarray(radii, dtype=float)
    terms = np.full(radii.size, math.inf)
    cross = Q[np.ix_(inside, outside)]
    for index, radius in enumerate(radii.tolist()):
        m = index + 1
        if math.comb(inside.size, m) * math.comb(outside.size, m) > limit:
            continue
        removed = _subsets(inside.size, m)  # (a, m) positions in ``inside``
        added = _subsets(outside.size, m)  # (b, m) positions in ``outside``
        own_in = _block_sums(Q[np.ix_(inside, inside)], removed)
        own_out = _block_sums(Q[np.ix_(outside, outside)], added)
        between = cross[removed].sum(axis=1)[:, added].sum(axis=2)  # (a, b): sum of Q over I x J
        variance = np.clip(own_out[None, :] + own_in[:, None] - 2.0 * between, 0.0, None)
        gain = theta[outside][added].sum(axis=1)[None, :] - theta[inside][removed].sum(axis=1)[:, None]
        terms[index] = float(np.max(gain + radius * np.sqrt(variance)))
    return terms


def _subsets(size: int, m: int) -> np.ndarray:
    """Every m-subset of ``range(size)``, one row each."""
    return np.array(list(itertools.combinations(range(size), m)), dtype=np.intp).reshape(-1, m)


def _block_sums(block: np.ndarray, subsets: np.ndarray) -> np.ndarray:
    """``sum_{p, q in S} block[p, q]`` for every row ``S`` of ``subsets``."""
    return block[subsets[:, :, None], subsets[:, None, :]].sum(axis=(1, 2))


def _needed_pair_terms(theta, gram_inverse, team, radius: float, sizes: int, others) -> np.ndarray:
    """The pair terms ``P_m`` where they can decide ``max_m min_r term_r(m)``, ``inf`` elsewhere.

    Each ``P_m`` is an assignment problem; with ``c_m`` the smallest of the other rules' terms,
    ``min(P_m, c_m) <= c_m``, so once the running maximum reaches ``c_m`` the size ``m`` cannot
    raise it. Taking the sizes in decreasing order of ``c_m`` usually needs one or two of them.
    """
    cheap = np.min(np.vstack([np.full(sizes, math.inf), *others]), axis=0)
    if not np.isfinite(cheap).any():  # the pair terms alone: every size is needed
        return pair_terms(theta, gram_inverse, team, radius)
    gains, _, _ = pair_gains(theta, gram_inverse, team, radius)
    weights = _oriented(gains)
    pair = np.full(sizes, math.inf)
    best = 0.0
    for index in np.argsort(-cheap, kind="stable").tolist():
        if cheap[index] <= best:
            break
        pair[index] = _matching_of_size(weights, index + 1)
        best = max(best, min(pair[index], cheap[index]))
    return pair


def _matching_of_size(weights: np.ndarray, m: int) -> float:
    """The largest total weight of a matching of exactly ``m`` edges (``weights`` with at most as many rows as
    columns): ``s - m`` extra columns heavier than any matching take ``s - m`` rows."""
    rows, columns = weights.shape
    big = 1.0 + 2.0 * float(np.abs(weights).sum())
    padded = np.hstack([weights, np.full((rows, rows - m), big)])
    chosen_rows, chosen_columns = linear_sum_assignment(padded, maximize=True)
    real = chosen_columns < columns
    return float(weights[chosen_rows[real], chosen_columns[real]].sum())


def team_bound(theta, gram_inverse, team, radii, *, rules=TERM_RULES, lambda_max: float | None = None,
               exact_limit: int = EXACT_SWAP_LIMIT) -> TeamBound:
    """A certified bound on ``gap(team)``: ``max(0, max_m min over rules of the rule's m-swap term)``.

    *Claim.* On the directed events ``E(D_m, delta_m)`` (module docstring), with ``C_m`` their
    radii (``C_1`` for the pair terms), ``gap(team) <= max(0, max_m min_r term_r(m))`` for
    every team at once.

    *Proof.* Let ``m* = |M* \\ team|``. If ``m* = 0`` the gap is 0. Otherwise each rule's
    ``m*``-th term bounds the gap on its event: the pair terms ``P_m`` (:func:`pair_terms`),
    the graded terms (spectral and coupled row bounds of ``T_m``, :func:`graded_bound`) and
    the exact ``T_m`` (:func:`exact_swap_terms`). So the gap is at most their minimum at
    ``m*``, which is at most the maximum over ``m`` of the minima. QED. This is never larger
    than the smaller of the pair rule's and the graded rule's own bounds (each a maximum over
    ``m`` of one rule's terms), and smaller where different swap sizes favour different
    rules (the pair terms grow like ``m C_1 w``, the graded ones like ``sqrt(m) C_m w``).

    Parameters
    ----------
    theta, gram_inverse
        ``theta_hat`` and ``A^-1``.
    team : sequence of int
        The k-subset to bound.
    radii : array_like of shape (min(k, n - k),)
        ``C_m`` for ``m = 1, 2, ...``.
    rules : sequence of {"pair", "graded", "exact"}
        The rules to combine.
    lambda_max : float, optional
        ``lambda_max(P A^-1 P)`` if already known (graded rule).
    exact_limit : int
        The exact rule's enumeration limit per swap size.

    Returns
    -------
    TeamBound

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.full.swap_bounds import graded_bound, pair_bound, team_bound
    >>> theta, Q, team = np.array([1.0, 0.9, 0.5, 0.45, 0.4]), np.eye(5) * 0.01, (0, 1)
    >>> bound = team_bound(theta, Q, team, radii=[3.0, 3.2])
    >>> round(bound.value, 4), bound.swaps            # swap 1 for 2: -0.4 + 3 sqrt(0.02)
    (0.0243, 1)
    >>> bound.value <= min(pair_bound(theta, Q, team, 3.0).value, graded_bound(theta, Q, team, [3.0, 3.2]).value)
    True
    """
    unknown = sorted(set(rules) - set(TERM_RULES))
    if unknown or not rules:
        raise ValueError(f"rules must be a non-empty subset of {TERM_RULES}, got {tuple(rules)}")
    radii = np.asarray(radii, dtype=float)
    terms: dict[str, np.ndarray] = {}
    if "graded" in rules:
        terms["graded"] = np.asarray(graded_bound(theta, gram_inverse, team, radii, lambda_max=lambda_max).terms)
    if "exact" in rules:
        terms["exact"] = exact_swap_terms(theta, gram_inverse, team, radii, exact_limit)
    if "pair" in rules:
        terms["pair"] = _needed_pair_terms(theta, gram_inverse, team, float(radii[0]), radii.size, terms.values())
    names = [name for name in TERM_RULES if name in terms]
    table = np.vstack([terms[name] for name in names])
    smallest = table.min(axis=0)
    report = {name: tuple(float(v) for v in terms[name]) for name in names}
    if not smallest.size or smallest.max() <= 0.0:
        return TeamBound(0.0, 0, "", report)
    # Rules and swap sizes often tie exactly in exact arithmetic (at m = 1 the graded row bound
    # is the exact maximum when one swap attains it): name the first within rounding of the
    # extreme, so that the label does not depend on the order of a sum.
    value = float(smallest.max())
    m = int(np.flatnonzero(smallest >= value - _rounding(value))[0])
    rule = names[int(np.flatnonzero(table[:, m] <= smallest[m] + _rounding(smallest[m]))[0])]
    return TeamBound(value, m + 1, rule, report)


def _rounding(value: float) -> float:
    """How far two computations of ``value`` may differ by the order of their sums alone."""
    return LABEL_TOLERANCE * max(1.0, abs(value))
