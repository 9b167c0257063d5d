"""What the ``efficiency`` targets would need: SwapBound beside two uncertified confidence terms, same cells.

Issue 27 asks the best certified algorithm for at most 6x (planted gap) and 10x (random means)
the lower bound ``T* log(1/(2.4 delta))`` at ``delta = 0.05``, 3x at ``delta = 1e-6``. This
script measures how much of the distance any confidence term could still take off SwapBound,
by running it on the ``efficiency`` suite's own cells (same instances, noise and seeds:
:func:`fullbandit.experiments.efficiency.build_synthetic_grid`'s factories) with its radius
``C_m`` of each swap size replaced by

* ``swap[fixed-time union]``: ``sigma sqrt(2 log(|D_m| / delta_m))``, the union over the
  directed m-swaps at a single check, as if each check were the only one (no price for
  checking repeatedly);
* ``swap[Gaussian fixed-time union]``: ``sigma z(delta_m / |D_m|)`` with ``z`` the standard
  normal quantile: the same union with Gaussian tails instead of the sub-Gaussian (Chernoff)
  ones, valid at a single check when the noise is Gaussian (as on these cells);
* ``swap[log(1/delta)]``: ``sigma sqrt(2 log(1 / delta))``, no union over directions or checks
  at all, the threshold generalised-likelihood-ratio experiments commonly run with
  (Garivier and Kaufmann 2016, section 6, use ``log((log t + 1) / delta)``).

Neither is a valid confidence bound for this rule (both drop unions the proof needs): they are
*floors*, what a perfect confidence term could at best reach with this rule and design.

A second table asks whether a sharper bound over the directions (chaining, a Gaussian width)
could replace the union over the ``k (n - k)`` single swaps ``D_1``: for the uniform design over
the ``swap-optimal`` support, Gaussian errors ``N(0, A^-1)`` (one pass) and ``M* = {0..k-1}``,
it compares the exact ``1 - delta_1`` quantile of ``max_{y in D_1} y.e / ||y||_{A^-1}`` (Monte
Carlo) with the union's Gaussian quantile ``z(delta_1 / |D_1|)`` and with the sub-Gaussian
(Chernoff) radius ``sqrt(2 log(|D_1| / delta_1))`` that the certified rule needs for noise that is
only sub-Gaussian.

A third asks what the design costs (:func:`design_ratios`): per instance, the easiest answer's
time under the uniform design over the ``swap-optimal`` support against ``T_easiest`` (the best
design for that answer).

Writes ``OUT/confidence_floor.csv`` (one row per run), ``OUT/confidence_floor_summary.csv``,
``OUT/confidence_floor_directions.csv``, ``OUT/confidence_floor_design.csv`` and
``OUT/confidence_floor.png``. Usage:
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_confidence_floor.py
        [--ns 8 10 12 14] [--runs 10] [--jobs 2] [--draws 400000] [--out benchmarks/results]
"""

from __future__ import annotations

import argparse
import math
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import norm

from fullbandit.analysis.sample_complexity import lower_bound
from fullbandit.core.params import Options
from fullbandit.design.support import make_support
from fullbandit.experiments import efficiency
from fullbandit.experiments.grid import Factory, Grid
from fullbandit.experiments.runner import run_grid
from fullbandit.full.static import DEFAULT_BUDGET
from fullbandit.full.swap import SwapBound
from fullbandit.full.swap_bounds import graded_deltas, max_swaps, n_directed_swaps
from fullbandit.util.enumeration import indicator_rows, subset_chunks

ROOT = Path(__file__).resolve().parents[1]
FLOORS = {"fixed-time union": "swap[fixed-time union]", "Gaussian fixed-time union": "swap[Gaussian fixed-time union]",
          "log(1/delta)": "swap[log(1/delta)]"}


class FloorSwap(SwapBound):
    """SwapBound with an uncertified radius (see the module docstring); checks at the same whole passes."""

    parameter_constraints = {**SwapBound.parameter_constraints, "floor": [Options(tuple(FLOORS))]}

    def __init__(self, problem, *, floor: str = "log(1/delta)", epsilon: float = 0.0, delta: float = 0.05,
                 budget: int = DEFAULT_BUDGET, seed=None):
        self.floor = floor
        super().__init__(problem, epsilon=epsilon, delta=delta, budget=budget, seed=seed)

    def directed_radii(self, t: int) -> list[float]:
        certified = super().directed_radii(t)
        if not math.isfinite(certified[0]):  # keep the certified rule's check times: whole passes
            return certified
        n, k = self.problem.n, self.problem.k
        levels = self.levels().tolist()
        if self.floor == "log(1/delta)":
            return [self._noise_scale * math.sqrt(2.0 * math.log(1.0 / self.delta))] * len(levels)
        shares = [level / n_directed_swaps(n, k, m) for m, level in enumerate(levels, start=1)]
        if self.floor == "Gaussian fixed-time union":
            return [self._noise_scale * float(norm.isf(share)) for share in shares]
        return [self._noise_scale * math.sqrt(2.0 * math.log(1.0 / share)) for share in shares]


def make_floor(problem, seed, *, floor: str, **parameters) -> FloorSwap:
    return FloorSwap(problem, floor=floor, seed=seed, epsilon=efficiency.SYNTHETIC_EPSILON,
                     budget=efficiency.BUDGET, **parameters)


def build_grid(ns, runs: int) -> Grid:
    """The ``efficiency`` cells (planted and random, ``ns``, both deltas) for swap and its three floors."""
    sweep = {"delta": list(efficiency.SYNTHETIC_DELTAS)}
    algorithms = {"swap": Factory.registered("swap", sweep, epsilon=efficiency.SYNTHETIC_EPSILON,
                                             budget=efficiency.BUDGET)}
    for floor, label in FLOORS.items():
        algorithms[label] = Factory(partial(make_floor, floor=floor), sweep)
    instances = {family: Factory(partial(efficiency.synthetic_instance, family=family), {"n": list(ns)})
                 for family in ("planted", "random")}
    return Grid(algorithms, instances, seeds=runs, metrics=efficiency.lower_bound_metrics)


def swap_optimal_support(n: int, k: int, rng) -> np.ndarray:
    """The indicator rows of SwapBound's default support (``support="swap-optimal"``)."""
    return indicator_rows(np.asarray(make_support(n, k, "swap-optimal", seed=rng)), n)


def design_ratios(ns, runs: int) -> pd.DataFrame:
    """Per ``efficiency`` instance: the time of the easiest answer under SwapBound's uniform design over its own.

    ``min_G max_{B != G} 2 sigma^2 ||x_G - x_B||^2_{A^-1} / (theta(G) - theta(B) + epsilon)^2`` over the
    epsilon-good teams ``G``, with ``A`` the design per pull of the ``swap-optimal`` support, divided by
    ``T_easiest`` (which takes the best design for each ``G``): what the uniform design costs a rule that
    certified with the lower bound's alternatives, whatever its confidence term.
    """
    k, sigma, epsilon = efficiency.SYNTHETIC_K, efficiency.SYNTHETIC_SIGMA, efficiency.SYNTHETIC_EPSILON
    teams = {n: indicator_rows(np.concatenate(list(subset_chunks(n, k))), n) for n in ns}
    rows = []
    for cell in build_grid(ns, runs).cells():
        if cell.algorithm != "swap" or dict(cell.algorithm_params)["delta"] != efficiency.DELTA:
            continue  # the instance depends on its family, n and seed only
        n = dict(cell.instance_params)["n"]
        instance = efficiency.synthetic_instance(np.random.default_rng(cell.instance_seed()), n, cell.instance)
        theta = np.asarray(instance.environment.means, dtype=float)
        support = swap_optimal_support(n, k, np.random.default_rng(cell.algorithm_seed()))
        per_pull = np.linalg.inv(support.T @ support / len(support))  # A^-1 of the design per pull
        values = teams[n] @ theta
        times = []
        for answer in np.flatnonzero(values >= values.max() - epsilon):
            others = np.arange(len(values)) != answer
            directions = teams[n][answer] - teams[n][others]
            widths = np.einsum("dn,nm,dm->d", directions, per_pull, directions)
            times.append(float(np.max(2.0 * sigma**2 * widths / (values[answer] - values[others] + epsilon) ** 2)))
        bound = lower_bound(instance.problem, theta, sigma, epsilon=epsilon, easiest_answer=True)
        rows.append({"instance": cell.instance, "n": n, "seed": cell.seed, "T_star": bound.T_star,
                     "T_easiest": bound.T_easiest, "T_uniform_easiest": min(times)})
    table = pd.DataFrame(rows)
    table["uniform_over_easiest"] = table["T_uniform_easiest"] / table["T_easiest"]
    return table


def direction_quantiles(ns, k: int, delta: float, draws: int, seed: int = 0) -> pd.DataFrame:
    """Exact Gaussian quantile of the largest normalised single-swap error against the union's radii."""
    rng = np.random.default_rng(seed)
    rows = []
    for n in ns:
        support = swap_optimal_support(n, k, rng)
        covariance = np.linalg.inv(support.T @ support)  # one pass
        inside, outside = np.arange(k), np.arange(k, n)
        directions = np.zeros((k * (n - k), n))
        for index, (j, i) in enumerate((j, i) for j in inside for i in outside):
            directions[index, j], directions[index, i] = 1.0, -1.0
        widths = np.sqrt(np.einsum("dn,nm,dm->d", directions, covariance, directions))
        errors = rng.multivariate_normal(np.zeros(n), covariance, size=draws, method="cholesky")
        largest = (errors @ directions.T / widths).max(axis=1)
        level = float(graded_deltas(delta, max_swaps(n, k))[0])
        count = n_directed_swaps(n, k, 1)
        rows.append({"n": n, "k": k, "delta": delta, "delta_1": level, "directions": count, "draws": draws,
                     "exact_gaussian_max": float(np.quantile(largest, 1.0 - level)),
                     "union_gaussian": float(norm.isf(level / count)),
                     "union_sub_gaussian": math.sqrt(2.0 * math.log(count / level)),
                     "no_union_sub_gaussian": math.sqrt(2.0 * math.log(1.0 / level))})
    table = pd.DataFrame(rows)
    # In pulls a radius costs its square: the ratios below are what each step would save.
    table["pulls_union_over_exact_gaussian"] = (table["union_gaussian"] / table["exact_gaussian_max"]) ** 2
    table["pulls_sub_gaussian_over_gaussian"] = (table["union_sub_gaussian"] / table["union_gaussian"]) ** 2
    return table


def summarize(frame: pd.DataFrame) -> pd.DataFrame:
    table = efficiency.summarize_synthetic(frame).reset_index()
    attainable = frame.groupby(["delta", "instance", "n"])["attainable_bound"].mean()
    table = table.join(attainable.rename("mean_attainable_bound"), on=["delta", "instance", "n"])
    table["easiest_over_star"] = table["mean_attainable_bound"] / table["lower_bound"]
    table["target"] = [efficiency.TARGETS.get((float(delta), str(family)), math.nan)
                       for delta, family in zip(table["delta"], table["instance"], strict=True)]
    return table


def plot(summary: pd.DataFrame, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    deltas, families = sorted(summary["delta"].unique(), reverse=True), ("planted", "random")
    figure, axes = plt.subplots(len(deltas), 2, figsize=(10, 7), sharex=True, squeeze=False)
    for row, delta in enumerate(deltas):
        for column, family in enumerate(families):
            ax = axes[row][column]
            cells = summary[(summary["delta"] == delta) & (summary["instance"] == family)]
            for algorithm, lines in cells.groupby("algorithm"):
                ax.plot(lines["n"], lines["pulls / lower bound"], marker="o", label=str(algorithm))
            by_n = cells.drop_duplicates("n")
            ax.plot(by_n["n"], by_n["easiest_over_star"], color="grey", linestyle=":",
                    label="T_easiest / T* (no algorithm below, delta -> 0)")
            ax.axhline(float(by_n["target"].iloc[0]), color="black", linestyle="--", label="issue 27 target")
            ax.set_title(f"{family}, delta = {delta:g}")
            ax.set_ylabel("pulls / (T* log(1/(2.4 delta)))")
            ax.set_ylim(bottom=0)
            if row == len(deltas) - 1:
                ax.set_xlabel("n (k = 3)")
    axes[0][0].legend(fontsize=7)
    figure.suptitle("SwapBound against uncertified confidence floors on the efficiency cells")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ns", nargs="+", type=int, default=list(efficiency.SYNTHETIC_NS))
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--draws", type=int, default=400_000)
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    arguments = parser.parse_args(argv)
    arguments.out.mkdir(parents=True, exist_ok=True)
    directions = direction_quantiles(arguments.ns, efficiency.SYNTHETIC_K, efficiency.DELTA, arguments.draws)
    directions.to_csv(arguments.out / "confidence_floor_directions.csv", index=False)
    print(directions.round(3).to_string(index=False))
    designs = design_ratios(arguments.ns, arguments.runs)
    designs.to_csv(arguments.out / "confidence_floor_design.csv", index=False)
    print(designs.groupby(["instance", "n"])["uniform_over_easiest"].describe()[["min", "50%", "max"]].round(2))
    frame = run_grid(build_grid(arguments.ns, arguments.runs), backend="processes", jobs=arguments.jobs,
                     progress=True)
    frame.to_csv(arguments.out / "confidence_floor.csv", index=False)
    summary = summarize(frame)
    summary.to_csv(arguments.out / "confidence_floor_summary.csv", index=False)
    columns = ["algorithm", "delta", "instance", "n", "pulls / lower bound", "pulls / attainable", "errors",
               "easiest_over_star", "target"]
    printed = summary[columns].round(2)
    printed["delta"] = summary["delta"].map("{:g}".format)
    print(printed.to_string(index=False))
    plot(summary, arguments.out / "confidence_floor.png")


if __name__ == "__main__":
    main()
