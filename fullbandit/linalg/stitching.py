"""A time-uniform confidence radius over whole passes of a repeated design (a stitched boundary).

The radius of ``confidence="time-uniform"``: valid at every whole pass at once, so the
stopping checks cost nothing (no union over them), and its logarithm grows like
``1.4 log log`` of the number of passes.

Setting. A static design repeats one block (a *pass*: every support member once, the
round robin of a uniform allocation), and the estimate after ``p`` passes reads exactly the
first ``p`` passes handed out, with no prior observations. Then ``A_p = p B`` with ``B`` the
Gram matrix of one pass, and for a fixed direction ``y``

    ``y . (theta_hat_p - theta) = S_p / p``,  ``S_p = sum_{q <= p} Z_q``,
    ``Z_q = y^T B^-1 sum_{pulls s of pass q} x_s eta_s``.

The ``Z_q`` are independent (each reads the noise of its own pass) and each is
sub-Gaussian with variance proxy ``v = R^2 ||y||^2_{B^-1}`` (a sum of independent
``R``-sub-Gaussian terms with weights ``y^T B^-1 x_s`` whose squares sum to
``y^T B^-1 B B^-1 y``). Also ``||y||_{A_p^-1} = sqrt(v / p) / R``.

Theorem (line crossing, stitched over epochs). Let ``eta = 2`` and ``s = 1.4``. Pass ``p``
lies in epoch ``k = floor(log2 p)``, the passes ``2^k .. 2^(k+1) - 1``, with geometric
middle ``c_k = sqrt(2^k (2^(k+1) - 1))``. Let ``l_k = log(N zeta(s) (k + 1)^s / delta)`` and

    ``C_p = R sqrt(l_k / 2) (sqrt(p / c_k) + sqrt(c_k / p))``.

For a fixed set of ``N`` directions, with probability at least ``1 - delta``, for every
pass ``p >= 1`` and every direction ``y`` of the set, ``y . (theta - theta_hat_p) <=
C_p ||y||_{A_p^-1}`` (one-sided; the two-sided statement needs ``2 N`` in place of ``N``).

Proof. Fix ``y`` and the epoch ``k``; take ``lambda = sqrt(2 l_k / (v c_k))``. The process
``exp(-lambda S_p - lambda^2 p v / 2)`` is a non-negative supermartingale in ``p`` starting
at 1, so by Ville's maximal inequality the probability that it ever reaches ``e^(l_k)``,
that is that ``-S_p >= l_k / lambda + lambda p v / 2`` for some ``p``, is at most
``exp(-l_k)``. The line ``l_k / lambda + lambda p v / 2`` equals
``sqrt(p v) sqrt(l_k / 2) (sqrt(c_k / p) + sqrt(p / c_k))``, which is ``C_p ||y||_{A_p^-1} p``;
dividing by ``p``: outside that event ``y . (theta - theta_hat_p) < C_p ||y||_{A_p^-1}`` for
every pass ``p`` (in particular those of epoch ``k``). The union over the ``N`` directions
and the epochs costs ``sum_k N exp(-l_k) = delta sum_k (k + 1)^(-s) / zeta(s) = delta``. QED.

The line touches the fixed-time bound ``R sqrt(2 l_k)`` at the epoch's middle and lies
above it by at most ``(2^(1/4) + 2^(-1/4)) / 2 = 1.015`` within the epoch. This is the
stitching of Howard, Ramdas, McAuliffe and Sekhon (2021), Theorem 1 with ``eta = 2`` and
their suggested ``s = 1.4``, written for sub-Gaussian increments per pass; the choice of the
tangent point (the epoch's geometric middle over whole passes) is ours.

References
----------
S. R. Howard, A. Ramdas, J. McAuliffe, J. Sekhon. Time-uniform, nonparametric, nonasymptotic
confidence sequences. Annals of Statistics 49(2), 2021, section 3 (stitching).
J. Ville. Etude critique de la notion de collectif. Gauthier-Villars, 1939 (the maximal
inequality for non-negative supermartingales).
"""

from __future__ import annotations

import math

from fullbandit.util.validation import InvalidParameterError, check_int, check_probability, check_real

#: The epochs' ratio ``eta`` (passes ``2^k .. 2^(k+1) - 1``) and the power ``s`` of their weights.
EPOCH_RATIO = 2
EPOCH_POWER = 1.4
#: ``zeta(1.4) = sum_{k >= 1} k^-1.4``, the epochs' normaliser (``scipy.special.zeta(1.4)``; a constant, so
#: that a radius needs no scipy at import: tests/test_time_uniform.py checks it).
ZETA_OF_POWER = 3.1055472779775815


def epoch(passes: int) -> tuple[int, float]:
    """The epoch ``k = floor(log2 p)`` of pass ``p`` and its geometric middle ``sqrt(2^k (2^(k+1) - 1))``.

    Examples
    --------
    >>> from fullbandit.linalg.stitching import epoch
    >>> epoch(1), epoch(3)[0], round(epoch(5)[1], 4)     # passes 4..7: middle sqrt(28)
    ((0, 1.0), 1, 5.2915)
    """
    k = passes.bit_length() - 1
    return k, math.sqrt(float(2 ** k) * float(2 ** (k + 1) - 1))


def epoch_log(passes: int, delta: float, n_events: int) -> float:
    """``l_k = log(N zeta(1.4) (k + 1)^1.4 / delta)`` for the epoch of pass ``passes``.

    Examples
    --------
    >>> import math
    >>> from fullbandit.linalg.stitching import epoch_log
    >>> round(epoch_log(1, 0.05, 1) - math.log(1 / 0.05), 4)     # log zeta(1.4)
    1.1332
    """
    k, _ = epoch(passes)
    return math.log(n_events) - math.log(delta) + math.log(ZETA_OF_POWER) + EPOCH_POWER * math.log(k + 1)


def time_uniform_radius(passes: int, delta: float, noise_scale: float, n_events: int) -> float:
    """``C_p``: a one-sided bound over ``n_events`` directions valid at every whole pass ``p`` at once.

    See the module docstring for the statement and the proof. For a two-sided bound over
    ``N`` directions pass ``n_events = 2 N``.

    Parameters
    ----------
    passes : int
        ``p >= 1``, whole passes of the repeated block so far.
    delta : float
        Error probability of the whole family, ``0 < delta < 1``.
    noise_scale : float
        Sub-Gaussian scale ``R`` of one observation.
    n_events : int
        ``N``, the number of one-sided events (may be a huge exact integer).

    Returns
    -------
    float

    Examples
    --------
    At the middle of an epoch the radius is the fixed-time one at the epoch's level:

    >>> import math
    >>> from fullbandit.linalg.stitching import epoch_log, time_uniform_radius
    >>> round(time_uniform_radius(1, 0.05, 1.0, 10), 9) == round(math.sqrt(2 * epoch_log(1, 0.05, 10)), 9)
    True
    >>> round(time_uniform_radius(7, 0.05, 1.0, 10) / math.sqrt(2 * epoch_log(7, 0.05, 10)), 4)  # an epoch's end
    1.0098
    >>> round(time_uniform_radius(300, 0.05, 2.0, 10) / time_uniform_radius(300, 0.05, 1.0, 10), 12)
    2.0
    """
    check_int("passes", passes, low=1)
    check_probability("delta", delta)
    check_real("noise_scale", noise_scale, low=0.0, low_inclusive=False)
    check_int("n_events", n_events, low=1)
    _, middle = epoch(passes)
    ratio = passes / middle
    half_log = math.sqrt(epoch_log(passes, delta, n_events) / 2.0)
    return noise_scale * half_log * (math.sqrt(ratio) + 1.0 / math.sqrt(ratio))


def confidence_with_prior(requested: str, resolved: str, label: str) -> str:
    """The confidence a design keeps once prior observations join its estimate.

    Prior observations are not whole passes of the design, so the time-uniform bound (this
    module's theorem) no longer holds: ``"auto"`` falls back to ``"stitched"`` (a union over
    the checks), an explicit ``"time-uniform"`` is refused, and any other confidence stays.

    Examples
    --------
    >>> from fullbandit.linalg.stitching import confidence_with_prior
    >>> confidence_with_prior("auto", "time-uniform", "swap"), confidence_with_prior("tight", "tight", "swap")
    ('stitched', 'tight')
    """
    if resolved != "time-uniform":
        return resolved
    if requested == "auto":
        return "stitched"
    raise InvalidParameterError(
        f"{label}: confidence='time-uniform' needs the estimate to be made of whole passes of its own design and "
        "cannot take prior observations; choose confidence='tight' or 'stitched'")
