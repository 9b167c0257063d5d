"""What a practitioner gets on real crowd data: every certified algorithm on the shared data sets, with its plan.

For each data set of the data folder, ``$FULLBANDIT_DATA`` or else ``../shared/data`` (RTE in the
long format, its workers with at least ``--min-answers`` graded labels; the six quiz sets in the
wide format), each team size ``k`` and each algorithm, one seeded run of ``fullbandit.run`` on a
sparse replay of the real answers (``CrowdTable.environment("replay")``: every worker's mean is exactly its accuracy)
with epsilon = k x ``--epsilon-per-member`` and a pull cap of ``--budget``. Recorded: pulls,
stop reason, certified, epsilon-optimal against the real accuracies, wall seconds, and the
semi-bandit alternative (CLUCB-PAC on the same workers, graded answers one at a time).

Writes ``benchmarks/results/crowd_runs.csv`` and ``crowd_runs.png`` with its SVG copy (pulls per
run, log scale; hollow markers for runs that hit the cap); ``--redraw`` draws the figure again
from the CSV without running.

Usage (from the repository root, the shared data beside it or named by ``FULLBANDIT_DATA``):
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_crowd.py --jobs 2
"""

from __future__ import annotations

import argparse
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd

import fullbandit as fb
from fullbandit.datasets.crowd import CrowdDataWarning, load_long, load_wide
from fullbandit.datasets.shared_data import data_folder

QUIZ = ("ITMANAGE", "MEDICINE", "CHINESE", "POKEMON", "ENGLISH", "SCIENCE")
ALGORITHMS = ("phased", "icb", "saqm", "safoa", "swap", "clucb-pac")


def load_tables(min_answers: int) -> dict:
    """Name -> CrowdTable for every shared data set present."""
    tables = {}
    shared = data_folder()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CrowdDataWarning)  # the drops are the stated rules at work
        rte = shared / "rte" / "rte_labels.csv"
        if rte.is_file():
            tables["RTE"] = load_long(rte, true_label="gold", min_answers=min_answers, name="RTE")
        for folder in QUIZ:
            path = shared / "quiz" / folder
            if (path / "answer.csv").is_file():
                tables[folder] = load_wide(path / "answer.csv", path / "truth.csv", name=folder)
    return tables


def one_run(task) -> dict:
    name, table, k, algorithm, epsilon_per_member, budget, seed = task
    spec = fb.registry.get(algorithm)
    epsilon = k * epsilon_per_member
    environment_seed, algorithm_seed = np.random.SeedSequence([seed, k]).spawn(2)
    search = spec.build(fb.TopK(table.n_workers, k), epsilon=epsilon, budget=budget, seed=algorithm_seed)
    environment = table.environment("replay", feedback=spec.feedback, seed=environment_seed)
    start = time.perf_counter()
    result = fb.run(search, environment, progress=False)
    return {"data": name, "workers": table.n_workers, "k": k, "algorithm": algorithm, "feedback": spec.feedback,
            "epsilon": k * epsilon_per_member, "pulls": result.pulls,
            "answers": result.pulls * (k if spec.feedback == "full" else 1),
            "stop_reason": str(result.stop_reason), "certified": bool(result.certified),
            "epsilon_optimal": bool(result.epsilon_optimal), "seconds": round(time.perf_counter() - start, 2)}


def figure(frame: pd.DataFrame, path: Path) -> None:
    """Answers consumed per run (log scale), one panel per k, one colour and marker per algorithm, one legend
    beside the panels; runs that hit the pull cap are hollow (and said so only when there are some). Writes
    ``path`` (PNG) and its SVG copy."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fullbandit.experiments.plots import colours_for, figure_legend, save_figure

    groups = list(frame.groupby("k"))
    fig, grid = plt.subplots(1, len(groups), figsize=(5.5 * len(groups), 4.2), sharey=True, squeeze=False)
    axes = grid[0]
    algorithms = list(dict.fromkeys(frame["algorithm"]))
    colours = colours_for(algorithms)
    markers = dict(zip(algorithms, "osD^vP*X", strict=False))
    any_capped = bool((frame["stop_reason"] != "stopping rule").any())
    for axis, (k, group) in zip(axes, groups, strict=True):
        names = list(dict.fromkeys(group["data"]))
        for algorithm, rows in group.groupby("algorithm", sort=False):
            offset = algorithms.index(algorithm) - (len(algorithms) - 1) / 2
            x = np.array([names.index(d) for d in rows["data"]]) + 0.12 * offset
            capped = (rows["stop_reason"] != "stopping rule").to_numpy()
            axis.scatter(x[~capped], rows["answers"][~capped], label=algorithm, s=26, color=colours[algorithm],
                         marker=markers.get(algorithm, "o"))
            axis.scatter(x[capped], rows["answers"][capped], facecolors="none", edgecolors=colours[algorithm],
                         marker=markers.get(algorithm, "o"), s=26)
        axis.set_xticks(range(len(names)), names, rotation=30)
        axis.set_yscale("log")
        axis.grid(True, axis="y", which="both", alpha=0.3)
        axis.set_title(f"k = {k}: graded answers consumed" + (" (hollow: hit the cap)" if any_capped else ""))
    axes[0].set_ylabel("answers (team pulls x k, or single answers)")
    fig.tight_layout()
    figure_legend(fig, axes)
    save_figure(fig, path)
    save_figure(fig, path.with_suffix(".svg"))
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default="benchmarks/results/crowd_runs.csv")
    parser.add_argument("--ks", type=int, nargs="+", default=[5, 10])
    parser.add_argument("--algorithms", nargs="+", default=list(ALGORITHMS))
    parser.add_argument("--epsilon-per-member", type=float, default=0.05)
    parser.add_argument("--budget", type=int, default=2_000_000)
    parser.add_argument("--min-answers", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--redraw", action="store_true", help="draw the figure again from --out, running nothing")
    args = parser.parse_args()
    if args.redraw:
        figure(pd.read_csv(args.out), Path(args.out).with_suffix(".png"))
        return
    tables = load_tables(args.min_answers)
    if not tables:
        raise SystemExit(f"no shared data at {data_folder()}: this benchmark needs the raw data (set FULLBANDIT_DATA)")
    tasks = [(name, table, k, algorithm, args.epsilon_per_member, args.budget, args.seed)
             for name, table in tables.items() for k in args.ks for algorithm in args.algorithms]
    with ProcessPoolExecutor(args.jobs) as pool:
        rows = []
        for row in pool.map(one_run, tasks):
            rows.append(row)
            print(row, flush=True)
    frame = pd.DataFrame(rows)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(out, index=False)
    figure(frame, out.with_suffix(".png"))
    full = frame[frame["feedback"] == "full"]
    print(f"full-bandit runs: {len(full)}; certified {int(full['certified'].sum())}; epsilon-optimal "
          f"{int(full['epsilon_optimal'].sum())}; at the cap {int((full['stop_reason'] != 'stopping rule').sum())}")


if __name__ == "__main__":
    main()
