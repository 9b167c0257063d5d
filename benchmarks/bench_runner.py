"""Overhead of the experiment runner: time per run over a trivial algorithm.

The trivial algorithm pulls one super-arm once and stops, so a run's time is almost all
runner overhead (building the instance and algorithm, ``fullbandit.run``, the row, the
CSV append). Sequential and 2-process backends are timed side by side in one process; the
ratio says what parallelism buys when runs are this short.

Usage:
    python benchmarks/bench_runner.py [--runs 2000] [--out benchmarks/results/runner_overhead.csv]
"""

from __future__ import annotations

import argparse
import math
import tempfile
import time
from pathlib import Path

import pandas as pd

import fullbandit as fb
from fullbandit.core.algorithm import Algorithm, StoppingCheck
from fullbandit.core.params import SEED, Interval
from fullbandit.experiments import Factory, Grid, Instance, run_grid


class OnePull(Algorithm):
    """Asks for the first ``k`` arms once, then its rule fires: the least work an algorithm can do."""

    name = "one-pull"
    parameter_constraints = {"budget": [Interval(int, 1, None)], "seed": [SEED]}

    def __init__(self, problem, *, budget: int = 1, seed=None):
        self.problem = problem
        self.budget = budget
        self.seed = seed

    def _build(self, rng, noise_scale):
        self._team = tuple(range(self.problem.k))

    def _next_pull(self, max_count):
        return self._team, 1, None

    def _record(self, token, arms, count, reward):
        pass

    def _release(self, token, count):
        pass

    def _due_for_check(self):
        return True

    def _evaluate(self):
        told = self._told > 0
        return StoppingCheck(self._told, 0.0 if told else math.inf, 0.0, self._team if told else None, False)

    def _state(self):
        return {}

    def _restore(self, state):
        self._team = tuple(range(self.problem.k))


def one_pull(problem, seed) -> OnePull:
    return OnePull(problem, seed=seed)


def gaussian_instance(rng, n):
    return Instance(fb.TopK(n, 3), fb.GaussianSum(rng.uniform(size=n), seed=rng))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "runner_overhead.csv")
    args = parser.parse_args(argv)
    grid = Grid({"one-pull": Factory(one_pull)}, {"gaussian": Factory(gaussian_instance, {"n": [10]})},
                seeds=args.runs)
    warmup = Grid(grid.algorithms, grid.instances, seeds=20)
    for backend, jobs in (("sequential", 1), ("processes", 2)):  # start the process pool, fill caches
        run_grid(warmup, backend=backend, jobs=jobs, progress=False)
    rows = []
    for backend, jobs in (("sequential", 1), ("processes", 2)):
        for to_file in (False, True):
            with tempfile.TemporaryDirectory() as folder:
                out = Path(folder) / "r.csv" if to_file else None
                start = time.perf_counter()
                frame = run_grid(grid, backend=backend, jobs=jobs, out=out, progress=False)
                seconds = time.perf_counter() - start
            if len(frame) != args.runs or not (frame["pulls"] == 1).all() \
                    or not (frame["stop_reason"] == "stopping rule").all():
                raise RuntimeError(f"{backend}: expected {args.runs} one-pull runs stopped by their rule")
            rows.append({"backend": backend, "jobs": jobs, "csv": to_file, "runs": args.runs,
                         "seconds_per_run": seconds / args.runs})
    base = rows[0]["seconds_per_run"]
    for row in rows:
        row["relative_to_sequential_in_memory"] = row["seconds_per_run"] / base
    args.out.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(args.out, index=False)
    print(f"{'backend':<11} {'jobs':>4} {'csv':>5} {'ms/run':>8} {'ratio':>6}")
    for row in rows:
        print(f"{row['backend']:<11} {row['jobs']:>4} {str(row['csv']):>5} {row['seconds_per_run'] * 1e3:>8.3f} "
              f"{row['relative_to_sequential_in_memory']:>6.2f}")
    print(f"written to {args.out}")


if __name__ == "__main__":
    main()
