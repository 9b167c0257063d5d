"""A time-uniform confidence radius over whole passes of a repeated design (a discrete mixture boundary).

The radius of ``confidence="time-uniform"``: valid at every whole pass at once, so the
stopping checks cost nothing (no union over them).

Setting. A static design repeats one block (a *pass*: every support member once, the
round robin of a uniform allocation), and the estimate after ``p`` passes reads exactly the
first ``p`` passes handed out, with no prior observations. Then ``A_p = p B`` with ``B`` the
Gram matrix of one pass, and for a fixed direction ``y``

    ``y . (theta - theta_hat_p) = sqrt(v) U_p / p``,  ``U_p = sum_{q <= p} Z_q``,
    ``Z_q = -y^T B^-1 sum_{pulls s of pass q} x_s eta_s / sqrt(v)``,

with ``v = R^2 ||y||^2_{B^-1}``. The ``Z_q`` are independent (each reads the noise of its own
pass) and each is 1-sub-Gaussian (a sum of independent ``R``-sub-Gaussian terms with weights
``y^T B^-1 x_s`` whose squares sum to ``y^T B^-1 B B^-1 y``). Also
``||y||_{A_p^-1} = sqrt(v / p) / R``.

The mixture. Fix ``L = log(N / delta)`` and the grid of *tuning passes*
``tau_j = 2^(-1 + j / 2)``, ``j = 0, 1, 2, ...``, with slopes ``lambda_j = sqrt(2 L / tau_j)``
(the slope whose line is tangent to the fixed-time bound at pass ``tau_j``) and weights

    ``w_j = 0.9 / 26`` for ``j < 26`` (the *core*: ``tau`` from 1/2 to 2^12 passes, uniform in
    ``log tau``), and ``w_j = 0.1 (j - 25)^-1.4 / zeta(1.4)`` beyond (a tail for later stops),

which sum to one. Let ``F_p(s) = log sum_{j < J} w_j exp(lambda_j s - lambda_j^2 p / 2)`` for any
finite ``J``, and ``s_p`` the root of ``F_p(s) = L`` (``F_p`` increases with ``s``). The radius is
``C_p = R s_p / sqrt(p)``.

Theorem. For a fixed set of ``N`` directions, with probability at least ``1 - delta``, for
every pass ``p >= 1`` and every direction ``y`` of the set,
``y . (theta - theta_hat_p) <= C_p ||y||_{A_p^-1}`` (one-sided; the two-sided statement needs
``2 N`` in place of ``N``).

Proof. Fix ``y``. For each ``lambda``, ``exp(lambda U_p - lambda^2 p / 2)`` is a non-negative
supermartingale in ``p`` starting at 1 (the increments are 1-sub-Gaussian given the past), so
``M_p = sum_j w_j exp(lambda_j U_p - lambda_j^2 p / 2)`` (all ``j``) is one too (a mixture of them,
Tonelli), starting at ``sum_j w_j = 1``. By Ville's maximal inequality, the probability that
``M_p >= N / delta`` for some ``p`` is at most ``delta / N``. If ``U_p >= s_p`` then, as ``F_p``
increases, ``M_p >= exp(F_p(U_p)) >= exp(F_p(s_p)) = N / delta`` (the truncated sum is at most
``M_p``: truncation only makes ``s_p`` larger). So outside that event ``U_p < s_p`` for every
``p``, that is ``y . (theta - theta_hat_p) < sqrt(v) s_p / p = C_p ||y||_{A_p^-1}``. The union
over the ``N`` directions costs ``delta``. QED.

Why this mixture. The stitched boundary that preceded it (Howard et al. 2021, stitching with
epochs of doubling length) pays, at a pass ``p`` of epoch ``k``, ``log zeta(1.4) + 1.4 log(k + 1)``
nats on top of ``L`` (3 to 4 nats at 8 to 128 passes). A mixture pays about
``-log(w sqrt(pi / L) / spacing)``, with ``w`` the weight of the slopes tuned near ``p`` and
``spacing = log(2) / 4`` the grid's step in ``log lambda`` (the sum over the slopes is a
Laplace integral of width ``sqrt(pi / L)`` in ``log lambda``); with the core's ``w = 0.9 / 26``
that is 2 to 2.5 nats for ``L`` from 7 to 20, wherever the core reaches. Measured against
the stitched line on ``N = 33`` one-sided directions (``tests/test_time_uniform.py`` checks
the inequality): at ``delta = 0.03`` ``(C_p / R)^2 / 2`` is 0.88, 0.83, 0.80 of it at 8, 32,
128 passes, and at ``delta = 6e-7`` 0.95, 0.92, 0.90. Over ``delta`` from 1e-9 to 0.2 and
``N`` from 1 to 10^12 it is at most 1.011 times the stitched one from 2 to 2^17 passes, and
up to 1.17 times at the first pass (whose epoch had a weight of 0.32). The choices of the
grid (half-doublings from 1/2 pass), the core (to 2^12 passes, 90% of the mass) and the
tail's power are ours, fixed before any data; any choice keeps the theorem.

References
----------
S. R. Howard, A. Ramdas, J. McAuliffe, J. Sekhon. Time-uniform, nonparametric, nonasymptotic
confidence sequences. Annals of Statistics 49(2), 2021, section 3 (mixtures and stitching of
exponential supermartingales).
E. Kaufmann, W. M. Koolen. Mixture martingales revisited with applications to sequential tests
and confidence intervals. Journal of Machine Learning Research 22(246), 2021 (discrete mixtures
over a grid of slopes).
J. Ville. Etude critique de la notion de collectif. Gauthier-Villars, 1939 (the maximal
inequality for non-negative supermartingales).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from fullbandit.util.validation import InvalidParameterError, check_int, check_probability, check_real

#: The grid: tuning passes ``tau_j = 2^(FIRST_DOUBLING + j / STEPS_PER_DOUBLING)``.
FIRST_DOUBLING = -1
STEPS_PER_DOUBLING = 2
#: The core's slopes (uniform weights): tuning passes from 1/2 to ``2^12``.
CORE_SLOPES = 26
CORE_MASS = 0.9
#: The tail's weights ``(1 - CORE_MASS) (j - CORE_SLOPES + 1)^-TAIL_POWER / zeta(TAIL_POWER)``.
TAIL_POWER = 1.4
#: ``zeta(1.4) = sum_{i >= 1} i^-1.4`` (``scipy.special.zeta(1.4)``; a constant, so that a radius needs
#: no scipy at import: tests/test_time_uniform.py checks it).
ZETA_OF_TAIL_POWER = 3.1055472779775815
#: Slopes kept in the sum past those tuned to the current pass (30 doublings more). The ones left
#: out are nearly flat there (slope times root below ``3 L 2^-15``) and weigh under 0.02 in all,
#: against a sum that reaches ``N / delta > 1``; leaving them out only raises the root (still valid).
EXTRA_SLOPES = 60


def mixture_grid(level: float, passes: int) -> tuple[np.ndarray, np.ndarray]:
    """The slopes ``lambda_j`` and log-weights ``log w_j`` of the mixture used at pass ``passes``.

    ``level`` is ``L = log(N / delta)``. The grid holds the core and enough of the tail to
    reach ``2^30`` times beyond the current pass (module docstring).

    Examples
    --------
    >>> import math
    >>> from fullbandit.linalg.time_uniform import mixture_grid
    >>> slopes, log_weights = mixture_grid(math.log(20.0), 1)
    >>> len(slopes), round(float(slopes[2]), 6) == round(math.sqrt(2 * math.log(20.0)), 6)   # tau_2 = 1 pass
    (86, True)
    >>> round(float(math.exp(log_weights[0]) * 26), 12)
    0.9
    """
    doublings = passes.bit_length() + 1 - FIRST_DOUBLING
    count = max(CORE_SLOPES, STEPS_PER_DOUBLING * doublings) + EXTRA_SLOPES
    j = np.arange(count, dtype=float)
    tuning_passes = np.exp2(FIRST_DOUBLING + j / STEPS_PER_DOUBLING)
    slopes = np.sqrt(2.0 * level / tuning_passes)
    tail_rank = np.maximum(j - CORE_SLOPES + 1.0, 1.0)
    log_weights = np.where(j < CORE_SLOPES, math.log(CORE_MASS / CORE_SLOPES),
                           math.log((1.0 - CORE_MASS) / ZETA_OF_TAIL_POWER) - TAIL_POWER * np.log(tail_rank))
    return slopes, log_weights


def _log_mixture(slopes: np.ndarray, log_weights: np.ndarray, value: float, passes: int) -> tuple[float, float]:
    """``F_p(value)`` and its derivative (the mean slope under the terms' shares of the sum)."""
    exponents = log_weights + slopes * value - slopes * slopes * (passes / 2.0)
    largest = float(exponents.max())
    shares = np.exp(exponents - largest)
    total = float(shares.sum())
    return largest + math.log(total), float(shares @ slopes) / total


@lru_cache(maxsize=4096)
def boundary_root(passes: int, level: float) -> float:
    """``s_p``: the smallest ``s`` (to a relative ``1e-12``, from above) with ``F_p(s) >= L``.

    ``C_p = R s_p / sqrt(p)``; the root is taken from above so the radius is never below
    the theorem's (module docstring). Newton's method from above: ``F_p`` is increasing and
    convex (a log-sum-exp of lines), so each step stays above the root and a few reach it.

    Examples
    --------
    >>> import math
    >>> from fullbandit.linalg.time_uniform import boundary_root
    >>> root = boundary_root(16, math.log(33 / 0.03))
    >>> round(root / math.sqrt(2 * 16 * math.log(33 / 0.03)), 4)   # above the fixed-time bound's sqrt(2 p L)
    1.1385
    """
    slopes, log_weights = mixture_grid(level, passes)
    # One term alone already reaches the level at its crossing: a start above the root.
    value = float(np.min((level - log_weights + slopes * slopes * (passes / 2.0)) / slopes))
    for _ in range(200):
        log_mixture, derivative = _log_mixture(slopes, log_weights, value, passes)
        step = (log_mixture - level) / derivative
        if step <= 1e-13 * value:
            break
        value -= step
    while _log_mixture(slopes, log_weights, value, passes)[0] < level:  # a last step rounded below the root
        value *= 1.0 + 1e-13
    return value * (1.0 + 1e-12)  # above the root however the sum is rounded


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
    About 17% above the fixed-time radius ``R sqrt(2 log(N / delta))`` at every pass of the
    core (it holds at all of them at once):

    >>> import math
    >>> from fullbandit.linalg.time_uniform import time_uniform_radius
    >>> fixed_time = math.sqrt(2 * math.log(10 / 0.05))
    >>> [round(time_uniform_radius(p, 0.05, 1.0, 10) / fixed_time, 3) for p in (1, 8, 64, 512)]
    [1.175, 1.169, 1.169, 1.17]
    >>> round(time_uniform_radius(300, 0.05, 2.0, 10) / time_uniform_radius(300, 0.05, 1.0, 10), 12)
    2.0
    """
    check_int("passes", passes, low=1)
    check_probability("delta", delta)
    check_real("noise_scale", noise_scale, low=0.0, low_inclusive=False)
    check_int("n_events", n_events, low=1)
    level = math.log(n_events) - math.log(delta)  # exact for huge N
    return noise_scale * boundary_root(passes, level) / math.sqrt(passes)


def confidence_with_prior(requested: str, resolved: str, label: str) -> str:
    """The confidence a design keeps once prior observations join its estimate.

    Prior observations are not whole passes of the design, so the time-uniform bound (this
    module's theorem) no longer holds: ``"auto"`` falls back to ``"stitched"`` (a union over
    the checks), an explicit ``"time-uniform"`` is refused, and any other confidence stays.

    Examples
    --------
    >>> from fullbandit.linalg.time_uniform import confidence_with_prior
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
