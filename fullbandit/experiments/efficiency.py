"""How close the algorithms come to the best possible: the ``efficiency`` suites.

``efficiency`` (enumerable instances)
    Every fixed-confidence full-feedback algorithm of the registry on planted-gap and
    random-mean instances with ``n = 8..14`` arms, ``k = 3``, Gaussian noise on the sum: its
    pulls divided by the instance lower bound ``T*(theta) log(1/(2.4 delta))`` of
    :func:`fullbandit.lower_bound` (exact there: cutting planes over all super-arms), with
    error rates and budget hits beside it.

``efficiency-quiz`` (the six quiz data sets)
    The same algorithms but Exhaustive (the classes are far too large to enumerate) on
    the data sets of Kuroki et al. (2020), Table 2: ``k = 10``, ``epsilon = 0.5``,
    ``delta = 0.05``, independent Bernoulli workers; pulls divided by ICB's on the same
    data set and seed (paired: every algorithm meets the same noise draws).

Every algorithm runs with its own defaults (design, confidence constant), and one more
row, ``icb[stitched, swap-optimal]``, is ICB with the support and confidence constant of
SwapBound and PhasedSwap: the ratio of a rule to it is what the rule itself gains.

Choices made here (no paper fixes them): ``k = 3`` keeps the exact lower bound cheap
(``C(14, 3) = 364`` super-arms); the synthetic instances use ``epsilon = 0.1`` so that the
random-mean instances, whose k-th and (k+1)-th means may be arbitrarily close, have a
finite lower bound; the lower bound is the epsilon version of :func:`fullbandit.lower_bound`,
a valid bound for every algorithm that returns an epsilon-good team with probability at
least ``1 - delta``.
"""

from __future__ import annotations

import math
from functools import lru_cache, partial
from pathlib import Path

import numpy as np
import pandas as pd

from fullbandit.analysis.sample_complexity import lower_bound
from fullbandit.core import registry
from fullbandit.datasets.quiz import DATASETS
from fullbandit.datasets.synthetic import kuroki_planted_gap
from fullbandit.environments.models import GaussianSum
from fullbandit.experiments.evaluations import Instance
from fullbandit.experiments.grid import Factory, Grid
from fullbandit.experiments.kuroki_samples import quiz_instance
from fullbandit.experiments.plots import plot_error_rates, plot_metric
from fullbandit.experiments.suite import Suite
from fullbandit.problems.classes import TopK

SYNTHETIC_NS = (8, 10, 12, 14)
SYNTHETIC_K = 3
SYNTHETIC_SIGMA = 0.5
SYNTHETIC_EPSILON = 0.1
PLANTED_GAP = 0.3
DELTA = 0.05
QUIZ_K = 10
QUIZ_EPSILON = 0.5
BUDGET = 20_000_000


def algorithms(*, enumerable: bool) -> tuple[str, ...]:
    """Registry names of the fixed-confidence full-feedback algorithms (Exhaustive only when ``enumerable``)."""
    names = registry.names(feedback="full", setting="fixed-confidence")
    return tuple(name for name in names if enumerable or name != "exhaustive")


def synthetic_instance(rng, n: int, family: str) -> Instance:
    """A planted-gap (Kuroki et al. 2020, section 5) or uniformly random-mean instance, Gaussian noise."""
    if family == "planted":
        means = kuroki_planted_gap(n, SYNTHETIC_K, PLANTED_GAP, seed=rng, shuffle=True).means
    else:
        means = rng.uniform(0.0, 1.0, n)
    return Instance(TopK(n, SYNTHETIC_K), GaussianSum(means, sigma=SYNTHETIC_SIGMA, seed=rng),
                    {"family": family})


@lru_cache(maxsize=256)
def _lower_bound_samples(means: tuple[float, ...], k: int, sigma: float, epsilon: float, delta: float) -> float:
    # Every algorithm of a cell meets the same instance: compute its bound once per process.
    samples = lower_bound(TopK(len(means), k), np.array(means), sigma, delta=delta, epsilon=epsilon).samples
    assert samples is not None  # delta was given
    return float(samples)


def lower_bound_metrics(result, instance: Instance) -> dict:
    """``lower_bound``: ``T* log(1/(2.4 delta))`` of the instance; ``efficiency``: pulls divided by it."""
    environment = instance.environment
    samples = _lower_bound_samples(tuple(float(m) for m in environment.means), instance.problem.k,
                                   float(environment.sigma), SYNTHETIC_EPSILON, DELTA)
    return {"lower_bound": samples, "efficiency": result.pulls / samples if samples > 0 else math.nan}


#: ICB with the design and confidence of SwapBound and PhasedSwap: what their rules gain, apart from those.
ICB_ABLATION = "icb[stitched, swap-optimal]"


def _settings(epsilon: float) -> dict:
    # Every algorithm with its own default design and confidence constant.
    return {"epsilon": epsilon, "delta": DELTA, "budget": BUDGET}


def _factories(epsilon: float, *, enumerable: bool) -> dict[str, Factory]:
    factories = {name: Factory.registered(name, **_settings(epsilon)) for name in algorithms(enumerable=enumerable)}
    factories[ICB_ABLATION] = Factory.registered("icb", confidence="stitched", support="swap-optimal",
                                                 **_settings(epsilon))
    return factories


def build_synthetic_grid(runs: int, ns=SYNTHETIC_NS) -> Grid:
    """The grid of ``efficiency``: algorithms x {planted, random} x ``n`` x ``runs`` seeds."""
    algorithm_factories = _factories(SYNTHETIC_EPSILON, enumerable=True)
    instances = {family: Factory(partial(synthetic_instance, family=family), {"n": list(ns)})
                 for family in ("planted", "random")}
    return Grid(algorithm_factories, instances, seeds=runs, metrics=lower_bound_metrics)


def build_quiz_grid(runs: int) -> Grid:
    """The grid of ``efficiency-quiz``: algorithms x the six data sets x ``runs`` seeds."""
    algorithm_factories = _factories(QUIZ_EPSILON, enumerable=False)
    instances = {dataset: Factory(partial(quiz_instance, dataset=dataset, k=QUIZ_K)) for dataset in DATASETS}
    return Grid(algorithm_factories, instances, seeds=runs)


def summarize_synthetic(frame: pd.DataFrame) -> pd.DataFrame:
    """Per algorithm, family and ``n``: runs, mean pulls, mean lower bound, their ratio, errors, budget hits."""
    grouped = frame.groupby(["algorithm", "instance", "n"])
    table = grouped.agg(runs=("pulls", "size"), mean_pulls=("pulls", "mean"), lower_bound=("lower_bound", "mean"),
                        errors=("epsilon_optimal", lambda ok: int((~ok.astype(bool)).sum())),
                        budget_hits=("stop_reason", lambda reasons: int((reasons == "budget exhausted").sum())))
    table.insert(3, "pulls / lower bound", table["mean_pulls"] / table["lower_bound"])
    return table


def summarize_quiz(frame: pd.DataFrame) -> pd.DataFrame:
    """Per data set and algorithm: mean pulls, pulls divided by ICB's (paired by seed), errors, budget hits."""
    icb = frame[frame["algorithm"] == "icb"].set_index(["instance", "seed"])["pulls"]
    ratios = frame.apply(lambda row: row["pulls"] / icb.get((row["instance"], row["seed"]), math.nan), axis=1)
    frame = frame.assign(ratio_to_icb=ratios)
    return frame.groupby(["instance", "algorithm"]).agg(
        runs=("pulls", "size"), mean_pulls=("pulls", "mean"), pulls_over_icb=("ratio_to_icb", "mean"),
        errors=("epsilon_optimal", lambda ok: int((~ok.astype(bool)).sum())),
        budget_hits=("stop_reason", lambda reasons: int((reasons == "budget exhausted").sum())))


def plot_synthetic(frame: pd.DataFrame, path: Path) -> None:
    """Pulls divided by the lower bound against ``n`` (one panel per family), and error rates."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    frame = frame.assign(ratio=frame["pulls"] / frame["lower_bound"])
    figure, axes = plt.subplots(1, 3, figsize=(18, 4.8))
    for ax, family in zip(axes[:2], ("planted", "random"), strict=True):
        subset = frame[frame["instance"] == family]
        plot_metric(subset, "n", "ratio", ax=ax, logy=True,
                    title=f"{family}: pulls / (T* log(1/(2.4 delta))), k={SYNTHETIC_K}, eps={SYNTHETIC_EPSILON}")
        ax.axhline(10.0, color="grey", linestyle=":", linewidth=1)
    plot_error_rates(frame, ax=axes[2], delta=DELTA, title="error rate (answer not epsilon-optimal)")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def plot_quiz(frame: pd.DataFrame, path: Path) -> None:
    """Pulls divided by ICB's, per data set and algorithm (log scale)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    table = summarize_quiz(frame)["pulls_over_icb"].unstack("algorithm")
    figure, ax = plt.subplots(figsize=(12, 4.5))
    table.plot.bar(ax=ax, logy=True, rot=0)
    ax.axhline(1.0, color="grey", linewidth=1)
    ax.axhline(0.2, color="grey", linestyle=":", linewidth=1)
    ax.set_ylabel("pulls / ICB's pulls")
    ax.set_title(f"Quiz data sets: k={QUIZ_K}, epsilon={QUIZ_EPSILON}, delta={DELTA}, Bernoulli workers "
                 "(dotted: the 5x target)")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


SYNTHETIC_SUITE = Suite(
    "efficiency",
    "Pulls of every fixed-confidence full-bandit algorithm divided by the instance lower bound "
    "T*(theta) log(1/(2.4 delta)) (Soare et al. 2014; exact by enumeration), on planted-gap and random-mean "
    "instances, n = 8..14, k = 3, epsilon = 0.1, N(0, 0.25) noise; errors and budget hits beside.",
    build_synthetic_grid, plot_synthetic, default_runs=10, summarize=summarize_synthetic)
QUIZ_SUITE = Suite(
    "efficiency-quiz",
    "Pulls of every fixed-confidence full-bandit algorithm divided by ICB's (same data set and seed) on the "
    "six quiz data sets, k = 10, epsilon = 0.5, delta = 0.05, Bernoulli workers; errors and budget hits.",
    build_quiz_grid, plot_quiz, default_runs=3, summarize=summarize_quiz)

#: The suites this module declares (gathered by :mod:`fullbandit.experiments.suites`).
SUITES = (SYNTHETIC_SUITE, QUIZ_SUITE)
