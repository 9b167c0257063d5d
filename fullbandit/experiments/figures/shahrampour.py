"""Shahrampour and Tarokh's Figures 2 and 3, drawn from the runs of :mod:`fullbandit.experiments.shahrampour`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from fullbandit.experiments.plots import colours_for, legend_beside, line_with_band, save_figure


def plot_fig2(frame: pd.DataFrame, path: Path, suite) -> None:
    """Figure 2: one panel per (M, setup), one bar per algorithm in the paper's index order."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    table = suite.summarize(frame).reset_index()
    ms, setups = sorted(table["M"].unique()), sorted(table["setup"].unique())
    figure, axes = plt.subplots(len(ms), len(setups), figsize=(3.3 * len(setups), 3.2 * len(ms)), squeeze=False)
    labels = list(frame["algorithm"].drop_duplicates())  # the grid's order: the paper's index order
    colours = colours_for(labels)
    for row, m in enumerate(ms):
        for column, setup in enumerate(setups):
            ax = axes[row][column]
            panel = table[(table["M"] == m) & (table["setup"] == setup)].set_index("algorithm")
            shown = [label for label in labels if label in panel.index]
            rates = panel.loc[shown, "misidentification"].to_numpy()
            errors = [rates - panel.loc[shown, "low"].to_numpy(), panel.loc[shown, "high"].to_numpy() - rates]
            ax.bar(np.arange(1, len(shown) + 1), rates, yerr=errors, capsize=2,
                   color=[colours[label] for label in shown])
            budget = int(panel["T"].iloc[0]) if len(panel) else 0
            ax.set(title=f"Setup {setup}, M = {m}, T = {budget:,}", xticks=np.arange(1, len(shown) + 1))
            if column == 0:
                ax.set_ylabel("misidentification probability")
    handles = [plt.Rectangle((0, 0), 1, 1, color=colours[label]) for label in labels]
    figure.tight_layout()
    figure.legend(handles, [f"{i + 1}: {label}" for i, label in enumerate(labels)], loc="center left",
                  bbox_to_anchor=(1.0, 0.5), fontsize=9, title="bar: algorithm")
    save_figure(figure, path, dpi=110)
    plt.close(figure)


def plot_fig3(frame: pd.DataFrame, path: Path, suite) -> None:
    """Figure 3: misidentification against the budget on the caption data, one line per algorithm."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    table = suite.summarize(frame).reset_index()
    figure, ax = plt.subplots(figsize=(7, 4.6))
    labels = list(frame["algorithm"].drop_duplicates())
    colours = colours_for(labels)
    for label in labels:
        line = table[table["algorithm"] == label].sort_values("T")
        line_with_band(ax, line["T"], line["misidentification"], line["low"], line["high"], colour=colours[label],
                       label=label)
    runs = int(table["runs"].min()) if len(table) else 0
    ax.set(xscale="log", xlabel="budget T (samples)", ylabel="misidentification probability",
           title=f"Caption contest 559, top 2 of 138 captions ({runs} runs per point)")
    legend_beside(ax, title="95% Wilson band")
    ax.grid(True, which="both", alpha=0.3)
    figure.tight_layout()
    save_figure(figure, path, dpi=110)
    plt.close(figure)
