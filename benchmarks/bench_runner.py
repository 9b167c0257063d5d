"""Overhead of the experiment runner: time per run over a trivial algorithm.

The trivial algorithm pulls one super-arm once and stops, so a run's time is almost all
runner overhead (building the instance and algorithm, the driver, the row, the CSV
append). Sequential and 2-process backends are timed side by side in one process; the
ratio says what parallelism buys when runs are this short.

Usage:
    python benchmarks/bench_runner.py [--runs 2000] [--out benchmarks/results/runner_overhead.csv]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import pandas as pd

import fullbandit as fb
from fullbandit.experiments import Factory, Grid, Instance, run_grid
from fullbandit.result import STOPPING_RULE, Result


class OnePull:
    """Asks one super-arm, takes its reward, stops."""

    name = "one-pull"
    epsilon = 0.0
    budget = 1

    def __init__(self, problem, seed):
        self.problem = problem
        self.noise_scale = None
        self.n_pulls = 0

    @property
    def done(self):
        return self.n_pulls >= 1

    def ask(self):
        return tuple(range(self.problem.k))

    def tell(self, arm, reward):
        self.n_pulls += 1

    def result(self):
        return Result(self.name, tuple(range(self.problem.k)), self.n_pulls, STOPPING_RULE)


def gaussian_instance(rng, n):
    return Instance(fb.TopK(n, 3), fb.GaussianSum(rng.uniform(size=n), seed=rng))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=2000)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "runner_overhead.csv")
    args = parser.parse_args(argv)
    grid = Grid({"one-pull": Factory(OnePull)}, {"gaussian": Factory(gaussian_instance, {"n": [10]})},
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
            assert len(frame) == args.runs
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
