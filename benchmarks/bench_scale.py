"""Certified answers at scale: SwapBound and PhasedSwap on many Bernoulli workers, side by side with a baseline.

Workers' accuracies are drawn from Beta(4, 2) (seed 0), the team sum of ``k`` independent
Bernoulli answers is observed, ``epsilon = 0.05 k``, ``delta = 0.05``. Each run happens in a
fresh subprocess (its peak resident set is the run's own), for this tree and, when
``--baseline REF`` is given, for the package at that git reference (``git archive``), one
after the other on the same sizes, so the ratios are measured side by side. Reported per run:
wall time, pulls, checks, peak resident set (``ru_maxrss``), whether the answer is certified
and epsilon-good. Writes ``OUT/scale.csv`` and ``OUT/scale.png``.

BLAS is pinned to one thread. Usage:
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_scale.py
        [--sizes 100:5 300:15 1000:50 2000:100 10000:100] [--algorithms swap phased]
        [--baseline 8a2ddbd] [--baseline-max-n 2000] [--budget 100000000] [--out benchmarks/results]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

CHILD = r"""
import json, resource, sys, time
import numpy as np
import fullbandit as fb
from fullbandit.core import registry
name, n, k, budget = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
accuracies = np.random.default_rng(0).beta(4.0, 2.0, n)
environment = fb.BernoulliTeam(accuracies, seed=1)
started = time.perf_counter()
result = fb.run(registry.build(name, fb.TopK(n, k), epsilon=0.05 * k, delta=0.05, seed=2, budget=budget),
                environment, progress=False)
print(json.dumps({"algorithm": name, "n": n, "k": k, "pulls": int(result.pulls), "checks": int(result.checks),
                  "seconds": time.perf_counter() - started, "certified": bool(result.certified),
                  "epsilon_optimal": bool(result.epsilon_optimal),
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def _run(python_path: Path, name: str, n: int, k: int, budget: int, timeout: float) -> dict:
    environment = {**os.environ, "PYTHONPATH": str(python_path), "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    try:
        # Run from the tree itself: ``python -c`` puts the working folder first on the path.
        done = subprocess.run([sys.executable, "-c", CHILD, name, str(n), str(k), str(budget)], capture_output=True,
                              text=True, env=environment, timeout=timeout, check=True, cwd=python_path)
    except subprocess.TimeoutExpired:
        return {"algorithm": name, "n": n, "k": k, "seconds": float("inf"), "timed_out": True}
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", nargs="+", default=["100:5", "300:15", "1000:50", "2000:100", "10000:100"],
                        help="n:k, or n:k:algorithm,... to run only those algorithms at that size")
    parser.add_argument("--algorithms", nargs="+", default=["swap", "phased"])
    parser.add_argument("--baseline", help="git reference to compare with (e.g. v0.1.0)")
    parser.add_argument("--baseline-max-n", type=int, default=2000, help="largest n the baseline runs")
    parser.add_argument("--budget", type=int, default=10**8, help="pulls allowed per run")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per run")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    args = parser.parse_args(argv)
    import pandas as pd
    from package_at import extract_package

    sizes = []
    for size in args.sizes:
        n, k, *only = size.split(":")
        sizes.append((int(n), int(k), only[0].split(",") if only else args.algorithms))
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        trees = {"this tree": ROOT}
        if args.baseline:
            trees[args.baseline] = extract_package(args.baseline, Path(folder))
        for n, k, names in sizes:
            for name in names:
                for label, tree in trees.items():
                    if label != "this tree" and n > args.baseline_max_n:
                        continue
                    row = {"code": label, **_run(tree, name, n, k, args.budget, args.timeout)}
                    print(row, flush=True)
                    rows.append(row)
    frame = pd.DataFrame(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.out / "scale.csv", index=False)
    _plot(frame, args.out / "scale.png")
    print(frame.to_string(index=False))


def _plot(frame, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, 3, figsize=(16, 4.5))
    for (name, code), runs in frame.groupby(["algorithm", "code"]):
        runs = runs.sort_values("n")
        for ax, column in zip(axes, ("seconds", "pulls", "peak_mb"), strict=True):
            if column in runs:
                ax.plot(runs["n"], runs[column], marker="o", label=f"{name} ({code})")
    if "certified" in frame:  # a run that ended on its budget or timeout, uncertified: crossed out
        failed = frame[~frame["certified"].fillna(False).astype(bool)]
        for ax, column in zip(axes, ("seconds", "pulls", "peak_mb"), strict=True):
            if column in failed and len(failed):
                ax.scatter(failed["n"], failed[column], marker="x", s=90, color="black", zorder=3,
                           label="not certified (budget)")
    for ax, title in zip(axes, ("wall time (s)", "pulls", "peak resident set (MB)"), strict=True):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("n (k = n / 20, at most 100)")
        ax.set_title(title)
        ax.legend(fontsize=8)
    figure.suptitle("Bernoulli workers, Beta(4, 2) accuracies, epsilon = 0.05 k, delta = 0.05; one thread")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


if __name__ == "__main__":
    main()
