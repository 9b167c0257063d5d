"""The top-k metrics of the semi-bandit papers: aggregate regret, precision, failure and
samples per arm.

Notation: ``means`` are the true means ``theta``, ``chosen`` the ``K`` arms an algorithm
returns, ``[K]`` the ``K`` arms of largest mean.

References
----------
Y. Zhou, X. Chen, J. Li. Optimal PAC multiple arm identification with applications to
crowdsourcing. ICML 2014, section 2 (aggregate regret) and section 6 (precision, samples
per worker).
J. Chen, X. Chen, Q. Zhang, Y. Zhou. Adaptive multiple-arm identification. ICML 2017,
section 2 (epsilon-top-k with aggregate regret) and section 6 (failure probability).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from fullbandit.util.validation import InvalidParameterError, check_vector


def _chosen(means: np.ndarray, chosen) -> np.ndarray:
    arms = np.array(sorted(int(i) for i in chosen), dtype=np.intp)
    if arms.size == 0 or np.unique(arms).size != arms.size or arms.min() < 0 or arms.max() >= means.size:
        raise InvalidParameterError(f"chosen={tuple(arms.tolist())} must hold distinct arm indices in "
                                    f"0..{means.size - 1}")
    return arms


def aggregate_regret(means, chosen) -> float:
    """``(1/K) (sum of the K largest means - sum of the chosen means)``, ``K = len(chosen)``.

    Zhou, Chen, Li (2014), equation (1). Zero exactly for a top-``K`` set (ties included).

    Examples
    --------
    >>> from fullbandit.analysis.metrics import aggregate_regret
    >>> round(aggregate_regret([0.9, 0.8, 0.5, 0.1], (0, 2)), 12)   # (0.9 + 0.8 - 0.9 - 0.5) / 2
    0.15
    """
    theta = check_vector("means", means)
    arms = _chosen(theta, chosen)
    top = np.sort(theta)[::-1][:arms.size]
    return float((top.sum() - theta[arms].sum()) / arms.size)


def precision(means, chosen) -> float:
    """``|T intersect [K]| / K``: the fraction of the chosen arms among the ``K`` best.

    With ties at the ``K``-th mean, ``[K]`` is the top-``K`` set that overlaps the chosen
    one most: every chosen arm above the ``K``-th mean is a hit, and chosen arms equal to
    it are hits up to the places the arms above leave. So the value is 1 exactly for the
    top-``K`` sets.

    Examples
    --------
    >>> from fullbandit.analysis.metrics import precision
    >>> precision([0.9, 0.8, 0.5, 0.1], (0, 2)), precision([0.5, 0.5, 0.5, 0.1], (1, 2))
    (0.5, 1.0)
    >>> precision([0.0, 0.0, 0.1], (0, 1))   # one place for the tied arms: one hit of two
    0.5
    """
    theta = check_vector("means", means)
    arms = _chosen(theta, chosen)
    threshold = np.sort(theta)[::-1][arms.size - 1]
    places = arms.size - int(np.count_nonzero(theta > threshold))  # top-K places for arms tied at it
    above = int(np.count_nonzero(theta[arms] > threshold))
    tied = int(np.count_nonzero(theta[arms] == threshold))
    return float((above + min(tied, places)) / arms.size)


def failure_rate(regrets: Iterable[float], epsilon: float) -> float:
    """``P(regret > epsilon)`` estimated over runs: the fraction of ``regrets`` above ``epsilon``.

    Chen et al. (2017), section 6 (their failure probability, with the aggregate regret).

    Examples
    --------
    >>> from fullbandit.analysis.metrics import failure_rate
    >>> failure_rate([0.0, 0.02, 0.005, 0.0], epsilon=0.01)
    0.25
    """
    values = np.asarray(list(regrets), dtype=float)
    if values.size == 0:
        raise InvalidParameterError("regrets must hold at least one run's regret")
    return float(np.mean(values > epsilon))


def sample_summary(samples_per_arm) -> dict[str, float]:
    """Maximum, mean, median and 90th percentile of the samples each arm received.

    The largest number of tasks one worker must do is OptMAI's selling point for
    crowdsourcing (Zhou et al. 2014, section 6: at most 48 against 143 for SAR on RTE).

    Examples
    --------
    >>> from fullbandit.analysis.metrics import sample_summary
    >>> sample_summary([10, 10, 40, 20])
    {'max': 40.0, 'mean': 20.0, 'median': 15.0, 'p90': 34.0}
    """
    counts = check_vector("samples_per_arm", samples_per_arm)
    if np.any(counts < 0):
        raise InvalidParameterError("samples_per_arm must be non-negative")
    return {"max": float(counts.max()), "mean": float(counts.mean()), "median": float(np.median(counts)),
            "p90": float(np.percentile(counts, 90))}


def misclassified(means, above, threshold: float, epsilon: float = 0.0) -> int:
    """Arms on the wrong side of ``threshold``: the thresholding bandit's loss.

    ``above`` holds the arms declared at or above the threshold (a
    :class:`fullbandit.Thresholding` decision). Arm ``i`` counts when it is declared above
    with ``theta_i < threshold - epsilon``, or declared below with
    ``theta_i >= threshold + epsilon``: arms within ``epsilon`` of the threshold (the
    indifference zone of APT, Locatelli et al. 2016) never count. With ``epsilon = 0`` it is
    Tao et al.'s count, whose expectation over runs is their aggregate regret (Tao, Blanco,
    Peng, Zhou 2019, equation (3)); divided by ``n``, the quantity of their Figure 1.

    Examples
    --------
    >>> from fullbandit.analysis.metrics import misclassified
    >>> misclassified([0.2, 0.5, 0.7, 0.45], above=(1, 2, 3), threshold=0.5)     # 0.45 declared above
    1
    >>> misclassified([0.2, 0.5, 0.7, 0.45], above=(1, 2, 3), threshold=0.5, epsilon=0.1)   # within 0.1: ignored
    0
    """
    theta = check_vector("means", means)
    declared = np.zeros(theta.size, dtype=bool)
    arms = [int(i) for i in above]
    if any(not 0 <= i < theta.size for i in arms) or len(set(arms)) != len(arms):
        raise InvalidParameterError(f"above={tuple(arms)} must hold distinct arm indices in 0..{theta.size - 1}")
    if not (np.isfinite(epsilon) and epsilon >= 0):
        raise InvalidParameterError(f"epsilon={epsilon!r} must be a finite number >= 0")
    declared[arms] = True
    wrong_above = declared & (theta < threshold - epsilon)
    wrong_below = ~declared & (theta >= threshold + epsilon)
    return int(np.count_nonzero(wrong_above | wrong_below))
