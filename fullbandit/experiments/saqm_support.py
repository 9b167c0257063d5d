"""The ``saqm-support`` suite: how SAQM's sample complexity depends on its support.

SAQM with a uniform allocation over cyclic windows against random supports of ``n``,
``2 n`` and ``4 n`` super-arms, on the planted-gap instances of Kuroki et al. (2020),
section 5 (``k = 3``, gap 0.2, ``sigma = 0.2``): pulls against ``n``, and error rates.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pandas as pd

from fullbandit.experiments.grid import Factory, Grid
from fullbandit.experiments.planted_gap import planted_gap_instance
from fullbandit.experiments.plots import plot_error_rates, plot_metric
from fullbandit.experiments.suite import Suite
from fullbandit.full.saqm import SAQM


def saqm_factory(problem, seed, *, support: str, support_factor: int | None = None, epsilon: float = 0.0,
                 delta: float = 0.05, **options) -> SAQM:
    """SAQM with a support given as a kind and, for random supports, a size in multiples of n
    (capped at the number of super-arms)."""
    size = None if support_factor is None else min(support_factor * problem.n, problem.size)
    return SAQM(problem, epsilon=epsilon, delta=delta, support=support, support_size=size, seed=seed, **options)


def support_grid(runs: int) -> Grid:
    """SAQM over cyclic windows and random supports of ``n``, ``2 n``, ``4 n``, for ``n`` in 7..16, ``runs`` seeds."""
    algorithms = {
        "SAQM cyclic windows": Factory(partial(saqm_factory, support="cyclic")),
        "SAQM random n": Factory(partial(saqm_factory, support="random", support_factor=1)),
        "SAQM random 2n": Factory(partial(saqm_factory, support="random", support_factor=2)),
        "SAQM random 4n": Factory(partial(saqm_factory, support="random", support_factor=4)),
    }
    instances = {"planted gap": Factory(partial(planted_gap_instance, k=3, min_gap=0.2, sigma=0.2),
                                        {"n": [7, 10, 13, 16]})}
    return Grid(algorithms, instances, seeds=runs)


def support_plot(frame: pd.DataFrame, path: Path) -> None:
    """Pulls against ``n`` (log y) and error rates, side by side."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    plot_metric(frame, "n", "pulls", ax=left, logy=True,
                title="SAQM sample complexity by support (k=3, gap 0.2, sigma 0.2)")
    plot_error_rates(frame, ax=right, delta=0.05, title="error rate (answer not optimal)")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


SUPPORT_SUITE = Suite(
    "saqm-support",
    "SAQM with a uniform allocation over cyclic windows vs random supports of n, 2n, 4n "
    "super-arms, on planted-gap instances (Kuroki et al. 2020, section 5): pulls against n, "
    "and error rates.",
    support_grid, support_plot, default_runs=20)

#: The suites this module declares (gathered by :mod:`fullbandit.experiments.suites`).
SUITES = (SUPPORT_SUITE,)
