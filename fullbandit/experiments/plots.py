"""The figures the papers use, drawn from a runner's tidy DataFrame (matplotlib, no state)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from fullbandit.util.validation import InvalidParameterError


def _axes(ax):
    if ax is not None:
        return ax
    import matplotlib
    matplotlib.use("Agg", force=False)
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
    return max(0.0, centre - half), min(1.0, centre + half)


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
    for label, group in frame.groupby(hue, sort=True):
        stats = [(value, *mean_with_band(sub[y], level)) for value, sub in group.groupby(x, sort=True)]
        xs, means, lows, highs = (np.array(column, dtype=float) for column in zip(*stats, strict=True))
        if logy:  # a band reaching below zero cannot be drawn on a log axis
            lows = np.maximum(lows, means / 100.0)
        ax.plot(xs, means, marker="o", label=str(label))
        ax.fill_between(xs, lows, highs, alpha=0.2)
    ax.set_xlabel(x)
    ax.set_ylabel(f"{y} (mean, {int(level * 100)}% band)")
    if logy:
        ax.set_yscale("log")
    ax.legend(title=hue)
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
               label=None if group_value is None else f"{group}={group_value}")
    ax.set_xticks(np.arange(len(labels)), [str(label) for label in labels], rotation=20)
    ax.set_ylabel(f"error rate ({int(level * 100)}% Wilson interval)")
    if delta is not None:
        ax.axhline(delta, color="black", linestyle="--", linewidth=1, label=f"delta={delta}")
    if group is not None or delta is not None:
        ax.legend()
    if title:
        ax.set_title(title)
    return ax
