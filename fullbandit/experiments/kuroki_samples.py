"""Sample-complexity reproductions of Kuroki et al. (2020), section 5.

``kuroki-samples`` (:data:`SAMPLES_SUITE`): pulls until stopping against ``n`` on planted-gap
instances, every full-bandit algorithm, G-allocation (the paper's Figure 3, right).
``kuroki-table2`` (:data:`TABLE2_SUITE`): the six crowdsourcing data sets of Table 2, uniform
allocation, ``k = 10``. ``kuroki-modes`` (:data:`MODES_SUITE`): what the certified modes and
the tighter confidence constant change.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from fullbandit.datasets import load_dataset
from fullbandit.datasets.instances import team_environment
from fullbandit.datasets.quiz import DATASETS
from fullbandit.experiments.evaluations import Instance
from fullbandit.experiments.grid import Factory, Grid
from fullbandit.experiments.planted_gap import half_planted_gap_instance, planted_gap_instance
from fullbandit.experiments.plots import plot_error_rates, plot_metric
from fullbandit.experiments.suite import Suite
from fullbandit.problems.classes import TopK

#: Table 2 of the paper: samples to stop (ICB, SAQM, SA-FOA), one run each as printed.
PAPER_TABLE2 = {
    "it": (46_658, 68_328, 3_421), "medicine": (73_337, 86_252, 3_493), "chinese": (105_214, 110_504, 4_949),
    "pokemon": (20_943, 91_423, 3_050), "english": (118_587, 131_512, 9_313),
    "science": (362_558, 291_773, 15_611),
}
PAPER_COLUMNS = {"icb": 0, "saqm": 1, "safoa-heuristic": 2}  # the paper's SA-FOA is the published (heuristic) rule

TABLE2_K = 10
TABLE2_EPSILON = 0.5
TABLE2_DELTA = 0.05
TABLE2_REWARD_MODEL = "bernoulli"
SAMPLES_GAP = 0.5
SAMPLES_SIGMA = 1.0


def samples_grid(runs: int) -> Grid:
    """The grid of ``kuroki-samples``: the paper's algorithms, G-allocation, ``n`` in 6..14 with ``k = n / 2``."""
    options: dict[str, Any] = {"epsilon": 0.0, "delta": 0.05, "allocation": "g-optimal", "support": "random"}
    algorithms = {name: Factory.registered(name, **options)
                  for name in ("saqm", "safoa-heuristic", "safoa", "icb", "exhaustive")}
    instances = {"planted gap": Factory(partial(half_planted_gap_instance, min_gap=SAMPLES_GAP, sigma=SAMPLES_SIGMA),
                                        {"n": [6, 8, 10, 12, 14]})}
    return Grid(algorithms, instances, seeds=runs)


def samples_plot(frame: pd.DataFrame, path: Path) -> None:
    """Pulls to stop against ``n`` (log y) and error rates, side by side."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, (left, right) = plt.subplots(1, 2, figsize=(12, 4.5))
    plot_metric(frame, "n", "pulls", ax=left, logy=True,
                title=f"pulls to stop, k = n/2, gap {SAMPLES_GAP}, N(0, {SAMPLES_SIGMA:g}) noise, G-allocation")
    plot_error_rates(frame, success="correct", ax=right, delta=0.05, title="error rate (epsilon = 0)")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def quiz_instance(rng, dataset: str, reward_model: str = TABLE2_REWARD_MODEL, k: int = TABLE2_K) -> Instance:
    """A Table 2 data set: workers as arms, accuracies as means, the chosen reward model."""
    data = load_dataset(dataset)
    return Instance(TopK(data.n_workers, k), team_environment(data, reward_model, seed=rng),
                    {"workers": data.n_workers})


def table2_grid(runs: int) -> Grid:
    """The grid of ``kuroki-table2``: the paper's algorithms, swap and phased on the six data sets, ``k = 10``."""
    # Every algorithm with its own default design (uniform proportions as in the paper;
    # support "auto" for the paper's algorithms, "swap-optimal" for swap; phased designs its
    # own phases) and confidence constant ("tight" for the paper's algorithms, "stitched" for
    # swap and phased): the paper leaves the support open.
    options: dict[str, Any] = {"epsilon": TABLE2_EPSILON, "delta": TABLE2_DELTA}
    algorithms = {name: Factory.registered(name, **options)
                  for name in ("icb", "saqm", "safoa-heuristic", "safoa", "swap", "phased")}
    instances = {dataset: Factory(partial(quiz_instance, dataset=dataset)) for dataset in DATASETS}
    return Grid(algorithms, instances, seeds=runs)


def summarize_table2(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean pulls per data set and algorithm, the paper's figures beside, and the teams found."""
    pulls = frame.pivot_table(index="instance", columns="algorithm", values="pulls", aggfunc="mean")
    pulls = pulls.reindex([d for d in DATASETS if d in pulls.index])
    table = pulls.rename(columns=lambda name: f"pulls {name}")
    for name, column in PAPER_COLUMNS.items():
        table[f"paper {name}"] = [PAPER_TABLE2[d][column] for d in table.index]
    if {"safoa-heuristic", "icb"} <= set(pulls.columns):
        table["ours safoa-heuristic/icb"] = pulls["safoa-heuristic"] / pulls["icb"]
        table["paper safoa-heuristic/icb"] = table["paper safoa-heuristic"] / table["paper icb"]
    if {"saqm", "icb"} <= set(pulls.columns):
        table["ours saqm/icb"] = pulls["saqm"] / pulls["icb"]
        table["paper saqm/icb"] = table["paper saqm"] / table["paper icb"]
    for name in ("swap", "phased"):  # the issue-9 rules (no paper figure)
        if {name, "icb"} <= set(pulls.columns):
            table[f"ours {name}/icb"] = pulls[name] / pulls["icb"]
    table["all optimal"] = frame.groupby("instance")["correct"].all().reindex(table.index)
    if "epsilon_optimal" in frame:  # epsilon = 0.5: an answer may be epsilon-optimal without being the best
        table["all epsilon-optimal"] = frame.groupby("instance")["epsilon_optimal"].all().reindex(table.index)
    return table


def table2_teams(frame: pd.DataFrame) -> pd.DataFrame:
    """The team each algorithm returned (first seed), as worker ids, and whether it is optimal."""
    rows = []
    for (dataset, algorithm), group in frame.sort_values("seed").groupby(["instance", "algorithm"]):
        first = group.iloc[0]
        data = load_dataset(dataset)
        team = [data.worker_ids[int(i)] for i in str(first["answer"]).split("-")]
        rows.append({"dataset": dataset, "algorithm": algorithm, "team": " ".join(team),
                     "optimal": bool(first["correct"]), "gap": 0.0 if first["correct"] else first["gap"]})
    return pd.DataFrame(rows)


def table2_plot(frame: pd.DataFrame, path: Path) -> None:
    """Our mean pulls beside the paper's, per data set (log y)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    table = summarize_table2(frame)
    ours = [c for c in table.columns if c.startswith("pulls ")]
    figure, ax = plt.subplots(figsize=(12, 4.5))
    positions = np.arange(len(table.index))
    width = 0.8 / (len(ours) + len(PAPER_COLUMNS))
    for offset, column in enumerate(ours):
        ax.bar(positions + offset * width, table[column], width=width, label=f"ours: {column[6:]}")
    for offset, name in enumerate(PAPER_COLUMNS, start=len(ours)):
        ax.bar(positions + offset * width, table[f"paper {name}"], width=width, hatch="//", alpha=0.6,
               label=f"paper: {name}")
    ax.set_xticks(positions + 0.4 - width / 2, table.index)
    ax.set_yscale("log")
    ax.set_ylabel("pulls to stop")
    ax.set_title(f"Table 2: k={TABLE2_K}, epsilon={TABLE2_EPSILON}, delta={TABLE2_DELTA}, "
                 f"{TABLE2_REWARD_MODEL} workers, uniform allocation (paper: its own, unstated epsilon and noise)")
    ax.legend(ncol=2, fontsize=8)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


#: Label -> (registry name, options): the published and the certified modes.
MODE_VARIANTS: dict[str, tuple[str, dict]] = {
    "saqm theorem1": ("saqm", {"width_bound": "theorem1"}),
    "saqm certified": ("saqm", {"width_bound": "certified"}),
    "safoa heuristic": ("safoa-heuristic", {}),
    "safoa certified": ("safoa", {}),
    "icb": ("icb", {}),
}


def modes_grid(runs: int) -> Grid:
    """The grid of ``kuroki-modes``: each variant of :data:`MODE_VARIANTS` with the tight and the paper's constant."""
    algorithms = {label: Factory.registered(name, {"confidence": ["tight", "paper"]}, epsilon=0.0, delta=0.05,
                                            support="random", **options)
                  for label, (name, options) in MODE_VARIANTS.items()}
    instances = {"planted gap": Factory(partial(planted_gap_instance, n=6, k=3, min_gap=0.5, sigma=0.5))}
    return Grid(algorithms, instances, seeds=runs)


def summarize_modes(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean pulls per variant and constant, and the ratios the certified modes and constants cost."""
    pulls = frame.pivot_table(index="algorithm", columns="confidence", values="pulls", aggfunc="mean")
    pulls["paper / tight"] = pulls["paper"] / pulls["tight"]
    pulls["error rate"] = frame.groupby("algorithm")["correct"].apply(lambda ok: 1 - ok.mean())
    return pulls


def modes_plot(frame: pd.DataFrame, path: Path) -> None:
    """Mean pulls per variant with the tight and the paper's constant (log y)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    table = summarize_modes(frame)
    figure, ax = plt.subplots(figsize=(9, 4.5))
    positions = np.arange(len(table.index))
    ax.bar(positions - 0.2, table["tight"], width=0.4, label="tight constant")
    ax.bar(positions + 0.2, table["paper"], width=0.4, label="paper's constant")
    ax.set_xticks(positions, table.index, rotation=15)
    ax.set_yscale("log")
    ax.set_ylabel("mean pulls to stop")
    ax.set_title("certified vs published modes, tight vs paper constant (n=6, k=3, gap 0.5, sigma 0.5)")
    ax.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


SAMPLES_SUITE = Suite(
    "kuroki-samples",
    "Kuroki et al. (2020), section 5, Figure 3 (right): pulls to stop against n (k = n/2, planted gap 0.5, "
    "N(0, 1) noise), SAQM, SA-FOA (heuristic, certified), ICB, Exhaustive, G-allocation.",
    samples_grid, samples_plot, default_runs=10)
TABLE2_SUITE = Suite(
    "kuroki-table2",
    "Kuroki et al. (2020), Table 2: the six crowdsourcing data sets, k = 10, epsilon = 0.5, delta = 0.05, "
    "independent Bernoulli workers, uniform allocation; the paper's figures beside ours.",
    table2_grid, table2_plot, default_runs=3, summarize=summarize_table2)
MODES_SUITE = Suite(
    "kuroki-modes",
    "What the certified modes and the tighter confidence constant change: pulls of SAQM (theorem1 vs "
    "certified width), SA-FOA (heuristic vs certified) and ICB with the tight and the paper's constant.",
    modes_grid, modes_plot, default_runs=10, summarize=summarize_modes)

#: The suites this module declares (gathered by :mod:`fullbandit.experiments.suites`).
SUITES = (SAMPLES_SUITE, TABLE2_SUITE, MODES_SUITE)
