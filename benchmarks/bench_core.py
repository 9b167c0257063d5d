"""Cost of one pull and of one stopping check of SAQM, against n (k = n / 10).

A pull is one ask / environment pull / tell round trip (O(1) statistics update); a check
is one ``stopping_check()``: it forms A_t, its Cholesky factor and inverse, the
eigenvalues, Algorithm 1 with greedy peeling and the certified bounds (O(n^3)). Both are
timed in the same process, side by side, and the check is also reported as a multiple of
a pull: that ratio is what the geometric check schedule amortises. Also prints the
condition number of the uniform design for each support choice.

Only the public API is used: ``setup(noise_scale=...)``, ``ask``/``tell`` with pull
handles and ``stopping_check()``.

Usage:
    python benchmarks/bench_core.py [--out benchmarks/results/core_costs.csv] [--sizes 20 50 111 200 500]
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np
import pandas as pd

import fullbandit as fb
from fullbandit.allocation import cyclic_windows, design_condition_number, random_support


def time_pulls(algorithm, environment, pulls: int) -> float:
    """Mean seconds of one single-pull ask / pull / tell round trip."""
    start = time.perf_counter()
    for _ in range(pulls):
        pull = algorithm.ask()
        algorithm.tell(pull, environment.pull(pull.arms, count=pull.count))
    return (time.perf_counter() - start) / pulls


def time_checks(algorithm, repeats: int) -> float:
    """Mean seconds of one evaluation of the stopping rule on the data told so far."""
    start = time.perf_counter()
    for _ in range(repeats):
        algorithm.stopping_check()
    return (time.perf_counter() - start) / repeats


def measure(n: int, seed: int, pulls: int) -> dict:
    k = max(2, n // 10)
    rng = np.random.default_rng(seed)
    theta = rng.uniform(0, 1, n)
    environment = fb.GaussianSum(theta, sigma=1.0, seed=seed)
    # A huge check_growth leaves only the first check (after one pass over the support)
    # outside the timed pulls; a huge budget keeps the run going.
    algorithm = fb.SAQM(fb.TopK(n, k), support="random", check_growth=1e9, budget=10**9, seed=seed)
    algorithm.setup(noise_scale=environment.noise_scale(k))
    members = len(algorithm.support_arms)
    time_pulls(algorithm, environment, members + 1)  # warm-up, and the first check
    if algorithm.n_checks != 1:
        raise RuntimeError(f"expected one stopping check after the warm-up, got {algorithm.n_checks}")
    per_pull = time_pulls(algorithm, environment, pulls)
    if algorithm.n_checks != 1:
        raise RuntimeError("a stopping check happened during the timed pulls")
    per_check = time_checks(algorithm, repeats=max(3, int(2000 / n)))
    return {"n": n, "k": k, "support_size": members,
            "pull_seconds": per_pull, "check_seconds": per_check, "check_over_pull": per_check / per_pull}


def conditioning(n: int, k: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    row = {"n": n, "k": k}
    if math.gcd(n, k) == 1:
        row["cyclic"] = design_condition_number(n, cyclic_windows(n, k))
    for factor in (1, 2, 4):
        row[f"random_{factor}n"] = design_condition_number(n, random_support(n, k, rng, size=factor * n))
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 50, 111, 200, 500])
    parser.add_argument("--pulls", type=int, default=20_000, help="timed pulls per size")
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "results" / "core_costs.csv")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    rows = [measure(n, args.seed, args.pulls) for n in args.sizes]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(rows).to_csv(args.out, index=False)
    print(f"{'n':>5} {'k':>4} {'support':>8} {'pull (us)':>10} {'check (ms)':>11} {'check/pull':>11}")
    for row in rows:
        print(f"{row['n']:>5} {row['k']:>4} {row['support_size']:>8} {row['pull_seconds'] * 1e6:>10.2f} "
              f"{row['check_seconds'] * 1e3:>11.2f} {row['check_over_pull']:>11.0f}")
    print(f"written to {args.out}")
    print("\ncondition number of the uniform design A(p) by support:")
    for n, k in [(36, 10), (37, 10), (63, 10), (111, 10)]:
        row = conditioning(n, k, args.seed)
        print("  " + ", ".join(f"{key}={value:.3g}" if isinstance(value, float) else f"{key}={value}"
                               for key, value in row.items()))


if __name__ == "__main__":
    main()
