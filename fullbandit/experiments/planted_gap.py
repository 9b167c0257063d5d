"""The planted-gap instances of Kuroki et al. (2020), section 5, which several suites share."""

from __future__ import annotations

from fullbandit.datasets.synthetic import kuroki_planted_gap
from fullbandit.environments.models import GaussianSum
from fullbandit.experiments.evaluations import Instance
from fullbandit.problems.classes import TopK


def planted_gap_instance(rng, n: int, k: int, min_gap: float, sigma: float) -> Instance:
    """Kuroki et al. (2020), section 5: planted-gap means, Gaussian noise ``N(0, sigma^2)`` on the sum.

    >>> import numpy as np
    >>> instance = planted_gap_instance(np.random.default_rng(0), n=6, k=2, min_gap=0.5, sigma=0.1)
    >>> means = np.sort(instance.environment.means)   # the k-th best is min_gap above the (k+1)-th
    >>> instance.problem, round(float(means[-2] - means[-3]), 9), instance.environment.sigma
    (TopK(n=6, k=2), 0.5, 0.1)
    """
    synthetic = kuroki_planted_gap(n, k, min_gap, seed=rng, shuffle=True)
    environment = GaussianSum(synthetic.means, sigma=sigma, seed=rng)
    return Instance(TopK(n, k), environment)


def half_planted_gap_instance(rng, n: int, min_gap: float, sigma: float) -> Instance:
    """:func:`planted_gap_instance` with ``k = n / 2`` (the size at which ``C(n, k)`` is largest)."""
    return planted_gap_instance(rng, n=n, k=n // 2, min_gap=min_gap, sigma=sigma)
