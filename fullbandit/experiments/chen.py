"""Reproduction of Chen, Chen, Zhang, Zhou (2017), section 3, Figures 1-4: the ``chen-fig1-4`` suite.

``n = 1000`` Bernoulli arms from TWOGROUP, SYNTHETIC-0.5, UNIFORM and SYNTHETIC-6
(:mod:`fullbandit.datasets.synthetic`), ``K in {100, 250, 500}``, ``epsilon = delta = 0.01``:
the failure probability ``P(aggregate regret > epsilon)`` against the budget, for
AdaptiveTopK converted to a fixed budget (the paper's experiments), CLUCB-PAC run to the
same budget, and OptMAI.

The paper runs each point 200 times, over budgets its figures show but its text does
not give. Here the budgets are ``10 n, 30 n, 100 n`` (CLUCB-PAC, which samples one arm
per round, only ``10 n`` and ``30 n``, to fit in 30 minutes on 2 cores), with fewer runs
(``--runs``); the figure shows Wilson 95% intervals. The paper's 200 runs and budgets to
``2000 n`` for AdaptiveTopK and OptMAI (in both its variants) are the ``chen-budget`` suite
(:mod:`fullbandit.experiments.chen_budget`); CLUCB-PAC stays here, at 10 runs.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from fullbandit.analysis.metrics import aggregate_regret
from fullbandit.core import registry
from fullbandit.datasets.synthetic import SyntheticInstance, chen_synthetic_p, chen_twogroup, chen_uniform
from fullbandit.environments.models import BernoulliTeam
from fullbandit.experiments import zhou
from fullbandit.experiments.evaluations import Instance
from fullbandit.experiments.grid import Factory, Grid
from fullbandit.experiments.plots import plot_metric
from fullbandit.experiments.suite import Suite
from fullbandit.problems.classes import TopK

N = 1000
KS = (100, 250, 500)
EPSILON = 0.01
DELTA = 0.01
BUDGETS = (10, 30, 100)  # multiples of n
ROUND_BY_ROUND_BUDGETS = (10, 30)  # CLUCB-PAC: one sample per round
DATASETS: dict[str, Callable[..., SyntheticInstance]] = {
    "TWOGROUP": chen_twogroup, "SYNTHETIC-0.5": partial(chen_synthetic_p, p=0.5), "UNIFORM": chen_uniform,
    "SYNTHETIC-6": partial(chen_synthetic_p, p=6.0)}


#: Display name -> (registry name, the paper's options, budgets in multiples of n). ``regret_epsilon`` is
#: the paper's tolerance on the aggregate regret, which :func:`budgeted` passes as the epsilon on the sum.
ALGORITHMS: dict[str, tuple[str, dict, tuple[int, ...]]] = {
    "AdaptiveTopK": ("adaptive-topk-budget", {"delta": DELTA}, BUDGETS),
    "CLUCB-PAC": ("clucb-pac", {"regret_epsilon": EPSILON, "delta": DELTA}, ROUND_BY_ROUND_BUDGETS),
    "OptMAI": ("optmai", zhou.PAPER_OPTMAI, BUDGETS),  # as Zhou et al.'s experiments run it
}


def budgeted(problem, seed, *, name: str, budget_per_arm: int, regret_epsilon: float | None = None, **options):
    """The registered ``name`` with the budget ``budget_per_arm * n`` and ``options``.

    ``regret_epsilon``, a tolerance on the aggregate regret (the team's mean gap), becomes the
    registry's ``epsilon``, a tolerance on the team's summed gap: ``K`` times it.
    """
    if regret_epsilon is not None:
        options["epsilon"] = regret_epsilon * problem.k
    return zhou.budgeted(problem, seed, name=name, budget_per_arm=budget_per_arm, **options)


def instance(rng, *, dataset: str, K: int, n: int = N) -> Instance:
    theta = DATASETS[dataset](K, n=n, seed=rng, shuffle=True).means
    return Instance(TopK(n, K), BernoulliTeam(theta, feedback="semi", seed=rng), {"dataset": dataset})


def failure_metric(result, instance: Instance) -> dict:
    """Whether the aggregate regret exceeds epsilon = 0.01 (the paper's failure)."""
    regret = np.nan if result.answer is None else aggregate_regret(instance.environment.means, result.answer)
    return {"regret": regret, "failure": bool(not regret <= EPSILON)}


def build_grid(runs: int, ks=KS, n: int = N) -> Grid:
    available = set(registry.names())
    algorithms = {label: Factory(partial(budgeted, name=name, **options), {"budget_per_arm": list(budgets)})
                  for label, (name, options, budgets) in ALGORITHMS.items() if name in available}
    instances = {name: Factory(partial(instance, dataset=name, n=n), {"K": list(ks)}) for name in DATASETS}
    return Grid(algorithms, instances, seeds=runs, metrics=failure_metric)


def summarize(frame: pd.DataFrame) -> pd.DataFrame:
    """Failure probability and mean regret per data set, K, algorithm and budget."""
    return frame.groupby(["instance", "K", "algorithm", "budget_per_arm"]).agg(
        runs=("failure", "size"), failure_probability=("failure", "mean"), mean_regret=("regret", "mean"))


def plot(frame: pd.DataFrame, path: Path) -> None:
    """Figures 1-4: failure probability against the budget, one row per data set, one column per K."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ks = sorted(frame["K"].unique())
    figure, axes = plt.subplots(len(DATASETS), len(ks), figsize=(5 * len(ks), 3.6 * len(DATASETS)), squeeze=False)
    frame = frame.assign(failure=frame["failure"].astype(float))
    for row, dataset in enumerate(DATASETS):
        for column, k in enumerate(ks):
            panel = frame[(frame["instance"] == dataset) & (frame["K"] == k)]
            if len(panel):
                plot_metric(panel, "budget_per_arm", "failure", ax=axes[row][column],
                            title=f"{dataset}, K = {k}: P(regret > {EPSILON})")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


FIG1_4_SUITE = Suite(
    "chen-fig1-4",
    "Chen, Chen, Zhang, Zhou (2017), Figures 1-4: failure probability P(aggregate regret > 0.01) against the "
    "budget on TWOGROUP, SYNTHETIC-0.5, UNIFORM, SYNTHETIC-6 (n = 1000, K = 100, 250, 500, delta = 0.01): "
    "AdaptiveTopK (fixed budget), CLUCB-PAC, OptMAI. The paper runs 200 times per point; here fewer runs and "
    "budgets 10n, 30n, 100n (CLUCB-PAC: 10n, 30n). Paper's statement: AdaptiveTopK outperforms CLUCB-PAC on "
    "almost all data sets; OptMAI is best for small K, AdaptiveTopK for large K and on TWOGROUP.",
    build_grid, plot, default_runs=10, summarize=summarize)

#: The suites this module declares (gathered by :mod:`fullbandit.experiments.suites`).
SUITES = (FIG1_4_SUITE,)
