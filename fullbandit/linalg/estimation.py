"""Least squares over a static design and the confidence radius ``C_t``.

With a static allocation the pulled super-arms come from a fixed support chosen before
any reward is seen, so a pull only bumps a count and a reward sum per support member
(O(1)). The least-squares estimate behind the confidence bound of Kuroki et al. (2020),
Proposition 1, ``theta_hat_t = A_t^-1 b_t`` with ``A_t = sum_s x_s x_s^T`` and ``b_t = sum_s r_s x_s``,
depends on the pulls only through these: with ``T_j`` pulls of member ``x_j`` and reward
sum ``S_j``, ``A_t = sum_j T_j x_j x_j^T`` and ``b_t = sum_j S_j x_j``. So the Gram matrix,
its Cholesky factor and ``theta_hat_t`` are formed only when a stopping rule is checked.

For the variance-adaptive radius (``confidence="bernstein"``, bounded rewards) the design
also keeps each member's sum of squared rewards ``Q_j``, from which
:meth:`StaticDesign.bernstein_terms` bounds every member's reward standard deviation.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

import numpy as np

from fullbandit.linalg.incidence import Incidence
from fullbandit.linalg.spectrum import InverseSpectrum, SingularMatrixError, cholesky_inverse
from fullbandit.util.validation import InvalidParameterError, check_choice, check_int, check_probability, check_real

CONFIDENCE_CONSTANTS = ("tight", "paper", "stitched", "bernstein")
#: The options of ``confidence`` that need a bounded reward range and the sums of squared rewards.
RANGE_CONFIDENCES = ("bernstein",)


class SingularDesignError(InvalidParameterError):
    """The pulled super-arms do not span R^n, so ``theta`` is not identifiable from them.

    Examples
    --------
    >>> from fullbandit.linalg.estimation import SingularDesignError, StaticDesign
    >>> design = StaticDesign(3, [(0, 1), (1, 2)])
    >>> design.record(0, 1.0)
    >>> design.record(1, 1.0)
    >>> design.estimate()  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    fullbandit.linalg.estimation.SingularDesignError: the pulled super-arms span rank 2 < n=3: ...
    """


def union_log(index: int, delta: float, n_events: int) -> float:
    """``log(pi^2 j^2 |X| / (3 delta))``: the log term of a union over events and over an index.

    It is ``log(2 / delta_j)`` for the per-event level ``delta_j = 6 delta / (pi^2 j^2 |X|)``
    (``j = index``, ``|X| = n_events``), and ``sum_{j >= 1} |X| delta_j = delta``. A two-sided
    sub-Gaussian bound at level ``delta_j`` has radius ``R sqrt(2 log(2 / delta_j))``; a
    one-sided bound at that level needs ``log(1 / delta_j)``, this minus ``log 2``.

    Examples
    --------
    >>> import math
    >>> from fullbandit.linalg.estimation import union_log
    >>> round(union_log(1, 0.06, 1), 12) == round(math.log(2 / (6 * 0.06 / math.pi ** 2)), 12)
    True
    """
    return math.log(math.pi ** 2 * index * index / (3.0 * delta)) + math.log(n_events)  # exact for huge |X|


@dataclass(frozen=True)
class BernsteinTerms:
    """The data-dependent inputs of the radius ``confidence="bernstein"`` at one stopping check.

    Built by :meth:`StaticDesign.bernstein_terms`; see :func:`confidence_radius` for the
    radius and its proof.

    Attributes
    ----------
    range_width : float
        ``B = high - low``: every observed reward lies in an interval of this length.
    std_bound : float
        ``sigma_bar``: an upper bound, on the variance event, on every pulled member's
        reward standard deviation (at most ``B / 2``).
    leverage : float
        ``h = max_j ||x_j||_{A^-1}`` over the pulled members.

    Examples
    --------
    >>> from fullbandit.linalg.estimation import BernsteinTerms
    >>> BernsteinTerms(range_width=2.0, std_bound=0.4, leverage=0.1).std_bound
    0.4
    """

    range_width: float
    std_bound: float
    leverage: float


def maurer_pontil_std_bound(count: int, sample_variance: float, range_width: float, log_inverse_level: float) -> float:
    """Upper confidence bound on a standard deviation from ``count`` i.i.d. rewards in an interval.

    Maurer and Pontil (2009), Theorem 10: for ``T >= 2`` independent samples in ``[0, 1]``,
    with probability at least ``1 - delta``,
    ``sqrt(E V_T) <= sqrt(V_T) + sqrt(2 log(1 / delta) / (T - 1))``, where ``V_T`` is the
    unbiased sample variance; for i.i.d. samples ``E V_T = sigma^2``. Scaled to an interval
    of length ``B``: ``sigma <= sqrt(V_T) + B sqrt(2 log(1 / delta) / (T - 1))``. A variable
    in an interval of length ``B`` has ``sigma <= B / 2``, so the bound is capped there; with
    ``T < 2`` it is ``B / 2``.

    Parameters
    ----------
    count : int
        ``T``, the number of samples.
    sample_variance : float
        ``V_T`` (unbiased; ignored when ``T < 2``).
    range_width : float
        ``B``.
    log_inverse_level : float
        ``log(1 / delta)``.

    Returns
    -------
    float
        ``min(B / 2, sqrt(V_T) + B sqrt(2 log(1 / delta) / (T - 1)))``.

    Examples
    --------
    >>> from fullbandit.linalg.estimation import maurer_pontil_std_bound
    >>> round(maurer_pontil_std_bound(201, 0.04, 1.0, 2.0), 12)   # 0.2 + sqrt(4 / 200)
    0.341421356237
    >>> maurer_pontil_std_bound(1, 0.0, 3.0, 2.0), maurer_pontil_std_bound(5, 0.0, 3.0, 20.0)
    (1.5, 1.5)
    """
    half = range_width / 2.0
    if count < 2:
        return half
    bound = math.sqrt(max(sample_variance, 0.0)) + range_width * math.sqrt(2.0 * log_inverse_level / (count - 1))
    return min(half, bound)


def confidence_radius(t: int, delta: float, noise_scale: float, n_directions: int,
                      confidence: str = "tight", *, check: int | None = None,
                      bernstein: BernsteinTerms | None = None) -> float:
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
        Sub-Gaussian scale ``R`` of one observation's noise, ``R > 0`` (not used by
        ``"bernstein"``).
    n_directions : int
        Size of the union bound ``|X|`` (may be a huge exact integer such as ``C(n, k)^2``).
    confidence : {"tight", "paper", "stitched", "bernstein"}
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
        geometric schedule ``t_{j+1} = ceil((1 + g) t_j)``, possibly rounded up to whole
        passes: the schedule reads no reward), and as ``j`` grows like
        ``log(t) / log(1 + g)`` it costs ``2 log log t`` where
        ``"tight"`` costs ``2 log t`` (the stitching of time-uniform bounds, e.g. Howard,
        Ramdas, McAuliffe, Sekhon 2021, Annals of Statistics 49(2), section 3).
        ``"bernstein"``: variance-adaptive, for rewards in an interval ``[low, high]`` of
        length ``B`` (empirical Bernstein: Audibert, Munos, Szepesvari 2009; Maurer, Pontil
        2009): ``sigma_bar sqrt(2 L) + (1/3) B L h`` at the ``j``-th check, with
        ``L = log(2 pi^2 j^2 |X| / (3 delta))`` (the ``"stitched"`` log term at level
        ``delta / 2``) and ``bernstein=BernsteinTerms(B, sigma_bar, h)`` from
        :meth:`StaticDesign.bernstein_terms`; it needs ``check=`` and ``bernstein=``, and
        holds together with the variance bounds behind ``sigma_bar`` (level ``delta / 2``),
        so with probability ``1 - delta`` in all. See the proof below.
    check : int, optional
        Index ``j >= 1`` of the stopping check, for ``confidence="stitched"`` and
        ``"bernstein"`` (required there).
    bernstein : BernsteinTerms, optional
        The data-dependent terms of ``confidence="bernstein"`` (required there).

    Returns
    -------
    float
        ``C_t``.

    Raises
    ------
    InvalidParameterError
        For an argument out of range, or ``confidence="paper"`` where its logarithm is
        not positive.

    Notes
    -----
    Proof of ``"bernstein"``. Fix a check ``j`` and a direction ``y``. The schedule reads no
    reward, so the pull counts ``T_i`` of the support members ``x_i`` at the ``j``-th check
    are fixed in advance, and so are ``A = sum_i T_i x_i x_i^T`` and ``c_i = y^T A^-1 x_i``.
    The ``t`` pulls are independent; pull ``s`` of member ``i(s)`` returns
    ``x_{i(s)} . theta + eta_s`` with ``eta_s`` of mean zero, variance ``sigma_{i(s)}^2`` and
    values in an interval of length ``B`` that contains 0, so ``|eta_s| <= B``. Then

        ``y . (theta_hat - theta) = y^T A^-1 sum_s x_{i(s)} eta_s = sum_s c_{i(s)} eta_s``,

    a sum of independent zero-mean terms with ``|c_{i(s)} eta_s| <= B c_max``,
    ``c_max = max_{i: T_i > 0} |c_i|``, and total variance
    ``V = sum_i T_i c_i^2 sigma_i^2``. Bernstein's inequality in its sub-gamma form
    (Boucheron, Lugosi, Massart 2013, Concentration Inequalities, section 2.8: independent
    zero-mean terms bounded above by ``b`` with total variance ``V`` are sub-gamma with
    scale ``b / 3``, so ``P(S >= sqrt(2 V x) + b x / 3) <= exp(-x)``), applied to
    the sum and to its negative with ``x = L = log(2 / delta')``, gives with probability
    at least ``1 - delta'``

        ``|y . (theta_hat - theta)| <= sqrt(2 L V) + (1/3) B c_max L``.

    (The classical form ``exp(-e^2 / (2 (V + b e / 3)))`` gives ``2/3`` instead of ``1/3``.)
    Now ``sum_i T_i c_i^2 = y^T A^-1 (sum_i T_i x_i x_i^T) A^-1 y = ||y||^2_{A^-1}``, so
    ``V <= sigma_max^2 ||y||^2_{A^-1}`` with ``sigma_max`` the largest ``sigma_i`` over the
    pulled members, and by Cauchy-Schwarz in the ``A^-1`` inner product
    ``|c_i| <= ||y||_{A^-1} ||x_i||_{A^-1} <= ||y||_{A^-1} h``. Hence, on the variance event
    ``sigma_i <= sigma_bar`` for every pulled member,

        ``|y . (theta_hat - theta)| <= (sigma_bar sqrt(2 L) + (1/3) B L h) ||y||_{A^-1}``.

    Unions. Directions: ``delta' = 6 (delta / 2) / (pi^2 j^2 |X|)``, summed over the ``|X|``
    directions and the checks ``j >= 1``, is ``delta / 2``; then
    ``L = log(2 / delta') = union_log(j, delta / 2, |X|)``. Variances: the bound of
    :func:`maurer_pontil_std_bound` for each of the ``m`` support members at each check,
    at level ``6 (delta / 2) / (pi^2 j^2 m)``, sums to ``delta / 2`` as well (it depends on
    the data only through the member's own rewards; the counts are fixed). So all these
    bounds hold at once with probability at least ``1 - delta``. A rule that combines
    several bounds with shares ``delta_r`` of ``delta`` (``sum_r delta_r <= delta``) passes
    each share here; the directions then get ``delta_r / 2`` each, and the one variance
    event (level ``delta / 2`` of the algorithm's whole ``delta``) serves them all.

    Why the checks may be unioned over rather than every round: the checks are on the
    geometric schedule ``t_{j+1} = max(t_j + 1, ceil((1 + g) t_j))`` of the static
    algorithms (rounded up to whole passes over the support with a uniform allocation,
    :func:`fullbandit.full.static.next_check_after`), which reads no reward, so the
    ``j``-th check happens after a number of
    pulls and with member counts fixed before the run starts (the check's data are the
    first pulls handed out, whatever order they were told in:
    :meth:`fullbandit.core.algorithm.Algorithm.tell`); whether the run is still
    going at check ``j`` depends on the data, but the union covers every ``j``, so stopping
    at a data-dependent check is covered too. (An evaluation outside the schedule, e.g.
    ``result()`` between two checks, is not covered, exactly as for ``"stitched"``.)

    Examples
    --------
    ``R sqrt(2 log(pi^2 t^2 |X| / (3 delta)))`` with ``t = 100``, ``|X| = 20``,
    ``delta = 0.05``, ``R = 1``:

    >>> import math
    >>> from fullbandit.linalg.estimation import confidence_radius
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

    ``"bernstein"`` at the 5th check, ``|X| = 20``, ``delta = 0.05``, rewards in an interval
    of length ``B = 2``, ``sigma_bar = 0.3``, ``h = 0.01``:

    >>> from fullbandit.linalg.estimation import BernsteinTerms
    >>> terms = BernsteinTerms(range_width=2.0, std_bound=0.3, leverage=0.01)
    >>> L = math.log(2 * math.pi ** 2 * 5 ** 2 * 20 / (3 * 0.05))
    >>> value = confidence_radius(1000, 0.05, 1.0, 20, "bernstein", check=5, bernstein=terms)
    >>> round(value, 9) == round(0.3 * math.sqrt(2 * L) + 2.0 * L * 0.01 / 3, 9), round(value, 4)
    (True, 1.4871)
    >>> round(confidence_radius(1000, 0.05, 1.0, 20, "stitched", check=5), 4)  # the range bound R = B / 2 = 1
    4.561
    """
    check_int("t", t, low=1)
    check_probability("delta", delta)
    check_real("noise_scale", noise_scale, low=0.0, low_inclusive=False)
    check_int("n_directions", n_directions, low=1)
    check_choice("confidence", confidence, CONFIDENCE_CONSTANTS)
    if confidence in ("stitched", "bernstein"):
        if check is None:
            raise InvalidParameterError(
                f"confidence={confidence!r} needs check= (the index j >= 1 of the stopping check)")
        t = check_int("check", check, low=1, high=t)  # at most one check per round
    if confidence == "bernstein":
        if not isinstance(bernstein, BernsteinTerms):
            raise InvalidParameterError(
                "confidence='bernstein' needs bernstein=BernsteinTerms(...) (StaticDesign.bernstein_terms)")
        check_real("bernstein.range_width", bernstein.range_width, low=0.0, low_inclusive=False)
        check_real("bernstein.std_bound", bernstein.std_bound, low=0.0)
        check_real("bernstein.leverage", bernstein.leverage, low=0.0)
        log_term = union_log(t, delta / 2.0, n_directions)
        return (bernstein.std_bound * math.sqrt(2.0 * log_term)
                + bernstein.range_width * log_term * bernstein.leverage / 3.0)
    if confidence == "paper":
        log_term = math.log(6.0 * t * t / (math.pi ** 2 * delta)) + math.log(n_directions)  # exact for huge |X|
        if log_term <= 0:
            raise InvalidParameterError(
                f"the paper's constant needs 6 t^2 |X| / (pi^2 delta) > 1; got t={t}, |X|={n_directions}, "
                f"delta={delta}: use confidence='tight'")
        return 2.0 * math.sqrt(2.0) * noise_scale * math.sqrt(log_term)
    log_term = union_log(t, delta, n_directions)
    return noise_scale * math.sqrt(2.0 * log_term)


class LeastSquaresEstimate:
    """``theta_hat = A^-1 b`` with the Gram matrix ``A`` and its inverse ``A^-1`` (read-only).

    Parameters
    ----------
    theta : numpy.ndarray of shape (n,)
        The estimate ``theta_hat``.
    gram : numpy.ndarray of shape (n, n), or a function returning it
        ``A = sum_s x_s x_s^T`` over the pulls. A function is called each time :attr:`gram`
        is read, and nothing holds its result in between: at whole passes of a uniform
        design ``A = q X^T X``, which no stopping rule reads, so
        :meth:`StaticDesign.estimate` forms it only on demand rather than keeping a scaled
        copy of the support's ``X^T X`` with every check (8 MB at ``n = 1000``).
    gram_inverse : numpy.ndarray of shape (n, n)
        ``A^-1`` (exactly symmetric).
    pulls : int
        Number of pulls the estimate is built on.
    spectrum : fullbandit.linalg.spectrum.InverseSpectrum, optional
        The eigenvalues of ``A^-1`` (and ``lambda_max(P A^-1 P)``), computed at most once and
        shared by every bound of the check (default: computed from ``gram_inverse`` when
        first asked for).
    reform_inverse : callable, optional
        A function that forms ``gram_inverse`` again, bit for bit (at whole passes
        ``(X^T X)^-1 / q`` from the support's inverse): :meth:`release_inverse` may then let
        the array go.

    Examples
    --------
    >>> import numpy as np
    >>> from fullbandit.linalg.estimation import LeastSquaresEstimate
    >>> gram = np.array([[2.0, 1.0], [1.0, 2.0]])
    >>> estimate = LeastSquaresEstimate(np.zeros(2), gram, np.linalg.inv(gram), pulls=3)
    >>> round(estimate.width([1.0, 1.0]), 12)  # (1, 1) A^-1 (1, 1)^T = 2/3
    0.816496580928
    >>> estimate.spectrum.eigenvalues().round(12).tolist()
    [0.333333333333, 1.0]
    >>> formed = LeastSquaresEstimate(np.zeros(2), lambda: 3.0 * gram, np.linalg.inv(3.0 * gram), pulls=9)
    >>> formed.gram.tolist()   # formed when read
    [[6.0, 3.0], [3.0, 6.0]]
    """

    __slots__ = ("theta", "_gram", "_gram_inverse", "_reform_inverse", "pulls", "spectrum")

    theta: np.ndarray
    pulls: int
    spectrum: InverseSpectrum
    _gram: np.ndarray | Callable[[], np.ndarray]
    _gram_inverse: np.ndarray | None
    _reform_inverse: Callable[[], np.ndarray] | None

    def __init__(self, theta: np.ndarray, gram: np.ndarray | Callable[[], np.ndarray], gram_inverse: np.ndarray,
                 pulls: int, spectrum: InverseSpectrum | None = None, *,
                 reform_inverse: Callable[[], np.ndarray] | None = None):
        for name, value in (("theta", theta), ("_gram", gram), ("_gram_inverse", gram_inverse), ("pulls", pulls),
                            ("spectrum", InverseSpectrum(gram_inverse) if spectrum is None else spectrum),
                            ("_reform_inverse", reform_inverse)):
            object.__setattr__(self, name, value)

    def __setattr__(self, name, value):
        raise AttributeError(f"LeastSquaresEstimate is read-only: cannot set {name!r}")

    def __getstate__(self) -> dict:  # pickle and copy: the slots as they are
        return {name: object.__getattribute__(self, name) for name in self.__slots__}

    def __setstate__(self, state: dict) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        return f"LeastSquaresEstimate(theta={self.theta!r}, pulls={self.pulls})"

    @property
    def gram(self) -> np.ndarray:
        """``A`` (formed now when the estimate was given a function for it)."""
        return self._gram() if callable(self._gram) else self._gram

    @property
    def gram_inverse(self) -> np.ndarray:
        """``A^-1`` (formed again, with the same values, after :meth:`release_inverse`)."""
        if self._gram_inverse is None:
            assert self._reform_inverse is not None  # released only when it can be formed again
            return self._reform_inverse()
        return self._gram_inverse

    def release_inverse(self) -> None:
        """Stop holding ``A^-1`` when it can be formed again (``reform_inverse``); otherwise nothing.

        An algorithm keeps its last stopping check; at ``n = 1000`` its ``A^-1`` is 8 MB that
        would stay alive through the next check. Reading :attr:`gram_inverse` afterwards forms
        it anew, equal bit for bit.

        Examples
        --------
        >>> import numpy as np
        >>> from fullbandit.linalg.estimation import LeastSquaresEstimate
        >>> base = np.array([[2.0, -1.0], [-1.0, 2.0]])
        >>> estimate = LeastSquaresEstimate(np.zeros(2), np.eye(2), 0.5 * base, pulls=4,
        ...                                 reform_inverse=lambda: 0.5 * base)
        >>> before = estimate.gram_inverse
        >>> estimate.release_inverse()
        >>> estimate.gram_inverse is before, np.array_equal(estimate.gram_inverse, before)
        (False, True)
        """
        if self._reform_inverse is not None:
            object.__setattr__(self, "_gram_inverse", None)

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
        >>> from fullbandit.linalg.estimation import LeastSquaresEstimate
        >>> estimate = LeastSquaresEstimate(np.zeros(2), 4 * np.eye(2), np.eye(2) / 4, pulls=8)
        >>> estimate.width([1.0, 0.0])
        0.5
        """
        x = np.asarray(x, dtype=float)
        return float(math.sqrt(max(x @ self.gram_inverse @ x, 0.0)))


class StaticDesign:
    """Counts and reward sums per member of a fixed support of super-arms.

    The support is stored as a compact incidence (:class:`fullbandit.linalg.incidence.Incidence`:
    the arm indices of each member, never an ``m x n`` matrix), and a stopping check costs
    ``O(n^2)`` between factorisations: the Gram matrix ``X^T X`` of the support and its inverse
    (with its spectrum) are computed once, and when every member has been pulled equally
    often, ``q`` times (a uniform design checked at whole passes), ``A_t = q X^T X`` and
    ``A_t^-1 = (X^T X)^-1 / q`` exactly. Otherwise ``A_t`` is formed from the counts: as
    ``v X^T X`` plus the members whose count differs from the most common one, ``v`` (the
    members of an unfinished pass), and factorised afresh (``O(n^3)``), as it is whenever
    prior observations are added.

    Parameters
    ----------
    n : int
        Number of single arms.
    support : sequence of super-arms
        The super-arms that may be pulled, each a sequence of arm indices.
    square_sums : bool
        Also keep each member's sum of squared rewards (for ``confidence="bernstein"``):
        :meth:`record` then needs the squares of a block of more than one pull.

    Attributes
    ----------
    incidence : fullbandit.linalg.incidence.Incidence
        The members' arm indices.
    counts : numpy.ndarray of int
        Pulls per member.
    reward_sums : numpy.ndarray
        Sum of the observed rewards per member.
    square_sums : numpy.ndarray or None
        Sum of the squared observed rewards per member (``None`` unless kept).
    pulls : int
        Total pulls recorded.
    prior_gram, prior_vector : numpy.ndarray
        What earlier observations (:meth:`add_prior`) add to ``A`` and ``b`` (zero by default).
    prior_pulls : int
        How many earlier observations those are (not counted in :attr:`pulls`).

    Examples
    --------
    Three pairs of three arms with noiseless rewards recover the means:

    >>> from fullbandit.linalg.estimation import StaticDesign
    >>> design = StaticDesign(3, [(0, 1), (1, 2), (0, 2)])
    >>> for member, reward in [(0, 1.5), (1, 2.5), (2, 2.0)]:
    ...     design.record(member, reward)
    >>> design.estimate().theta.round(12).tolist()
    [0.5, 1.0, 1.5]
    """

    def __init__(self, n: int, support, *, square_sums: bool = False):
        self.n = n
        self.support = _as_super_arms(support)
        self.incidence = Incidence(n, self.support)
        m = len(self.support)
        self.counts = np.zeros(m, dtype=np.int64)
        self.reward_sums = np.zeros(m)
        self.square_sums: np.ndarray | None = np.zeros(m) if square_sums else None
        self.pulls = 0
        self.prior_gram = _NO_PRIOR_GRAM(n)  # a read-only zero view until add_prior: no n x n array
        self.prior_vector = np.zeros(n)
        self.prior_pulls = 0
        self._support_gram: np.ndarray | None = None
        self._support_inverse: InverseSpectrum | None = None  # (X^T X)^-1 with its spectrum
        self._support_leverages: np.ndarray | None = None  # x_j^T (X^T X)^-1 x_j

    @property
    def matrix(self) -> np.ndarray:
        """The members' 0/1 indicators as a dense ``m x n`` matrix (made on each call: for inspection)."""
        return self.incidence.dense()

    def add_prior(self, rows, counts, reward_sums) -> None:
        """Add earlier observations of any arm sets to ``A`` and ``b`` (not to :attr:`pulls`).

        Parameters
        ----------
        rows : sequence of sequences of int
            The arm sets observed (any size; a single worker's answers are ``(i,)``).
        counts : sequence of int
            Observations of each set.
        reward_sums : sequence of float
            Sum of the observed rewards of each set.

        Examples
        --------
        One earlier answer of arm 0 (right) and one of arm 1 (wrong) identify both means
        before any pull of the support:

        >>> from fullbandit.linalg.estimation import StaticDesign
        >>> design = StaticDesign(2, [(0, 1)])
        >>> design.add_prior([(0,), (1,)], [1, 1], [1.0, 0.0])
        >>> design.estimate().theta.tolist(), design.pulls, design.prior_pulls
        ([1.0, 0.0], 0, 2)
        """
        observed = Incidence(self.n, rows)
        counts = np.asarray(counts, dtype=float)
        if not self.prior_gram.flags.writeable:
            self.prior_gram = np.zeros((self.n, self.n))
        self.prior_gram += observed.gram(counts)
        self.prior_vector += observed.transpose_times(np.asarray(reward_sums, dtype=float))
        self.prior_pulls += int(counts.sum())

    def record(self, member: int, reward: float, count: int = 1, square_sum: float | None = None) -> None:
        """Record the summed reward of ``count`` pulls of support member ``member``.

        Parameters
        ----------
        member : int
            Index of the member in ``support``.
        reward : float
            Sum of the ``count`` observed rewards.
        count : int
            Number of pulls.
        square_sum : float, optional
            Sum of the ``count`` squared rewards, kept when the design keeps square sums
            (``reward ** 2`` by default for a single pull; required for a block).

        Examples
        --------
        >>> from fullbandit.linalg.estimation import StaticDesign
        >>> design = StaticDesign(2, [(0,), (1,)])
        >>> design.record(1, 3.0, count=2)
        >>> design.counts.tolist(), design.reward_sums.tolist(), design.pulls
        ([0, 2], [0.0, 3.0], 2)
        """
        if self.square_sums is not None:
            if square_sum is None:
                if count != 1:
                    raise InvalidParameterError(
                        f"square_sum is needed for a block of count={count} pulls: this design keeps square sums")
                square_sum = reward * reward
            self.square_sums[member] += square_sum
        self.counts[member] += count
        self.reward_sums[member] += reward
        self.pulls += count

    def record_blocks(self, members, counts, rewards, square_sums=None) -> None:
        """Record blocks at once: ``counts[i]`` pulls of member ``members[i]`` summing to ``rewards[i]``.

        Parameters
        ----------
        members, counts : array_like of int
        rewards : array_like of float
        square_sums : array_like of float, optional
            Each block's sum of squared rewards (required when the design keeps square sums,
            unless every block is a single pull).

        Examples
        --------
        >>> from fullbandit.linalg.estimation import StaticDesign
        >>> design = StaticDesign(2, [(0,), (1,)])
        >>> design.record_blocks([1, 0], [2, 3], [3.0, 1.5])
        >>> design.counts.tolist(), design.reward_sums.tolist(), design.pulls
        ([3, 2], [1.5, 3.0], 5)
        """
        members = np.asarray(members, dtype=np.intp)
        counts = np.asarray(counts, dtype=np.int64)
        rewards = np.asarray(rewards, dtype=float)
        if self.square_sums is not None:
            if square_sums is None:
                if np.any(counts != 1):
                    raise InvalidParameterError("square_sums are needed for blocks of more than one pull: this design "
                                                "keeps square sums")
                square_sums = rewards * rewards
            np.add.at(self.square_sums, members, np.asarray(square_sums, dtype=float))
        np.add.at(self.counts, members, counts)
        np.add.at(self.reward_sums, members, rewards)
        self.pulls += int(counts.sum())

    def sample_variances(self) -> np.ndarray:
        """The unbiased sample variance of each member's rewards (``nan`` below two pulls).

        ``V_j = (Q_j - S_j^2 / T_j) / (T_j - 1)`` from the count ``T_j``, the sum ``S_j`` and
        the sum of squares ``Q_j`` (rounding below zero is clipped to zero).

        Examples
        --------
        >>> from fullbandit.linalg.estimation import StaticDesign
        >>> design = StaticDesign(2, [(0,), (1,)], square_sums=True)
        >>> for reward in (1.0, 2.0, 4.0):
        ...     design.record(0, reward)
        >>> design.record(1, 6.0, count=3, square_sum=14.0)   # a block: rewards 1, 2, 3
        >>> design.sample_variances().round(12).tolist()
        [2.333333333333, 1.0]
        """
        if self.square_sums is None:
            raise InvalidParameterError("this design keeps no square sums (StaticDesign(..., square_sums=True))")
        counts = self.counts.astype(float)
        variances = np.full(counts.shape, np.nan)
        enough = counts >= 2
        if np.any(enough):
            mean_squares = self.reward_sums[enough] ** 2 / counts[enough]
            variances[enough] = np.maximum(self.square_sums[enough] - mean_squares, 0.0) / (counts[enough] - 1.0)
        return variances

    def bernstein_terms(self, estimate: LeastSquaresEstimate, range_width: float, delta: float,
                        check: int) -> BernsteinTerms:
        """The terms of ``confidence="bernstein"`` at the ``check``-th stopping check.

        ``std_bound`` is the largest :func:`maurer_pontil_std_bound` over the pulled members,
        each at level ``6 (delta / 2) / (pi^2 j^2 m)`` (``m`` support members, ``j = check``),
        so that, summed over the members and the checks, the variance bounds fail with
        probability at most ``delta / 2``: ``log(1 / level) = union_log(j, delta / 2, m) - log 2``.
        ``leverage`` is the largest ``||x_j||_{A^-1}`` over the pulled members.

        Parameters
        ----------
        estimate : LeastSquaresEstimate
            The estimate of this check (its ``A^-1``).
        range_width : float
            ``B``: the length of the interval the rewards lie in.
        delta : float
            The algorithm's whole error probability (the variance bounds take half).
        check : int
            Index ``j >= 1`` of the check.

        Returns
        -------
        BernsteinTerms

        Examples
        --------
        Two members pulled 101 times each with rewards in ``[0, 2]`` of sample variance 0.01:

        >>> import math
        >>> from fullbandit.linalg.estimation import StaticDesign, union_log
        >>> design = StaticDesign(1, [(0,), (0,)], square_sums=True)
        >>> for member in (0, 1):
        ...     design.record(member, 101.0, count=101, square_sum=101.0 + 100 * 0.01)
        >>> terms = design.bernstein_terms(design.estimate(), 2.0, 0.1, check=3)
        >>> log_inverse = union_log(3, 0.05, 2) - math.log(2)
        >>> round(terms.std_bound, 12) == round(0.1 + 2.0 * math.sqrt(2 * log_inverse / 100), 12)
        True
        >>> round(terms.leverage, 12)          # ||x||_{A^-1} with A = 202
        0.070359754473
        """
        if self.square_sums is None:
            raise InvalidParameterError("this design keeps no square sums (StaticDesign(..., square_sums=True))")
        check_real("range_width", range_width, low=0.0, low_inclusive=False)
        check_probability("delta", delta)
        check_int("check", check, low=1)
        pulled = self.counts > 0
        log_inverse_level = union_log(check, delta / 2.0, len(self.support)) - math.log(2.0)
        variances = self.sample_variances()
        std_bound = max((maurer_pontil_std_bound(int(count), float(variance), range_width, log_inverse_level)
                         for count, variance in zip(self.counts[pulled], variances[pulled], strict=True)),
                        default=range_width / 2.0)
        leverages = self._leverages(estimate, np.flatnonzero(pulled))
        leverage = float(math.sqrt(max(float(np.max(leverages)), 0.0))) if leverages.size else 0.0
        return BernsteinTerms(range_width=float(range_width), std_bound=float(std_bound), leverage=leverage)

    def _leverages(self, estimate: LeastSquaresEstimate, rows: np.ndarray) -> np.ndarray:
        """``x_j^T A^-1 x_j`` for the given members; scaled from the support's when ``A^-1 = (X^T X)^-1 / q``."""
        base = self._support_inverse
        if base is not None and estimate.spectrum.base is base.base:
            if self._support_leverages is None:
                self._support_leverages = self.incidence.quadratic_forms(base.base)
            return estimate.spectrum.factor * self._support_leverages[rows]
        return self.incidence.quadratic_forms(estimate.gram_inverse, rows)

    def rank(self) -> int:
        """Rank of the super-arms pulled at least once (with the prior observations).

        Returns
        -------
        int
            ``n`` exactly when :meth:`estimate` can identify ``theta``.

        Examples
        --------
        >>> from fullbandit.linalg.estimation import StaticDesign
        >>> design = StaticDesign(3, [(0, 1), (1, 2), (0, 2)])
        >>> design.record(0, 1.0)
        >>> design.rank()
        1
        """
        pulled = self.incidence.dense(np.flatnonzero(self.counts > 0))  # error messages only: made on demand
        if self.prior_pulls:
            return int(np.linalg.matrix_rank(pulled.T @ pulled + self.prior_gram))
        return int(np.linalg.matrix_rank(pulled)) if pulled.size else 0

    def support_gram(self) -> np.ndarray:
        """``X^T X`` of the support (computed once; read-only).

        Examples
        --------
        >>> from fullbandit.linalg.estimation import StaticDesign
        >>> StaticDesign(2, [(0,), (0, 1)]).support_gram().tolist()
        [[2.0, 1.0], [1.0, 1.0]]
        """
        if self._support_gram is None:
            gram = self.incidence.gram()
            gram.flags.writeable = False
            self._support_gram = gram
        return self._support_gram

    def spans(self) -> bool:
        """Whether the support identifies ``theta``: ``X^T X`` passes the factorisation of :meth:`estimate`.

        Examples
        --------
        >>> from fullbandit.linalg.estimation import StaticDesign
        >>> StaticDesign(3, [(0, 1), (1, 2), (0, 2)]).spans(), StaticDesign(3, [(0, 1), (1, 2)]).spans()
        (True, False)
        """
        try:
            self._inverse_of_support()
        except SingularMatrixError:
            return False
        return True

    def _inverse_of_support(self) -> InverseSpectrum:
        if self._support_inverse is None:
            inverse = cholesky_inverse(self.support_gram())
            inverse.flags.writeable = False
            self._support_inverse = InverseSpectrum(inverse)
        return self._support_inverse

    def gram(self) -> np.ndarray:
        """``A_t = sum_j T_j x_j x_j^T`` plus the prior observations' Gram matrix (exact for integer counts).

        Examples
        --------
        >>> from fullbandit.linalg.estimation import StaticDesign
        >>> design = StaticDesign(2, [(0,), (0, 1)])
        >>> design.record(0, 1.0, count=3)
        >>> design.gram().tolist()
        [[3.0, 0.0], [0.0, 0.0]]
        """
        counts = self.counts
        if not counts.size or not counts.any():
            return self.prior_gram.copy()
        if counts.min() == counts.max():  # whole passes: q X^T X
            gram = float(counts[0]) * self.support_gram()
        elif self._support_gram is not None:  # v X^T X, corrected where a member's count is not v
            values, frequencies = np.unique(counts, return_counts=True)
            common = values[np.argmax(frequencies)]
            differ = np.flatnonzero(counts != common)
            gram = float(common) * self._support_gram + self.incidence.gram(counts[differ] - common, differ)
        else:
            pulled = np.flatnonzero(counts)
            gram = self.incidence.gram(counts[pulled], pulled)
        gram += self.prior_gram
        return gram

    def estimate(self) -> LeastSquaresEstimate:
        """Least squares from the pulls so far and the prior observations (Cholesky factor and ``potri``).

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
        >>> from fullbandit.linalg.estimation import StaticDesign
        >>> design = StaticDesign(2, [(0,), (1,)])
        >>> design.record(0, 3.0, count=2)
        >>> design.record(1, 1.0)
        >>> estimate = design.estimate()
        >>> estimate.theta.round(12).tolist(), estimate.gram.tolist(), estimate.pulls
        ([1.5, 1.0], [[2.0, 0.0], [0.0, 1.0]], 3)
        """
        b = self.incidence.transpose_times(self.reward_sums) + self.prior_vector
        counts = self.counts
        whole_passes = counts.size and counts[0] > 0 and counts.min() == counts.max() and not self.prior_gram.any()
        gram: np.ndarray | Callable[[], np.ndarray]
        reform: Callable[[], np.ndarray] | None = None
        try:
            if whole_passes:  # A = q X^T X: A^-1 = (X^T X)^-1 / q, with the support's spectrum scaled
                spectrum = self._inverse_of_support().scaled(1.0 / float(counts[0]))
                reform = partial(np.multiply, spectrum.factor, spectrum.base)
                inverse = reform()
                gram = partial(np.multiply, float(counts[0]), self.support_gram())  # as gram(): formed when read
            else:
                gram = self.gram()
                inverse = cholesky_inverse(gram)
                spectrum = InverseSpectrum(inverse)
        except SingularMatrixError:
            raise SingularDesignError(
                f"the pulled super-arms span rank {self.rank()} < n={self.n}: theta is not "
                "identifiable; pull every support member once with a support that spans R^n") from None
        theta = inverse @ b
        return LeastSquaresEstimate(theta=theta, gram=gram, gram_inverse=inverse, pulls=self.pulls,
                                    spectrum=spectrum, reform_inverse=reform)


def _NO_PRIOR_GRAM(n: int) -> np.ndarray:
    return np.broadcast_to(np.zeros(1), (n, n))


def _as_super_arms(support) -> tuple[tuple[int, ...], ...]:
    """The members as tuples of Python ints (kept as they are when they already are: no copy of each)."""
    members = tuple(support)
    if all(type(arm) is tuple for arm in members) and set(map(type, itertools.chain.from_iterable(members))) <= {int}:
        return members
    return tuple(tuple(int(i) for i in arm) for arm in members)
