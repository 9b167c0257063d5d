"""The figures the papers use, drawn from a runner's tidy DataFrame (matplotlib, no state).

Every figure draws an algorithm in the same colour (:func:`colours_for`, from
:data:`ALGORITHM_COLOURS`), puts its legend beside the data rather than over it, and
:func:`save_figure` writes a vector copy (SVG) beside the PNG.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np
import pandas as pd

from fullbandit.util.validation import InvalidParameterError

#: One colour per algorithm in every figure, by :func:`algorithm_key`. Variants of one algorithm
#: (NSAR's p, APT's precision, UCBE's a) get distinct hues, not shades, so they stay apart in print.
ALGORITHM_COLOURS = {
    # full-bandit feedback (Kuroki et al. 2020 and this toolkit's additions)
    "saqm": "#1f77b4", "saqm theorem1": "#aec7e8", "saqm[ratio one]": "#6b6ecf",
    "safoa": "#ff7f0e", "safoa-heuristic": "#ffbb78",
    "icb": "#2ca02c", "icb[time-uniform, swap-optimal]": "#98df8a", "icb[super-arm union]": "#637939",
    "exhaustive": "#7f7f7f", "phased": "#9467bd", "swap": "#d62728",
    "saqm cyclic windows": "#2b8cbe", "saqm random n": "#c51b8a", "saqm random 2n": "#f16913",
    "saqm random 4n": "#238b45",
    # per-arm feedback, top-k
    "uniform": "#000000", "sar": "#8c564b", "lucb": "#e377c2", "clucb-pac": "#17becf", "adaptivetopk": "#bcbd22",
    "optmai": "#393b79", "optmai beta=0.9": "#9c9ede", "optmai (plain)": "#6a3d9a", "at-lucb": "#3182bd",
    "nsar p=0.7": "#31a354", "nsar p=0.85": "#756bb1", "nsar p=1.1": "#e6550d", "nsar p=1.2": "#bd9e39",
    "nsar p=1.3": "#ad494a",
    # per-arm feedback, thresholding (Tao et al.)
    "apt(0)": "#1b9e77", "apt(.025)": "#d95f02", "apt(.05)": "#7570b3", "apt(.1)": "#e7298a", "lsa": "#66a61e",
    "ucbe(-1)": "#e6ab02", "ucbe(0)": "#a6761d", "ucbe(4)": "#666666", "opt-kg(1,1)": "#e41a1c",
    "opt-kg(.5,.5)": "#377eb8",
    # densest-k-subgraph oracles
    "peeling": "#843c39", "peeling+swap": "#d6616b", "fpk": "#7b4173", "fpk+swap": "#ce6dbd", "reference": "#252525",
}
#: Colours for labels :data:`ALGORITHM_COLOURS` does not know, taken in turn within a figure.
OTHER_COLOURS = ("#a55194", "#8ca252", "#e7ba52", "#5254a3", "#cedb9c", "#fd8d3c", "#9ecae1", "#c7e9c0",
                 "#dadaeb", "#fdd0a2")
_ALIASES = {"sa-foa (heuristic)": "safoa-heuristic", "safoa heuristic": "safoa-heuristic",
            "sa-foa (certified)": "safoa", "safoa certified": "safoa", "saqm certified": "saqm",
            "adaptive-topk": "adaptivetopk", "adaptive-topk-budget": "adaptivetopk", "optmai beta=0.8": "optmai",
            "threshold-uniform": "uniform", "clucb": "clucb-pac"}


def algorithm_key(label) -> str:
    """The name :data:`ALGORITHM_COLOURS` knows ``label`` by: lower case, without a feedback suffix.

    >>> algorithm_key("SA-FOA (heuristic)"), algorithm_key("clucb-pac (semi)"), algorithm_key("OptMAI beta=0.8")
    ('safoa-heuristic', 'clucb-pac', 'optmai')
    """
    key = re.sub(r"\s*\((semi|full)\)$", "", str(label).strip()).lower()
    return _ALIASES.get(key, key)


def colours_for(labels: Iterable) -> dict:
    """``{label: colour}``: a known algorithm's own colour, the others in turn from :data:`OTHER_COLOURS`.

    >>> colours_for(["SAR", "my rule", "LUCB"])
    {'SAR': '#8c564b', 'my rule': '#a55194', 'LUCB': '#e377c2'}
    """
    colours, others = {}, itertools.cycle(OTHER_COLOURS)
    for label in labels:  # any iterable, read once
        colours[label] = ALGORITHM_COLOURS.get(algorithm_key(label)) or next(others)
    return colours


def legend_beside(ax, **options):
    """The legend of ``ax`` outside its right edge, where it hides no data (``options`` go to ``ax.legend``)."""
    return ax.legend(loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, fontsize=8, **options)


def figure_legend(figure, axes, **options):
    """One legend for every labelled line of ``axes`` (each label once), to the right of the panels.

    The axes' own legends are removed. The legend lies outside the figure's box: save with
    ``bbox_inches="tight"`` (:func:`save_figure` does) to keep it in the image.
    """
    entries: dict = {}
    for ax in axes:
        for handle, label in zip(*ax.get_legend_handles_labels(), strict=True):
            entries.setdefault(label, handle)
        if ax.get_legend() is not None:
            ax.get_legend().remove()
    return figure.legend(list(entries.values()), list(entries), loc="center left", bbox_to_anchor=(1.0, 0.5),
                         fontsize=9, **options)


def line_with_band(ax, x, y, low, high, *, colour, label: str, **options):
    """``y`` against ``x`` with markers and its band ``[low, high]`` shaded in the same colour."""
    line, = ax.plot(x, y, marker="o", markersize=3, color=colour, label=label, **options)
    ax.fill_between(x, low, high, color=line.get_color(), alpha=0.15, linewidth=0)
    return line


def save_figure(figure, path, *, dpi: int = 120) -> None:
    """Write ``figure`` to ``path`` (its suffix picks the format) with everything drawn outside the axes kept."""
    figure.savefig(Path(path), dpi=dpi, bbox_inches="tight")


def _axes(ax):
    if ax is not None:
        return ax
    # pyplot's own choice of backend: inline in a notebook, a window-less one without a display. Forcing Agg
    # here switched a notebook's inline backend off, and later figures drew nothing.
    import matplotlib.pyplot as plt
    return plt.subplots(figsize=(6, 4))[1]


def _require(frame: pd.DataFrame, *columns):
    missing = [column for column in columns if column not in frame.columns]
    if missing:
        raise InvalidParameterError(f"columns {missing} are not in the results (have {list(frame.columns)})")


def mean_with_band(values, level: float = 0.95) -> tuple[float, float, float]:
    """Mean and a normal-approximation confidence band ``mean +- z * sd / sqrt(n)``."""
    values = np.asarray(values, dtype=float)
    mean = float(values.mean())
    if values.size < 2:
        return mean, mean, mean
    z = _normal_quantile(0.5 + level / 2)
    half = z * float(values.std(ddof=1)) / math.sqrt(values.size)
    return mean, mean - half, mean + half


def wilson_interval(successes: int, trials: int, level: float = 0.95) -> tuple[float, float]:
    """Wilson score interval of a binomial proportion (sound near 0 and 1, unlike mean +- z sd)."""
    if trials == 0:
        return 0.0, 1.0
    z = _normal_quantile(0.5 + level / 2)
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    # At 0 (or all) successes the bound is exactly 0 (1); computed, it may miss by a rounding error.
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == trials else min(1.0, centre + half)
    return low, high


def _normal_quantile(q: float) -> float:
    from scipy.stats import norm
    return float(norm.ppf(q))


def plot_metric(frame: pd.DataFrame, x: str, y: str, *, hue: str = "algorithm", ax=None, level: float = 0.95,
                logy: bool = False, title: str | None = None):
    """``y`` against a swept parameter ``x``: one line per ``hue`` value, mean with a confidence band.

    Returns the matplotlib Axes.
    """
    _require(frame, x, y, hue)
    ax = _axes(ax)
    colours = colours_for(sorted(frame[hue].unique(), key=str)) if hue == "algorithm" else {}
    for label, group in frame.groupby(hue, sort=True):
        stats = [(value, *mean_with_band(sub[y], level)) for value, sub in group.groupby(x, sort=True)]
        xs, means, lows, highs = (np.array(column, dtype=float) for column in zip(*stats, strict=True))
        if logy:  # a band reaching below zero cannot be drawn on a log axis
            lows = np.maximum(lows, means / 100.0)
        line_with_band(ax, xs, means, lows, highs, colour=colours.get(label), label=str(label))
    ax.set_xlabel(x)
    ax.set_ylabel(f"{y} (mean, {int(level * 100)}% band)")
    if logy:
        ax.set_yscale("log")
    legend_beside(ax, title=hue)
    if title:
        ax.set_title(title)
    return ax


def plot_error_rates(frame: pd.DataFrame, *, success: str = "epsilon_optimal", by: str = "algorithm",
                     group: str | None = None, ax=None, level: float = 0.95, delta: float | None = None,
                     title: str | None = None):
    """Bar chart of error rates (``1 - mean(success)``) per ``by`` (and ``group``), with Wilson intervals.

    ``delta`` draws the level a PAC algorithm must stay under.
    """
    _require(frame, success, by, *( [group] if group else []))
    ax = _axes(ax)
    groups = [None] if group is None else sorted(frame[group].unique())
    labels = sorted(frame[by].unique(), key=str)
    colours = colours_for(labels) if group is None and by == "algorithm" else {}
    width = 0.8 / len(groups)
    for offset, group_value in enumerate(groups):
        subset = frame if group_value is None else frame[frame[group] == group_value]
        rates: list[float] = []
        errors: list[list[float]] = [[], []]
        for label in labels:
            outcomes = subset.loc[subset[by] == label, success].astype(bool)
            failures, trials = int((~outcomes).sum()), int(outcomes.size)
            rate = failures / trials if trials else float("nan")
            low, high = wilson_interval(failures, trials, level)
            rates.append(rate)
            errors[0].append(max(rate - low, 0.0))
            errors[1].append(max(high - rate, 0.0))
        positions = np.arange(len(labels)) + (offset - (len(groups) - 1) / 2) * width
        ax.bar(positions, rates, width=width, yerr=errors, capsize=3,
               color=[colours[label] for label in labels] if colours else None,
               label=None if group_value is None else f"{group}={group_value}")
    ax.set_xticks(np.arange(len(labels)), [str(label) for label in labels], rotation=30, ha="right")
    ax.set_ylabel(f"error rate ({int(level * 100)}% Wilson interval)")
    if delta is not None:
        ax.axhline(delta, color="black", linestyle="--", linewidth=1, label=f"delta={delta}")
    if group is not None or delta is not None:
        legend_beside(ax)
    if title:
        ax.set_title(title)
    return ax
