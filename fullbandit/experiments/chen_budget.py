"""Chen, Chen, Zhang, Zhou (2017), Figures 1-4 at the paper's run count: the ``chen-budget`` suite.

``chen-fig1-4`` compares AdaptiveTopK, CLUCB-PAC and OptMAI at budgets up to ``100 n`` with
10 runs (CLUCB-PAC, one sample per round, costs minutes per run). The paper's statement
that AdaptiveTopK beats OptMAI at large ``K`` and on TWOGROUP needs the paper's 200 runs
and budgets further out: this suite runs AdaptiveTopK (converted to a fixed budget) and
OptMAI in its two variants (:data:`ALGORITHMS`) on the same data sets and ``K``, 200 runs per
point, budgets ``10 n`` to ``2000 n``
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
#: Display name -> (registry name, options). OptMAI twice: as Zhou et al.'s experiments run it (the
#: adjusted budget and earlier samples reused, ``chen-fig1-4``'s choice) and as their Algorithm 1 and 2
#: specify it ("plain"). Chen et al. do not say which they ran; the comparison turns on it.
ALGORITHMS: dict[str, tuple[str, dict]] = {
    "AdaptiveTopK": chen.ALGORITHMS["AdaptiveTopK"][:2],
    "OptMAI": chen.ALGORITHMS["OptMAI"][:2],
    "OptMAI (plain)": ("optmai", {}),
}
OPTMAI_VARIANTS = ("OptMAI", "OptMAI (plain)")


def instance(rng, *, dataset: str, K: int, split: int, sizes: tuple[int, ...]):
    """Batch ``split`` of the data set's instances (means drawn and shuffled per run, as in ``chen-fig1-4``)."""
    return batch_instance(rng, make=partial(chen.instance, dataset=dataset), runs=sizes[split], K=K)


def build_grid(runs: int, budgets=BUDGETS, ks=chen.KS, datasets=tuple(chen.DATASETS), batch: int = BATCH) -> Grid:
    """``runs`` runs per (algorithm, data set, K, budget), in batches of at most ``batch``."""
    sizes = tuple(batch_sizes(runs, batch))
    algorithms = {label: Factory(partial(repeated, build=partial(chen.budgeted, name=name, **options)),
                                 {"budget_per_arm": list(budgets)})
                  for label, (name, options) in ALGORITHMS.items()}
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


def expected_winner(dataset: str, k: int, ks) -> str | None:
    """The paper's statement for a panel: OptMAI for the smallest K (TWOGROUP aside), AdaptiveTopK for the
    largest K and on TWOGROUP, none in between."""
    if dataset == "TWOGROUP" or k == max(ks):
        return "AdaptiveTopK"
    return "OptMAI" if k == min(ks) else None


def claims(frame: pd.DataFrame) -> pd.DataFrame:
    """The paper's statements, per data set, K and OptMAI variant, over the budgets where either fails.

    At each budget the lower failure probability wins if the two Wilson intervals do not
    overlap; otherwise the point is a tie. A statement holds where its algorithm wins at more
    budgets than the other.
    """
    table = summarize(frame).reset_index()
    ks = sorted(table["K"].unique())
    records = []
    for (dataset, k), panel in table.groupby(["instance", "K"]):
        expected = expected_winner(dataset, k, ks)
        if expected is None:
            continue
        wide = panel.pivot_table(index="budget_per_arm", columns="algorithm",
                                 values=["failure_probability", "low", "high"])
        for variant in [name for name in OPTMAI_VARIANTS if name in set(panel["algorithm"])]:
            pair = wide.xs("AdaptiveTopK", axis=1, level="algorithm"), wide.xs(variant, axis=1, level="algorithm")
            contested = (pair[0]["failure_probability"] > 0) | (pair[1]["failure_probability"] > 0)
            adaptive = int((pair[0]["high"] < pair[1]["low"])[contested].sum())
            optmai = int((pair[1]["high"] < pair[0]["low"])[contested].sum())
            winner = "AdaptiveTopK" if adaptive > optmai else ("OptMAI" if optmai > adaptive else "neither")
            records.append({"paper's claim": f"{expected} is best, against {variant}", "where": f"{dataset}, K = {k}",
                            "ours": f"AdaptiveTopK lower at {adaptive}, {variant} lower at {optmai} of "
                                    f"{int(contested.sum())} budgets where either fails",
                            "holds": "yes" if winner == expected else "no"})
    return pd.DataFrame.from_records(records)


BUDGET_SUITE = Suite(
    "chen-budget",
    "Chen, Chen, Zhang, Zhou (2017), Figures 1-4 at the paper's 200 runs: failure probability P(aggregate regret "
    "> 0.01) of AdaptiveTopK (fixed budget) and OptMAI, as Zhou et al.'s experiments run it and as their "
    "algorithm specifies it (plain), against budgets 10n to 2000n on TWOGROUP, SYNTHETIC-0.5, UNIFORM, "
    "SYNTHETIC-6 (n = 1000, K = 100, 250, 500). Paper's statement: OptMAI is best for small K, AdaptiveTopK "
    "for large K and on TWOGROUP.",
    build_grid, plot_budget, default_runs=RUNS, summarize=summarize, claims=claims)

#: The suites this module declares (gathered by :mod:`fullbandit.experiments.suites`).
SUITES = (BUDGET_SUITE,)

__all__ = ["ALGORITHMS", "BUDGETS", "BUDGET_SUITE", "build_grid", "claims", "expected_winner", "instance", "summarize"]
