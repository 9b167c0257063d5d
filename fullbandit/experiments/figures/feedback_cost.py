"""What sum-only feedback costs, drawn from the runs of :mod:`fullbandit.experiments.feedback_cost`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from fullbandit.experiments.plots import colours_for, legend_beside, save_figure


def plot(frame: pd.DataFrame, path: Path, suite) -> None:
    """Individual answers per data set, one bar per algorithm in its own colour (log scale), whiskers from the
    least to the most of the runs, full-bandit algorithms hatched, the legend beside the bars."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    table = suite.summarize(frame)["mean_answers"].unstack("algorithm")
    spread = frame.assign(data=frame["instance"].str.rsplit(" (", n=1).str[0]).groupby(
        ["data", "algorithm"])["answers"].agg(["min", "max"])
    algorithms = list(table.columns)
    colours = colours_for(algorithms)
    figure, ax = plt.subplots(figsize=(12, 4.8))
    positions = np.arange(len(table.index))
    width = 0.85 / len(algorithms)
    for index, algorithm in enumerate(algorithms):
        means = table[algorithm].to_numpy()
        rows = spread.xs(algorithm, level="algorithm").reindex(table.index)
        whiskers = [means - rows["min"].to_numpy(), rows["max"].to_numpy() - means]
        ax.bar(positions + (index - (len(algorithms) - 1) / 2) * width, means, width=width, color=colours[algorithm],
               yerr=whiskers, capsize=1.5, error_kw={"linewidth": 0.7}, label=algorithm,
               hatch="///" if algorithm.endswith("(full)") else None, edgecolor="black", linewidth=0.3)
    ax.set_xticks(positions, table.index)
    ax.set(yscale="log", ylabel="individual answers to stop (mean; whiskers: least to most)",
           title="What sum-only feedback costs: certified full-bandit (hatched) against per-arm algorithms")
    ax.grid(True, axis="y", which="both", alpha=0.3)
    legend_beside(ax, title="algorithm (feedback)")
    figure.tight_layout()
    save_figure(figure, path, dpi=110)
    plt.close(figure)
