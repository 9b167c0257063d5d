"""Chen, Chen, Zhang, Zhou (2017), Figures 1-4 at the paper's run count: the ``chen-budget`` suite.

``chen-fig1-4`` compares AdaptiveTopK, CLUCB-PAC and OptMAI at budgets up to ``100 n`` with
10 runs (CLUCB-PAC, one sample per round, costs minutes per run). The paper's statement
that AdaptiveTopK beats OptMAI at large ``K`` and on TWOGROUP needs the paper's 200 runs
and budgets further out: this suite runs AdaptiveTopK (converted to a fixed budget) and
OptMAI on the same data sets and ``K``, 200 runs per point, budgets ``10 n`` to ``2000 n``
(:data:`BUDGETS`; the paper's figures show budgets its text does not give). Runs are
batched (:mod:`fullbandit.experiments.repeated`): a row holds a batch's count of failures
(aggregate regret above ``epsilon = 0.01``) and its summed regret.
"""

from __future__ import annotations

from functools import partial

import pandas as pd

from fullbandit.experiments import chen
from fullbandit.experiments.batched import batch_sizes
from fullbandit.experiments.figures.chen import plot_budget
from fullbandit.experiments.grid import Factory, Grid
from fullbandit.experiments.plots import wilson_interval
from fullbandit.experiments.repeated import batch_instance, repeated, repeated_evaluation
from fullbandit.experiments.suite import Suite

BUDGETS = (10, 20, 30, 50, 100, 200, 500, 1000, 2000)  # multiples of n
RUNS = 200
BATCH = 50
LABELS = ("AdaptiveTopK", "OptMAI")


def instance(rng, *, dataset: str, K: int, split: int, sizes: tuple[int, ...]):
    """Batch ``split`` of the data set's instances (means drawn and shuffled per run, as in ``chen-fig1-4``)."""
    return batch_instance(rng, make=partial(chen.instance, dataset=dataset), runs=sizes[split], K=K)


def build_grid(runs: int, budgets=BUDGETS, ks=chen.KS, datasets=tuple(chen.DATASETS), batch: int = BATCH) -> Grid:
    """``runs`` runs per (algorithm, data set, K, budget), in batches of at most ``batch``."""
    sizes = tuple(batch_sizes(runs, batch))
    algorithms = {}
    for label in LABELS:
        name, options, _ = chen.ALGORITHMS[label]
        algorithms[label] = Factory(partial(repeated, build=partial(chen.budgeted, name=name, **options)),
                                    {"budget_per_arm": list(budgets)})
    instances = {dataset: Factory(partial(instance, dataset=dataset, sizes=sizes),
                                  {"K": list(ks), "split": list(range(len(sizes)))}) for dataset in datasets}
    return Grid(algorithms, instances, seeds=1, evaluation=repeated_evaluation(chen.failure_metric))


def summarize(frame: pd.DataFrame) -> pd.DataFrame:
    """Failure probability (95% Wilson interval) and mean regret per data set, K, budget and algorithm."""
    records = []
    for (dataset, k, budget, algorithm), group in frame.groupby(["instance", "K", "budget_per_arm", "algorithm"]):
        runs, failures = int(group["runs"].sum()), int(group["failure"].sum())
        low, high = wilson_interval(failures, runs)
        records.append({"instance": dataset, "K": k, "budget_per_arm": budget, "algorithm": algorithm, "runs": runs,
                        "failure_probability": failures / runs, "low": low, "high": high,
                        "mean_regret": float(group["regret"].sum()) / runs})
    return pd.DataFrame.from_records(records).set_index(["instance", "K", "budget_per_arm", "algorithm"])


def claims(frame: pd.DataFrame) -> pd.DataFrame:
    """The paper's statements on AdaptiveTopK and OptMAI, per data set and K, over the budgets where either fails.

    At each budget the lower failure probability wins if the two Wilson intervals do not
    overlap; otherwise the point is a tie.
    """
    table = summarize(frame).reset_index()
    records = []
    for (dataset, k), panel in table.groupby(["instance", "K"]):
        wide = panel.pivot_table(index="budget_per_arm", columns="algorithm",
                                 values=["failure_probability", "low", "high"])
        contested = wide[(wide["failure_probability"] > 0).any(axis=1)]
        adaptive = int((contested["high", "AdaptiveTopK"] < contested["low", "OptMAI"]).sum())
        optmai = int((contested["high", "OptMAI"] < contested["low", "AdaptiveTopK"]).sum())
        smallest_k, largest_k = table["K"].min(), table["K"].max()
        expected = "OptMAI" if k == smallest_k and dataset != "TWOGROUP" else (
            "AdaptiveTopK" if k == largest_k or dataset == "TWOGROUP" else "either")
        winner = "AdaptiveTopK" if adaptive > optmai else ("OptMAI" if optmai > adaptive else "neither")
        records.append({"paper's claim": f"{expected} is best" if expected != "either" else "no statement",
                        "where": f"{dataset}, K = {k}",
                        "ours": f"AdaptiveTopK lower at {adaptive}, OptMAI lower at {optmai} of "
                                f"{len(contested)} budgets where either fails",
                        "holds": "-" if expected == "either" else ("yes" if winner == expected else "no")})
    return pd.DataFrame.from_records(records)


BUDGET_SUITE = Suite(
    "chen-budget",
    "Chen, Chen, Zhang, Zhou (2017), Figures 1-4 at the paper's 200 runs: failure probability P(aggregate regret "
    "> 0.01) of AdaptiveTopK (fixed budget) and OptMAI against budgets 10n to 2000n on TWOGROUP, SYNTHETIC-0.5, "
    "UNIFORM, SYNTHETIC-6 (n = 1000, K = 100, 250, 500). Paper's statement: OptMAI is best for small K, "
    "AdaptiveTopK for large K and on TWOGROUP.",
    build_grid, plot_budget, default_runs=RUNS, summarize=summarize, claims=claims)

#: The suites this module declares (gathered by :mod:`fullbandit.experiments.suites`).
SUITES = (BUDGET_SUITE,)

__all__ = ["BUDGETS", "BUDGET_SUITE", "build_grid", "claims", "instance", "summarize"]
