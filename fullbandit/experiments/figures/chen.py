"""Chen et al. (2017)'s Figures 1-4 at the paper's run count, drawn from the runs of
:mod:`fullbandit.experiments.chen_budget`."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from fullbandit.experiments.plots import colours_for, figure_legend, line_with_band, save_figure


def plot_budget(frame: pd.DataFrame, path: Path, suite) -> None:
    """Failure probability against the budget (log x), one row per data set, one column per K, 95% Wilson bands."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fullbandit.experiments.chen import DATASETS, EPSILON

    table = suite.summarize(frame).reset_index()
    ks = sorted(table["K"].unique())
    datasets = [name for name in DATASETS if name in set(table["instance"])]
    figure, axes = plt.subplots(len(datasets), len(ks), figsize=(4.2 * len(ks), 3.0 * len(datasets)), squeeze=False,
                                sharex=True, sharey=True)
    colours = colours_for(sorted(table["algorithm"].unique()))
    runs = int(table["runs"].min()) if len(table) else 0
    for row, dataset in enumerate(datasets):
        for column, k in enumerate(ks):
            ax = axes[row][column]
            panel = table[(table["instance"] == dataset) & (table["K"] == k)]
            for algorithm, line in panel.groupby("algorithm"):
                line = line.sort_values("budget_per_arm")
                line_with_band(ax, line["budget_per_arm"], line["failure_probability"], line["low"], line["high"],
                               colour=colours[algorithm], label=algorithm)
            ax.set(xscale="log", title=f"{dataset}, K = {k}")
            ax.grid(True, which="both", alpha=0.3)
            if column == 0:
                ax.set_ylabel(f"P(regret > {EPSILON})")
            if row == len(datasets) - 1:
                ax.set_xlabel("budget / n")
    figure.suptitle(f"Chen et al. (2017), Figures 1-4: {runs} runs per point, 95% Wilson bands")
    figure.tight_layout()
    figure_legend(figure, axes.ravel())
    save_figure(figure, path)
    plt.close(figure)
