"""Reproductions of Zhou, Chen, Li (2014), section 6: fixed-budget top-K with per-arm feedback.

``zhou-fig1`` (Figure 1)
    ``n = 1000`` Bernoulli arms, means ``Unif[0, 1]`` or "0.6/0.5" (``K`` arms at 0.6, the
    rest at 0.5); budgets ``Q = 20 n, 50 n, 100 n``; aggregate regret against ``K``.
``zhou-rte`` (Figure 2)
    The 164 RTE workers' accuracies (:func:`fullbandit.datasets.rte.load_rte`) as Bernoulli
    arms; ``Q = 10 n, 20 n, 50 n``, ``K`` from 10 to 100; regret, precision, and the
    samples each worker received (the paper: at most 48 for OptMAI against 143 for SAR at
    ``Q = 10 n, K = 20``).

Algorithms: OptMAI with ``beta = 0.8`` and ``0.9``, SAR, LUCB (run to the budget, as the
paper compares it) and Uniform, each included when registered. The paper averages 100
runs per point, as both suites do (``--runs`` for a quick look), over fewer values of ``K``
(``FIG1_KS``, ``RTE_KS``). Figure 1's runs are batched (:mod:`fullbandit.experiments.repeated`,
:data:`FIG1_BATCH` runs a batch, a row holding a batch's sums), and LUCB, which samples two
arms per round and takes about 17 s a run at ``n = 1000``, runs only the first
:data:`FIG1_LUCB_RUNS_PER_BATCH` run of every batch (2 runs a point, on the same instances
as the first runs of the others): the paper's 100 for it would take 17 CPU hours. The
figures show 95% confidence bands.
"""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from fullbandit.analysis.metrics import aggregate_regret, precision
from fullbandit.core import registry
from fullbandit.core.loop import run
from fullbandit.datasets.rte import load_rte
from fullbandit.datasets.synthetic import zhou_two_level, zhou_uniform
from fullbandit.environments.models import BernoulliTeam
from fullbandit.experiments.batched import batch_sizes
from fullbandit.experiments.evaluations import Instance
from fullbandit.experiments.figures.zhou import plot_fig1, plot_rte
from fullbandit.experiments.grid import Factory, Grid
from fullbandit.experiments.repeated import batch_instance, repeated, repeated_evaluation
from fullbandit.experiments.suite import Suite
from fullbandit.problems.classes import TopK

FIG1_N = 1000
FIG1_RUNS = 100
FIG1_BATCH = 50
FIG1_LUCB_RUNS_PER_BATCH = 1
FIG1_KS = (10, 50, 100, 200, 300, 500)
FIG1_BUDGETS = (20, 50, 100)  # Q in multiples of n
RTE_KS = (10, 20, 40, 60, 80, 100)
RTE_BUDGETS = (10, 20, 50)
#: Figure 2 (e)-(f): the most samples a worker received at Q = 10n, K = 20, as the paper's text gives them.
PAPER_MAX_SAMPLES = {"OptMAI beta=0.8": 48, "SAR": 143, "LUCB": 17}

#: Display name -> (registry name, options): the paper's algorithms, when registered.
#: OptMAI as the paper's experiments run it: the adjusted budget Q' and earlier samples reused
#: (section 6; without them its regret on Unif[0, 1] means, Q = 20n, K = 100 was 3 times larger).
PAPER_OPTMAI = {"reuse_samples": True, "adjusted_budget": True}
ALGORITHMS: dict[str, tuple[str, dict]] = {
    "OptMAI beta=0.8": ("optmai", {"beta": 0.8, **PAPER_OPTMAI}),
    "OptMAI beta=0.9": ("optmai", {"beta": 0.9, **PAPER_OPTMAI}), "SAR": ("sar", {}),
    "LUCB": ("lucb", {"epsilon": 0.0, "delta": 0.1}), "Uniform": ("uniform", {})}


def budgeted(problem, seed, *, name: str, budget_per_arm: int, **options):
    """The registered algorithm ``name`` with the budget ``Q = budget_per_arm * n`` samples."""
    return registry.build(name, problem, seed=seed, budget=budget_per_arm * problem.n, **options)


def algorithm_factories(budgets) -> dict[str, Factory]:
    """The paper's algorithms that are registered, each swept over the budgets."""
    names = set(registry.names(feedback="semi"))
    return {label: Factory(partial(budgeted, name=name, **options), {"budget_per_arm": list(budgets)})
            for label, (name, options) in ALGORITHMS.items() if name in names}


def simulated_batch(rng, *, K: int, means: str, split: int, sizes: tuple[int, ...], n: int = FIG1_N) -> Instance:
    """Batch ``split`` of Figure 1's instances (:func:`simulated_instance`, drawn anew for every run)."""
    return batch_instance(rng, make=partial(simulated_instance, n=n), runs=sizes[split], K=K, means=means)


def simulated_instance(rng, *, K: int, means: str, n: int = FIG1_N) -> Instance:
    """Figure 1's arms (:func:`fullbandit.datasets.synthetic.zhou_uniform`, ``zhou_two_level``), shuffled."""
    make = zhou_uniform if means == "uniform" else zhou_two_level
    theta = make(K, n, seed=rng, shuffle=True).means
    return Instance(TopK(n, K), BernoulliTeam(theta, feedback="semi", seed=rng), {"means": means})


def rte_instance(rng, *, K: int) -> Instance:
    """Figure 2's arms: the RTE workers' accuracies, Bernoulli."""
    rte = load_rte()
    environment = BernoulliTeam(rte.accuracies, feedback="semi", seed=rng, labels=rte.worker_ids)
    return Instance(TopK(rte.n_workers, K), environment, {"means": "rte"})


def regret_metrics(result, instance: Instance) -> dict:
    """Aggregate regret (Zhou et al. 2014, equation (1)) and precision of the answer."""
    means = instance.environment.means
    if result.answer is None:
        return {"regret": np.nan, "precision": np.nan}
    return {"regret": aggregate_regret(means, result.answer), "precision": precision(means, result.answer)}


def regret_sums(result, instance: Instance) -> dict:
    """One run's aggregate regret, its square (for the standard error of a batch's mean) and precision."""
    metrics = regret_metrics(result, instance)
    return {**metrics, "regret_squared": metrics["regret"] ** 2}


def build_fig1_grid(runs: int, ks=FIG1_KS, budgets=FIG1_BUDGETS, n: int = FIG1_N, batch: int = FIG1_BATCH) -> Grid:
    """Figure 1's grid: ``runs`` runs per point in batches of at most ``batch``; LUCB's first run of each batch."""
    sizes = tuple(batch_sizes(runs, batch))
    names = set(registry.names(feedback="semi"))
    algorithms = {label: Factory(partial(repeated, build=partial(budgeted, name=name, **options),
                                         runs_per_batch=FIG1_LUCB_RUNS_PER_BATCH if label == "LUCB" else None),
                                 {"budget_per_arm": list(budgets)})
                  for label, (name, options) in ALGORITHMS.items() if name in names}
    instances = {"simulated": Factory(partial(simulated_batch, n=n, sizes=sizes),
                                      {"K": list(ks), "means": ["uniform", "0.6/0.5"],
                                       "split": list(range(len(sizes)))})}
    return Grid(algorithms, instances, seeds=1, evaluation=repeated_evaluation(regret_sums))


def build_rte_grid(runs: int, ks=RTE_KS, budgets=RTE_BUDGETS) -> Grid:
    instances = {"rte": Factory(rte_instance, {"K": list(ks)})}
    return Grid(algorithm_factories(budgets), instances, seeds=runs, metrics=regret_metrics)


def summarize_fig1(frame: pd.DataFrame) -> pd.DataFrame:
    """Runs, mean regret with its standard error, and mean precision per algorithm, means model, budget and K."""
    sums = frame.groupby(["algorithm", "means", "budget_per_arm", "K"])[
        ["runs", "regret", "regret_squared", "precision"]].sum()
    runs = sums["runs"]
    mean = sums["regret"] / runs
    variance = (sums["regret_squared"] - runs * mean ** 2).clip(lower=0.0) / (runs - 1).clip(lower=1)
    return pd.DataFrame({"runs": runs.astype(int), "regret": mean, "se": np.sqrt(variance / runs),
                         "precision": sums["precision"] / runs})


def summarize(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean regret and precision per algorithm, means model, budget and K."""
    keys = [c for c in ("means", "budget_per_arm", "K") if c in frame.columns]
    return frame.groupby(["algorithm", *keys]).agg(runs=("regret", "size"), regret=("regret", "mean"),
                                                   precision=("precision", "mean"),
                                                   max_samples=("max_samples_per_arm", "max"))


def samples_per_worker(name: str, options: dict, *, K: int = 20, budget_per_arm: int = 10, seed: int = 0):
    """Samples each RTE worker got in one run of ``name`` (Figure 2 (e)-(f): ``Q = 10 n``, ``K = 20``)."""
    instance = rte_instance(np.random.default_rng(seed), K=K)
    algorithm = budgeted(instance.problem, seed, name=name, budget_per_arm=budget_per_arm, **options)
    run(algorithm, instance.environment, progress=False)
    # OptMAI hands out what its rounds leave of Q as padding once its answer is fixed: not its tasks.
    return algorithm.samples - getattr(algorithm, "padding", 0)


FIG1_SUITE = Suite(
    "zhou-fig1",
    "Zhou, Chen, Li (2014), Figure 1: aggregate regret against K, n = 1000 Bernoulli arms with Unif[0, 1] or "
    "0.6/0.5 means, Q = 20n, 50n, 100n; OptMAI (beta 0.8, 0.9), SAR, LUCB, Uniform (those registered). "
    "100 runs per point as in the paper (LUCB: 2, the first of each batch of 50), fewer K values than its "
    "10, 20, ..., 500. "
    "Paper's statement: Uniform performs the worst, OptMAI outperforms SAR and LUCB in most scenarios, and "
    "beta = 0.8 beats 0.9 for large K (0.9 for small K).",
    build_fig1_grid, plot_fig1, default_runs=FIG1_RUNS, summarize=summarize_fig1)
RTE_SUITE = Suite(
    "zhou-rte",
    "Zhou, Chen, Li (2014), Figure 2: the 164 RTE workers' accuracies as Bernoulli arms, Q = 10n, 20n, 50n, "
    "K = 10..100: regret, precision, and the samples per worker at Q = 10n, K = 20 (the paper: at most 48 "
    "for OptMAI, 143 for SAR, 17 for LUCB). Paper's statement: OptMAI with beta = 0.8 outperforms the others "
    "for most K and Q; SAR is best at K = 10, Q = 10n.",
    build_rte_grid, partial(plot_rte, algorithms=ALGORITHMS, paper_max_samples=PAPER_MAX_SAMPLES,
                            samples_per_worker=samples_per_worker), default_runs=100, summarize=summarize)

#: The suites this module declares (gathered by :mod:`fullbandit.experiments.suites`).
SUITES = (FIG1_SUITE, RTE_SUITE)
