"""Blocked simulation against the single-pull loop on the kuroki-table2 grid, today's code and the
code before issue 13, side by side in one run.

Every cell of the suite's grid (``fullbandit bench kuroki-table2``: ICB, SAQM, SA-FOA heuristic
and certified, SwapBound, PhasedSwap on the six quiz data sets, k = 10, epsilon = 0.5) is run
with the same seeds through ``fullbandit.run``, with ``blocks=True`` (a static design's pulls
up to its next check drawn and told at once) and with ``blocks=False`` (one ask / pull / tell
per pull, as a live campaign), by this tree and by the package as it was at ``--baseline`` (a
git commit, extracted with ``git archive`` into a temporary folder). Each of the four modes
runs in its own process pool of ``--jobs`` workers, one after the other. Reported: each
mode's wall time and pulls, per algorithm the summed run times, and the ratios. The runs
differ only in their draws (a block is one draw of the law of its pulls' sum), so pulls to
stop differ run by run but agree in distribution (``tests/test_blocks.py``).

Usage:
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_blocks.py [--runs 3] [--jobs 2]
        [--baseline 01111fa]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

SUITE = "kuroki-table2"
ROOT = Path(__file__).resolve().parents[1]


def run_cell(task) -> dict:
    """One cell of the grid, blocked or not, with the package found first on ``sys.path``."""
    runs, index, blocks = task
    import numpy as np

    import fullbandit as fb
    from fullbandit.experiments.suites import get_suite
    grid = get_suite(SUITE).build(runs)
    cell = grid.cells()[index]
    instance = grid.instances[cell.instance].make(np.random.default_rng(cell.instance_seed()),
                                                  **dict(cell.instance_params))
    algorithm = grid.algorithms[cell.algorithm].make(instance.problem, cell.algorithm_seed(),
                                                     **dict(cell.algorithm_params))
    start = time.perf_counter()
    result = fb.run(algorithm, instance.environment, progress=False, blocks=blocks)
    seconds = time.perf_counter() - start
    return {"algorithm": cell.algorithm, "instance": cell.instance, "seed": cell.seed, "blocks": blocks,
            "pulls": result.pulls, "seconds": seconds, "correct": result.answer == result.best}


def worker(runs: int, jobs: int, blocks: bool) -> None:
    """Run the whole grid in one mode with this process's package; print the rows and the wall time as JSON."""
    from fullbandit.experiments.suites import get_suite
    cells = len(get_suite(SUITE).build(runs).cells())
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        list(pool.map(run_cell, [(1, 0, True)] * jobs))  # start the workers, load the data
        start = time.perf_counter()
        rows = list(pool.map(run_cell, [(runs, index, blocks) for index in range(cells)]))
        wall = time.perf_counter() - start
    print(json.dumps({"wall": wall, "rows": rows}))


def run_mode(tree: Path, label: str, runs: int, jobs: int, blocks: bool) -> tuple[float, list[dict]]:
    environment = {**os.environ, "PYTHONPATH": str(tree)}
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", "--runs", str(runs), "--jobs", str(jobs),
               "--blocks", str(int(blocks))]
    output = subprocess.run(command, env=environment, check=True, capture_output=True, text=True, cwd=tree).stdout
    data = json.loads(output.strip().splitlines()[-1])
    for row in data["rows"]:
        row["code"] = label
    return data["wall"], data["rows"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="seeds per cell (the suite's default: 3)")
    parser.add_argument("--jobs", type=int, default=2, help="local processes of each mode")
    parser.add_argument("--baseline", default="01111fa", help="git commit of the code before issue 13 ('' for none)")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "blocks_table2.csv")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--blocks", type=int, default=1, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.runs, args.jobs, bool(args.blocks))
        return
    import pandas as pd
    trees = {"today": ROOT}
    with tempfile.TemporaryDirectory() as folder:
        if args.baseline:
            archive = subprocess.run(["git", "archive", args.baseline, "fullbandit"], cwd=ROOT, check=True,
                                     capture_output=True).stdout
            subprocess.run(["tar", "-x", "-C", folder], input=archive, check=True)
            trees[f"before ({args.baseline})"] = Path(folder)
        walls, rows = {}, []
        for label, tree in trees.items():
            for blocks in (True, False):
                walls[(label, blocks)], found = run_mode(tree, label, args.runs, args.jobs, blocks)
                rows += found
                print(f"{label:>18} {'blocked' if blocks else 'single-pull':>11}: {walls[(label, blocks)]:7.1f} s",
                      flush=True)
    frame = pd.DataFrame(rows)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.out, index=False)
    blocked_today = walls[("today", True)]
    summary = pd.DataFrame([{"code": label, "mode": "blocked" if blocks else "single-pull", "wall_seconds": wall,
                             "pulls": int(frame.loc[(frame["code"] == label) & (frame["blocks"] == blocks),
                                                    "pulls"].sum()),
                             "runs": int(((frame["code"] == label) & (frame["blocks"] == blocks)).sum()),
                             "jobs": args.jobs, "ratio_to_blocked_today": wall / blocked_today}
                            for (label, blocks), wall in walls.items()])
    summary_path = args.out.with_name(args.out.stem + "_summary.csv")
    summary.to_csv(summary_path, index=False)
    per_algorithm = frame.pivot_table(index="algorithm", columns=["code", "blocks"], values="seconds", aggfunc="sum")
    print(f"\n{SUITE}, --runs {args.runs}, {args.jobs} processes per mode; summed run seconds per algorithm:")
    print(per_algorithm.round(2).to_string())
    print()
    print(summary.round(2).to_string(index=False))
    print(f"written to {args.out} and {summary_path}")


if __name__ == "__main__":
    main()
