"""The confidence radius ``C_t``: with probability ``1 - delta`` every direction's estimate is within
``C_t ||x||_{A_t^-1}`` of the truth, for a design fixed in advance (the constants ``"tight"``,
``"paper"``, ``"stitched"`` and the variance-adaptive ``"bernstein"``, with their union bounds).

The least-squares estimate the radius is about is :mod:`fullbandit.linalg.least_squares`, and the
data-dependent terms of ``"bernstein"`` come from
:meth:`fullbandit.linalg.static_design.StaticDesign.bernstein_terms`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from fullbandit.linalg.time_uniform import time_uniform_radius
from fullbandit.util.validation import InvalidParameterError, check_choice, check_int, check_probability, check_real

CONFIDENCE_CONSTANTS = ("tight", "paper", "stitched", "bernstein", "time-uniform")
#: The options of ``confidence`` that need a bounded reward range and the sums of squared rewards.
RANGE_CONFIDENCES = ("bernstein",)


def union_log(index: int, delta: float, n_events: int) -> float:
    """``log(pi^2 j^2 |X| / (3 delta))``: the log term of a union over events and over an index.

    It is ``log(2 / delta_j)`` for the per-event level ``delta_j = 6 delta / (pi^2 j^2 |X|)``
    (``j = index``, ``|X| = n_events``), and ``sum_{j >= 1} |X| delta_j = delta``. A two-sided
    sub-Gaussian bound at level ``delta_j`` has radius ``R sqrt(2 log(2 / delta_j))``; a
    one-sided bound at that level needs ``log(1 / delta_j)``, this minus ``log 2``.

    Examples
    --------
    >>> import math
    >>> from fullbandit.linalg.radius import union_log
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
    >>> from fullbandit.linalg.radius import BernsteinTerms
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
    >>> from fullbandit.linalg.radius import maurer_pontil_std_bound
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
                      bernstein: BernsteinTerms | None = None, passes: int | None = None,
                      one_sided: bool = False) -> float:
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
        ``"time-uniform"``: valid at every whole pass of a repeated block at once (a design
        whose every check falls on a whole pass of round robin over the support, with no
        prior observations), ``R s_p / sqrt(p)`` after ``p`` passes, with ``s_p`` where a
        discrete mixture of exponential supermartingales over a grid of slopes reaches
        ``2 |X| / delta`` (Howard et al. 2021; Kaufmann and Koolen 2021), proved in
        :mod:`fullbandit.linalg.time_uniform`. It needs
        ``passes=``; no union over checks or rounds, so checking more often costs nothing.
    check : int, optional
        Index ``j >= 1`` of the stopping check, for ``confidence="stitched"`` and
        ``"bernstein"`` (required there).
    bernstein : BernsteinTerms, optional
        The data-dependent terms of ``confidence="bernstein"`` (required there).
    passes : int, optional
        Whole passes ``p >= 1`` of the repeated block, for ``confidence="time-uniform"``
        (required there).
    one_sided : bool
        The events bound each direction on one side only (``y . (theta - theta_hat) <=
        C ||y||``): the union counts ``|X|`` one-sided events instead of ``2 |X|``, which
        takes ``log 2`` off the log term (``"paper"`` keeps the paper's constant). Rules
        whose events are the directions from the true best team need only that side
        (:mod:`fullbandit.full.swap_bounds`).

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
    >>> from fullbandit.linalg.radius import confidence_radius
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

    >>> from fullbandit.linalg.radius import BernsteinTerms
    >>> terms = BernsteinTerms(range_width=2.0, std_bound=0.3, leverage=0.01)
    >>> L = math.log(2 * math.pi ** 2 * 5 ** 2 * 20 / (3 * 0.05))
    >>> value = confidence_radius(1000, 0.05, 1.0, 20, "bernstein", check=5, bernstein=terms)
    >>> round(value, 9) == round(0.3 * math.sqrt(2 * L) + 2.0 * L * 0.01 / 3, 9), round(value, 4)
    (True, 1.4871)
    >>> round(confidence_radius(1000, 0.05, 1.0, 20, "stitched", check=5), 4)  # the range bound R = B / 2 = 1
    4.561

    ``"time-uniform"`` after 24 passes, and ``"stitched"`` one-sided:

    >>> round(confidence_radius(1000, 0.05, 1.0, 20, "time-uniform", passes=24), 4)
    4.1802
    >>> round(confidence_radius(1000, 0.05, 1.0, 20, "stitched", check=5, one_sided=True), 4)
    4.4064
    """
    check_int("t", t, low=1)
    check_probability("delta", delta)
    check_real("noise_scale", noise_scale, low=0.0, low_inclusive=False)
    check_int("n_directions", n_directions, low=1)
    check_choice("confidence", confidence, CONFIDENCE_CONSTANTS)
    side_log = math.log(2.0) if one_sided else 0.0  # one-sided events: log(1 / delta_j), not log(2 / delta_j)
    if confidence == "time-uniform":
        if passes is None:
            raise InvalidParameterError("confidence='time-uniform' needs passes= (whole passes p >= 1 of the block)")
        return time_uniform_radius(passes, delta, noise_scale, n_directions if one_sided else 2 * n_directions)
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
        log_term = union_log(t, delta / 2.0, n_directions) - side_log
        return (bernstein.std_bound * math.sqrt(2.0 * log_term)
                + bernstein.range_width * log_term * bernstein.leverage / 3.0)
    if confidence == "paper":
        log_term = math.log(6.0 * t * t / (math.pi ** 2 * delta)) + math.log(n_directions)  # exact for huge |X|
        if log_term <= 0:
            raise InvalidParameterError(
                f"the paper's constant needs 6 t^2 |X| / (pi^2 delta) > 1; got t={t}, |X|={n_directions}, "
                f"delta={delta}: use confidence='tight'")
        return 2.0 * math.sqrt(2.0) * noise_scale * math.sqrt(log_term)
    log_term = union_log(t, delta, n_directions) - side_log
    return noise_scale * math.sqrt(2.0 * log_term)
