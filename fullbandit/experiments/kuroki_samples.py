"""Sample-complexity reproductions of Kuroki et al. (2020), section 5.

``kuroki-samples`` (:data:`SAMPLES_SUITE`): pulls until stopping against ``n`` on planted-gap
instances, every full-bandit algorithm, G-allocation (the paper's Figure 3, right).
``kuroki-table2`` (:data:`TABLE2_SUITE`): the six crowdsourcing data sets of Table 2, uniform
allocation, ``k = 10``. ``kuroki-modes`` (:data:`MODES_SUITE`): what the certified modes and
the tighter confidence constant change.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import pandas as pd

from fullbandit.datasets import load_dataset
from fullbandit.datasets.instances import team_environment
from fullbandit.datasets.quiz import DATASETS
from fullbandit.experiments.evaluations import Instance
from fullbandit.experiments.figures.kuroki import modes_plot, samples_plot, table2_plot
from fullbandit.experiments.grid import Factory, Grid
from fullbandit.experiments.kuroki_readings import READINGS, reading
from fullbandit.experiments.planted_gap import half_planted_gap_instance, planted_gap_instance
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
    # The two readings of the lost constants (kuroki_readings), beside the defaults.
    algorithms.update({label: Factory(partial(reading, label=label, **options)) for label in READINGS})
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
    if set(READINGS) <= set(pulls.columns):
        table["readings saqm/icb"] = pulls["saqm[ratio one]"] / pulls["icb[super-arm union]"]
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


SAMPLES_SUITE = Suite(
    "kuroki-samples",
    "Kuroki et al. (2020), section 5, Figure 3 (right): pulls to stop against n (k = n/2, planted gap 0.5, "
    "N(0, 1) noise), SAQM, SA-FOA (heuristic, certified), ICB, Exhaustive, G-allocation.",
    samples_grid, samples_plot, default_runs=10)
TABLE2_SUITE = Suite(
    "kuroki-table2",
    "Kuroki et al. (2020), Table 2: the six crowdsourcing data sets, k = 10, epsilon = 0.5, delta = 0.05, "
    "independent Bernoulli workers, uniform allocation; the paper's figures beside ours, and two readings of "
    "the constants the paper lost: ICB's union over all C(n, k) super-arms (certified) and SAQM's width with "
    "the oracle's ratio read as 1 (heuristic).",
    table2_grid, table2_plot, default_runs=3, summarize=summarize_table2)
MODES_SUITE = Suite(
    "kuroki-modes",
    "What the certified modes and the tighter confidence constant change: pulls of SAQM (theorem1 vs "
    "certified width), SA-FOA (heuristic vs certified) and ICB with the tight and the paper's constant.",
    modes_grid, modes_plot, default_runs=10, summarize=summarize_modes)

#: The suites this module declares (gathered by :mod:`fullbandit.experiments.suites`).
SUITES = (SAMPLES_SUITE, TABLE2_SUITE, MODES_SUITE)
