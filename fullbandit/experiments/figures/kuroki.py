"""Kuroki et al. (2020)'s sample-complexity figures and Table 2, drawn from the runs of
:mod:`fullbandit.experiments.kuroki_samples`."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from fullbandit.experiments.plots import colours_for, legend_beside, plot_error_rates, plot_metric, save_figure


def _pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def samples_plot(frame: pd.DataFrame, path: Path) -> None:
    """Pulls to stop against ``n`` (log y) and error rates, side by side."""
    plt = _pyplot()
    figure, (left, right) = plt.subplots(1, 2, figsize=(13, 4.5))
    plot_metric(frame, "n", "pulls", ax=left, logy=True,
                title="pulls to stop, k = n/2, planted gap, Gaussian noise, G-allocation")
    plot_error_rates(frame, success="correct", ax=right, delta=0.05, title="error rate (epsilon = 0)")
    figure.tight_layout()
    save_figure(figure, path)
    plt.close(figure)


def table2_plot(frame: pd.DataFrame, path: Path, suite) -> None:
    """Table 2: our pulls per data set (mean, whiskers from the least to the most of the runs) with the
    paper's printed figure (the summary's ``paper NAME`` columns) beside each of its algorithms in the
    same colour, hatched; and the SAQM/ICB ratio of the defaults, of the readings of the lost constants
    and of the paper."""
    plt = _pyplot()
    table = suite.summarize(frame)
    papers = [column[len("paper "):] for column in table.columns if column.startswith("paper ") and "/" not in column]
    datasets = list(table.index)
    stats = frame.groupby(["instance", "algorithm"])["pulls"].agg(["mean", "min", "max", "size"])
    algorithms = [name for name in frame["algorithm"].drop_duplicates()]
    colours = colours_for(algorithms)
    slots = [(name, "ours") for name in algorithms]
    slots += [(name, "paper") for name in papers if name in algorithms]
    slots.sort(key=lambda slot: (algorithms.index(slot[0]), slot[1] == "paper"))
    figure, (left, right) = plt.subplots(1, 2, figsize=(17, 5), gridspec_kw={"width_ratios": (3, 1.2)})
    positions = np.arange(len(datasets))
    width = 0.85 / len(slots)
    for index, (name, source) in enumerate(slots):
        at = positions + (index - (len(slots) - 1) / 2) * width
        if source == "paper":
            left.bar(at, table[f"paper {name}"], width=width, color=colours[name], alpha=0.45, hatch="///",
                     edgecolor="black", linewidth=0.4, label=f"paper: {name}")
            continue
        rows = stats.xs(name, level="algorithm").reindex(datasets)
        means = rows["mean"].to_numpy()
        whiskers = [means - rows["min"].to_numpy(), rows["max"].to_numpy() - means]
        left.bar(at, means, width=width, color=colours[name], yerr=whiskers, capsize=1.5, error_kw={"linewidth": 0.7},
                 label=f"ours: {name}")
    runs = int(stats["size"].min())
    left.set_xticks(positions, datasets)
    settings = ", ".join(f"{name} = {frame[name].iloc[0]:g}" for name in ("k", "epsilon", "delta") if name in frame)
    left.set(yscale="log", ylabel=f"pulls to stop (mean of {runs} runs; whiskers: least to most)",
             title=f"Table 2: {settings}, Bernoulli workers, uniform allocation (the paper's epsilon and noise "
                   "are lost)")
    legend_beside(left, ncol=1)
    ratios = {"ours: saqm / icb": "ours saqm/icb", "readings: saqm[ratio one] / icb[super-arm union]":
              "readings saqm/icb", "paper: saqm / icb": "paper saqm/icb"}
    shown = {label: column for label, column in ratios.items() if column in table.columns}
    known = colours_for(["saqm", "saqm[ratio one]"])
    ratio_colours = {"ours": known["saqm"], "readings": known["saqm[ratio one]"], "paper": "#bbbbbb"}
    for index, (label, column) in enumerate(shown.items()):
        right.bar(positions + (index - (len(shown) - 1) / 2) * 0.8 / len(shown), table[column],
                  width=0.8 / len(shown), color=ratio_colours[label.partition(":")[0]], label=label,
                  hatch="///" if label.startswith("paper") else None, edgecolor="black", linewidth=0.4)
    right.axhline(1.0, color="black", linewidth=0.8)
    right.set_xticks(positions, datasets, rotation=30)
    right.set(ylabel="SAQM pulls / ICB pulls", title="SAQM / ICB: defaults, readings, paper")
    right.legend(loc="upper center", bbox_to_anchor=(0.5, -0.2), fontsize=8)
    figure.tight_layout()
    save_figure(figure, path)
    plt.close(figure)


def modes_plot(frame: pd.DataFrame, path: Path, suite) -> None:
    """Mean pulls per variant with the tight and the paper's constant (log y)."""
    plt = _pyplot()
    table = suite.summarize(frame)
    figure, ax = plt.subplots(figsize=(9, 4.5))
    positions = np.arange(len(table.index))
    colours = colours_for(table.index)
    ax.bar(positions - 0.2, table["tight"], width=0.4, color=[colours[name] for name in table.index],
           edgecolor="black", linewidth=0.4, label="tight constant")
    ax.bar(positions + 0.2, table["paper"], width=0.4, color=[colours[name] for name in table.index], alpha=0.45,
           hatch="///", edgecolor="black", linewidth=0.4, label="paper's constant (hatched)")
    ax.set_xticks(positions, table.index, rotation=15)
    ax.set_yscale("log")
    ax.set_ylabel("mean pulls to stop")
    ax.set_title("certified vs published modes, tight vs paper constant (n=6, k=3, gap 0.5, sigma 0.5)")
    legend_beside(ax)
    figure.tight_layout()
    save_figure(figure, path)
    plt.close(figure)
