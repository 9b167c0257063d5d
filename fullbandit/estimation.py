"""Least squares over a static design and the confidence radius ``C_t``.

With a static allocation the pulled super-arms come from a fixed support chosen before
any reward is seen, so a pull only bumps a count and a reward sum per support member
(O(1)). The least-squares estimate behind the confidence bound of Kuroki et al. (2020),
Proposition 1, ``theta_hat_t = A_t^-1 b_t`` with ``A_t = sum_s x_s x_s^T`` and ``b_t = sum_s r_s x_s``,
depends on the pulls only through these: with ``T_j`` pulls of member ``x_j`` and reward
sum ``S_j``, ``A_t = sum_j T_j x_j x_j^T`` and ``b_t = sum_j S_j x_j``. So the Gram matrix,
its Cholesky factor and ``theta_hat_t`` are formed only when a stopping rule is checked.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from fullbandit._validation import InvalidParameterError, check_choice, check_int, check_probability, check_real

CONFIDENCE_CONSTANTS = ("tight", "paper", "stitched")
SINGULAR_TOLERANCE = 1e-10  # relative pivot size below which a Gram matrix counts as singular


class SingularDesignError(InvalidParameterError):
    """The pulled super-arms do not span R^n, so ``theta`` is not identifiable from them.

    Examples
    --------
    >>> from fullbandit.estimation import SingularDesignError, StaticDesign
    >>> design = StaticDesign(3, [(0, 1), (1, 2)])
    >>> design.record(0, 1.0)
    >>> design.record(1, 1.0)
    >>> design.estimate()  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    fullbandit.estimation.SingularDesignError: the pulled super-arms span rank 2 < n=3: theta is not identifiable; ...
    """


def confidence_radius(t: int, delta: float, noise_scale: float, n_directions: int,
                      confidence: str = "tight", *, check: int | None = None) -> float:
    """The radius ``C_t`` of a confidence bound valid for all rounds and directions at once.

    With probability at least ``1 - delta``, for every round ``t >= 1`` and every ``x`` in a
    fixed set of ``n_directions`` vectors, ``|x . (theta - theta_hat_t)| <= C_t ||x||_{A_t^-1}``,
    provided the sequence of pulls is fixed in advance and the noise is
    ``noise_scale``-sub-Gaussian.

    Parameters
    ----------
    t : int
        Number of pulls so far, ``t >= 1``.
    delta : float
        Error probability, ``0 < delta < 1``.
    noise_scale : float
        Sub-Gaussian scale ``R`` of one observation's noise, ``R > 0``.
    n_directions : int
        Size of the union bound ``|X|`` (may be a huge exact integer such as ``C(n, k)^2``).
    confidence : {"tight", "paper", "stitched"}
        Which constant (the algorithms' parameter of the same name).
        ``"paper"``: ``2 sqrt(2) R sqrt(log(6 t^2 |X| / (pi^2 delta)))`` (Soare, Lazaric,
        Munos 2014, Proposition 1, as used by Kuroki et al. 2020, Proposition 1).
        ``"tight"``: ``R sqrt(2 log(pi^2 t^2 |X| / (3 delta)))``. Derivation: for a fixed
        design, ``x . (theta_hat - theta)`` is sub-Gaussian with variance proxy
        ``R^2 ||x||^2_{A^-1}``, so a two-sided bound at level ``delta_t`` has radius
        ``R sqrt(2 log(2 / delta_t))``; a union over ``|X|`` directions and over ``t`` with
        ``delta_t = 6 delta / (pi^2 t^2 |X|)`` (these sum to ``delta``) gives the formula.
        ``"stitched"``: ``R sqrt(2 log(pi^2 j^2 |X| / (3 delta)))`` for the ``j``-th stopping
        check (``check=j``), valid at the checks only. Derivation: as ``"tight"``, with the
        union over the checks instead of over every round. It is rigorous when the rounds
        at which the rule is checked are fixed in advance (a static design checked on the
        geometric schedule ``t_{j+1} = ceil((1 + g) t_j)``: the schedule reads no reward),
        and as ``j`` grows like ``log(t) / log(1 + g)`` it costs ``2 log log t`` where
        ``"tight"`` costs ``2 log t`` (the stitching of time-uniform bounds, e.g. Howard,
        Ramdas, McAuliffe, Sekhon 2021, Annals of Statistics 49(2), section 3).
    check : int, optional
        Index ``j >= 1`` of the stopping check, for ``confidence="stitched"`` (required there).

    Returns
    -------
    float
        ``C_t``.

    Raises
    ------
    InvalidParameterError
        For an argument out of range, or ``confidence="paper"`` where its logarithm is
        not positive.

    Examples
    --------
    ``R sqrt(2 log(pi^2 t^2 |X| / (3 delta)))`` with ``t = 100``, ``|X| = 20``,
    ``delta = 0.05``, ``R = 1``:

    >>> import math
    >>> from fullbandit.estimation import confidence_radius
    >>> radius = confidence_radius(100, 0.05, 1.0, 20)
    >>> round(radius, 6), round(math.sqrt(2 * math.log(math.pi ** 2 * 100 ** 2 * 20 / (3 * 0.05))), 6)
    (5.725845, 5.725845)
    >>> round(confidence_radius(100, 0.05, 1.0, 20, confidence="paper"), 6)
    10.845867
    >>> round(confidence_radius(100, 0.05, 2.0, 20) / radius, 12)  # linear in R
    2.0
    >>> confidence_radius(100, 0.05, 1.0, 20, "stitched", check=100) == radius  # j = t: the same
    True
    >>> round(confidence_radius(10**6, 0.05, 1.0, 20, "stitched", check=200), 3)  # 200th check
    5.963
    >>> round(confidence_radius(10**6, 0.05, 1.0, 20), 3)  # the same round, union over every round
    8.344
    """
    check_int("t", t, low=1)
    check_probability("delta", delta)
    check_real("noise_scale", noise_scale, low=0.0, low_inclusive=False)
    check_int("n_directions", n_directions, low=1)
    check_choice("confidence", confidence, CONFIDENCE_CONSTANTS)
    log_directions = math.log(n_directions)  # exact for huge Python integers
    if confidence == "stitched":
        if check is None:
            raise InvalidParameterError("confidence='stitched' needs check= (the index j >= 1 of the stopping check)")
        t = check_int("check", check, low=1, high=t)  # at most one check per round
    if confidence == "paper":
        log_term = math.log(6.0 * t * t / (math.pi ** 2 * delta)) + log_directions
        if log_term <= 0:
            raise InvalidParameterError(
                f"the paper's constant needs 6 t^2 |X| / (pi^2 delta) > 1; got t={t}, |X|={n_directions}, "
                f"delta={delta}: use confidence='tight'")
        return 2.0 * math.sqrt(2.0) * noise_scale * math.sqrt(log_term)
    log_term = math.log(math.pi ** 2 * t * t / (3.0 * delta)) + log_directions
    return noise_scale * math.sqrt(2.0 * log_term)


@dataclass(frozen=True)
class LeastSquaresEstimate:
    """``theta_hat = A^-1 b`` with the Gram matrix ``A`` and its inverse ``A^-1``.

    Parameters
    ----------
    theta : numpy.ndarray of shape (n,)
        The estimate ``theta_hat``.
    gram : numpy.ndarray of shape (n, n)
        ``A = sum_s x_s x_s^T`` over the pulls.
    gram_inverse : numpy.ndarray of shape (n, n)
        ``A^-1`` (exactly symmetric).
    pulls : int
        Number of pulls the estimate is built on.

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.estimation import LeastSquaresEstimate
    >>> gram = np.array([[2.0, 1.0], [1.0, 2.0]])
    >>> estimate = LeastSquaresEstimate(np.zeros(2), gram, np.linalg.inv(gram), pulls=3)
    >>> round(estimate.width([1.0, 1.0]), 12)  # (1, 1) A^-1 (1, 1)^T = 2/3
    0.816496580928
    """

    theta: np.ndarray
    gram: np.ndarray
    gram_inverse: np.ndarray
    pulls: int

    def width(self, x) -> float:
        """``||x||_{A^-1}``: the standard error of ``x . theta_hat`` in units of the noise scale.

        Parameters
        ----------
        x : array_like of shape (n,)
            A direction (e.g. a super-arm's indicator, or a difference of two).

        Returns
        -------
        float
            ``sqrt(x^T A^-1 x)`` (rounding below zero is clipped to zero).

        Examples
        --------
        >>> import numpy as np
        >>> from fullbandit.estimation import LeastSquaresEstimate
        >>> estimate = LeastSquaresEstimate(np.zeros(2), 4 * np.eye(2), np.eye(2) / 4, pulls=8)
        >>> estimate.width([1.0, 0.0])
        0.5
        """
        x = np.asarray(x, dtype=float)
        return float(math.sqrt(max(x @ self.gram_inverse @ x, 0.0)))


class StaticDesign:
    """Counts and reward sums per member of a fixed support of super-arms.

    Parameters
    ----------
    n : int
        Number of single arms.
    support : sequence of super-arms
        The super-arms that may be pulled, each a sequence of arm indices.

    Attributes
    ----------
    matrix : numpy.ndarray of shape (m, n)
        The members' 0/1 indicators, one row each.
    counts : numpy.ndarray of int
        Pulls per member.
    reward_sums : numpy.ndarray
        Sum of the observed rewards per member.
    pulls : int
        Total pulls recorded.

    Examples
    --------
    Three pairs of three arms with noiseless rewards recover the means:

    >>> from fullbandit.estimation import StaticDesign
    >>> design = StaticDesign(3, [(0, 1), (1, 2), (0, 2)])
    >>> for member, reward in [(0, 1.5), (1, 2.5), (2, 2.0)]:
    ...     design.record(member, reward)
    >>> design.estimate().theta.round(12).tolist()
    [0.5, 1.0, 1.5]
    """

    def __init__(self, n: int, support):
        self.n = n
        self.support = tuple(tuple(int(i) for i in arm) for arm in support)
        if any(not 0 <= i < n for arm in self.support for i in arm):
            raise InvalidParameterError(f"support members must hold arm indices in 0..{n - 1}")
        self.matrix = np.zeros((len(self.support), n))
        for row, arm in enumerate(self.support):
            self.matrix[row, list(arm)] = 1.0
        self.counts = np.zeros(len(self.support), dtype=np.int64)
        self.reward_sums = np.zeros(len(self.support))
        self.pulls = 0

    def record(self, member: int, reward: float, count: int = 1) -> None:
        """Record the summed reward of ``count`` pulls of support member ``member``.

        Parameters
        ----------
        member : int
            Index of the member in ``support``.
        reward : float
            Sum of the ``count`` observed rewards.
        count : int
            Number of pulls.

        Examples
        --------
        >>> from fullbandit.estimation import StaticDesign
        >>> design = StaticDesign(2, [(0,), (1,)])
        >>> design.record(1, 3.0, count=2)
        >>> design.counts.tolist(), design.reward_sums.tolist(), design.pulls
        ([0, 2], [0.0, 3.0], 2)
        """
        self.counts[member] += count
        self.reward_sums[member] += reward
        self.pulls += count

    def rank(self) -> int:
        """Rank of the super-arms pulled at least once.

        Returns
        -------
        int
            ``n`` exactly when :meth:`estimate` can identify ``theta``.

        Examples
        --------
        >>> from fullbandit.estimation import StaticDesign
        >>> design = StaticDesign(3, [(0, 1), (1, 2), (0, 2)])
        >>> design.record(0, 1.0)
        >>> design.rank()
        1
        """
        pulled = self.matrix[self.counts > 0]
        return int(np.linalg.matrix_rank(pulled)) if pulled.size else 0

    def estimate(self) -> LeastSquaresEstimate:
        """Least squares from the pulls so far (Cholesky solves; no accumulated updates).

        Returns
        -------
        LeastSquaresEstimate
            ``theta_hat``, ``A`` and ``A^-1`` for the pulls recorded so far.

        Raises
        ------
        SingularDesignError
            If the pulled super-arms do not span R^n.

        Examples
        --------
        >>> from fullbandit.estimation import StaticDesign
        >>> design = StaticDesign(2, [(0,), (1,)])
        >>> design.record(0, 3.0, count=2)
        >>> design.record(1, 1.0)
        >>> estimate = design.estimate()
        >>> estimate.theta.round(12).tolist(), estimate.gram.tolist(), estimate.pulls
        ([1.5, 1.0], [[2.0, 0.0], [0.0, 1.0]], 3)
        """
        gram = self.matrix.T @ (self.counts[:, None] * self.matrix)
        b = self.matrix.T @ self.reward_sums
        # numpy only: mixing numpy's and scipy's BLAS thread pools in one loop made each
        # call several times slower (measured with benchmarks/bench_core.py).
        try:
            lower = np.linalg.cholesky(gram)
            # An exactly singular integer Gram matrix can factorise with a rounding-sized
            # pivot; min pivot^2 >= lambda_min(A), so a tiny pivot means rank < n.
            if np.min(np.diag(lower)) ** 2 <= SINGULAR_TOLERANCE * np.max(np.diag(gram)):
                raise np.linalg.LinAlgError
        except np.linalg.LinAlgError:
            raise SingularDesignError(
                f"the pulled super-arms span rank {self.rank()} < n={self.n}: theta is not "
                "identifiable; pull every support member once with a support that spans R^n") from None
        lower_inverse = np.linalg.inv(lower)
        inverse = lower_inverse.T @ lower_inverse  # symmetric to rounding: A^-1 = L^-T L^-1
        inverse = (inverse + inverse.T) / 2.0  # exact symmetry keeps eigvalsh and the QP weights consistent
        theta = inverse @ b
        return LeastSquaresEstimate(theta=theta, gram=gram, gram_inverse=inverse, pulls=self.pulls)
