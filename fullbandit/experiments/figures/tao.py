"""Tao et al. (2019)'s Figure 1, drawn from the runs of :mod:`fullbandit.experiments.tao`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from fullbandit.experiments.plots import colours_for, figure_legend, save_figure

#: A line style per family, so that the variants of one rule read as one family beside its distinct hues.
FAMILY_STYLES = {"APT": "-", "UCBE": "--", "Opt-KG": ":", "LSA": "-", "Uniform": "-."}


def plot(frame: pd.DataFrame, path: Path, suite) -> None:
    """Figure 1: ``ln(regret / K)`` against ``T``, one panel per setup, one line per algorithm, 95% bands.

    Every algorithm has its own colour (:data:`fullbandit.experiments.plots.ALGORITHM_COLOURS`), the
    variants of a rule share a line style, LSA is drawn thicker, and one legend sits beside the panels.
    """
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    table = suite.summarize(frame).reset_index()
    setups = sorted(table["setup"].unique())
    figure, axes = plt.subplots(1, len(setups), figsize=(5.5 * len(setups), 4.4), squeeze=False)
    labels = list(frame["algorithm"].drop_duplicates())  # the grid's order: the paper's legend
    colours = colours_for(labels)
    for ax, setup in zip(axes[0], setups, strict=True):
        panel = table[table["setup"] == setup]
        for label in [name for name in labels if name in set(panel["algorithm"])]:
            line = panel[panel["algorithm"] == label].sort_values("T")
            shown = np.isfinite(line["log_regret_per_arm"])  # no misclassification at all: ln 0 is not drawn
            style = FAMILY_STYLES.get(label.split("(")[0], "-")
            ax.plot(line["T"][shown], line["log_regret_per_arm"][shown], marker="o", markersize=3, label=label,
                    color=colours[label], linestyle=style, linewidth=2.2 if label == "LSA" else 1.2)
            ax.fill_between(line["T"][shown], line["log_low"][shown].clip(lower=-20), line["log_high"][shown],
                            color=colours[label], alpha=0.12, linewidth=0)
        runs = int(panel["runs"].min()) if len(panel) else 0
        ax.set(title=f"Setup {setup} ({runs} runs per point)", xlabel="T", ylabel="ln(regret / K)")
        ax.grid(True, alpha=0.3)
    figure.tight_layout()
    figure_legend(figure, axes[0], title="95% bands")
    save_figure(figure, path, dpi=110)
    plt.close(figure)
