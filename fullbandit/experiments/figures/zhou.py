"""Zhou, Chen, Li (2014)'s Figures 1 and 2, drawn from the runs of :mod:`fullbandit.experiments.zhou`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pandas as pd

from fullbandit.experiments.plots import colours_for, figure_legend, line_with_band, plot_metric, save_figure


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def plot_fig1(frame: pd.DataFrame, path: Path, suite) -> None:
    """Figure 1 (a)-(f): mean regret against K with a 95% band (1.96 standard errors of the batch sums),
    one row per means model, one column per budget; the legend names each algorithm's runs per point."""
    plt = _pyplot()
    table = suite.summarize(frame).reset_index()
    models = [model for model in ("uniform", "0.6/0.5") if model in set(table["means"])]
    budgets = sorted(table["budget_per_arm"].unique())
    figure, axes = plt.subplots(len(models), len(budgets), figsize=(4.6 * len(budgets), 3.6 * len(models)),
                                squeeze=False)
    colours = colours_for(sorted(table["algorithm"].unique()))
    runs = table.groupby("algorithm")["runs"].min()
    for row, model in enumerate(models):
        for column, budget in enumerate(budgets):
            ax = axes[row][column]
            panel = table[(table["means"] == model) & (table["budget_per_arm"] == budget)]
            for algorithm, line in panel.groupby("algorithm"):
                line = line.sort_values("K")
                line_with_band(ax, line["K"], line["regret"], line["regret"] - 1.96 * line["se"],
                               line["regret"] + 1.96 * line["se"], colour=colours[algorithm],
                               label=f"{algorithm} ({runs[algorithm]} runs)")
            ax.set(title=f"theta ~ {model}, Q = {budget} n", xlabel="K")
            if column == 0:
                ax.set_ylabel("aggregate regret (mean, 95% band)")
            ax.grid(True, alpha=0.3)
    figure.tight_layout()
    figure_legend(figure, axes.ravel())
    save_figure(figure, path, dpi=110)
    plt.close(figure)


def plot_rte(frame: pd.DataFrame, path: Path, *, algorithms: dict, paper_max_samples: dict,
             samples_per_worker: Callable) -> None:
    """Figure 2 (b)-(d): regret against K, one panel per budget; (e)-(f): samples per worker in one run
    (``samples_per_worker(name, options)`` of the labels of ``algorithms``), with the most the paper
    reports (``paper_max_samples``) drawn as a dashed line."""
    plt = _pyplot()
    budgets = sorted(frame["budget_per_arm"].unique())
    shown = [label for label in ("OptMAI beta=0.8", "SAR", "LUCB", "Uniform") if label in set(frame["algorithm"])]
    colours = colours_for(sorted(frame["algorithm"].unique()))
    width = max(len(budgets), len(shown))
    figure, axes = plt.subplots(2, width, figsize=(4.6 * width, 7.6), squeeze=False)
    for column, budget in enumerate(budgets):
        panel = frame[frame["budget_per_arm"] == budget]
        if len(panel):
            plot_metric(panel, "K", "regret", ax=axes[0][column], title=f"RTE workers, Q = {budget} n")
    for column in range(len(budgets), width):
        axes[0][column].axis("off")
    for column, label in enumerate(shown):
        ax = axes[1][column]
        counts = samples_per_worker(*algorithms[label])
        ax.hist(counts, bins=30, color=colours.get(label))
        if label in paper_max_samples:
            ax.axvline(paper_max_samples[label], color="black", linestyle="--", linewidth=1,
                       label=f"paper's most: {paper_max_samples[label]}")
            ax.legend(fontsize=8)
        ax.set(title=f"{label}: samples per worker\n(Q = 10 n, K = 20), ours at most {int(counts.max())}",
               xlabel="samples (tasks)", ylabel="workers")
    figure.tight_layout()
    figure_legend(figure, axes[0][:len(budgets)])
    save_figure(figure, path, dpi=110)
    plt.close(figure)
