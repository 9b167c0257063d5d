"""Cost of the static full-bandit algorithms before and after issue 13, side by side in one run:
one stopping check, the build, a single ask / pull / tell, and peak memory.

Algorithms: SAQM, SA-FOA (certified and heuristic), ICB, SwapBound, PhasedSwap; ``k = n / 10``.

* check: an algorithm with a random support of ``4 n`` members (PhasedSwap: its own design)
  is fed its first pass as blocks; "first" is the tell that triggers the first check (it
  factorises ``X^T X`` once for the design), "after" the median of further
  ``stopping_check()`` calls on that state (as every later check at a whole pass), "before"
  the median of ``reference.checks.reference_check`` (``tests/reference/checks.py``) on the same state: the old
  computation (dense ``m x n`` float64 design matrix, held as the old design held it;
  Cholesky then ``inv(L)``; each rule's own eigen-decompositions). The two must agree:
  ``same_answer`` and ``same_bound`` (relative 1e-6) are reported.
* build: ``setup()`` with each algorithm's default support ("auto"; SwapBound and
  PhasedSwap "swap-optimal"), against ``reference.checks.reference_build`` (the old
  ``make_support``, SVD rank check and dense design matrix), medians.
* pull: a single ``ask`` / ``environment.pull`` / ``tell`` (ICB, no check in the timed pulls),
  by this tree and, in a subprocess, by the package at ``--baseline`` (``git archive``).
* memory: in a fresh process, the peak of ``tracemalloc`` (numpy's arrays included) over the
  build, the first check, three more checks and 1,000 single pulls; "before" over the old
  build and three old checks; for "after" also the growth of the peak resident set over
  the one after a warm-up (Linux ``VmHWM``, reset before the work).

BLAS is pinned to one thread (set ``OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1``; the checks
also pin it themselves, :mod:`fullbandit.util.blas`).

Usage:
    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 PYTHONPATH=. python benchmarks/bench_core.py
        [--sizes 20 50 111 200 500 1000] [--memory-sizes 111 1000] [--baseline 01111fa]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.append(str(ROOT / "tests"))  # the frozen references, the tests' exactness oracles: tests/reference/
ALGORITHMS = ("saqm", "safoa", "safoa-heuristic", "icb", "swap", "phased")
LABELS = {"saqm": "SAQM", "safoa": "SA-FOA certified", "safoa-heuristic": "SA-FOA heuristic", "icb": "ICB",
          "swap": "SwapBound", "phased": "PhasedSwap"}
DEFAULT_SUPPORT = {"saqm": "auto", "safoa": "auto", "safoa-heuristic": "auto", "icb": "auto", "swap": "swap-optimal",
                   "phased": "swap-optimal"}


def _k(n: int) -> int:
    return max(2, n // 10)


def make(name: str, n: int, seed: int, **options):
    import fullbandit as fb
    from fullbandit.full import PhasedSwap, SwapBound
    problem = fb.TopK(n, _k(n))
    common = dict(epsilon=0.0, budget=10**12, seed=seed)
    if name == "phased":
        return PhasedSwap(problem, **common)
    common.update(stop_on_rule=False, **options)
    return {"saqm": lambda: fb.SAQM(problem, **common), "safoa": lambda: fb.SAFOA(problem, **common),
            "safoa-heuristic": lambda: fb.SAFOA(problem, mode="heuristic", **common),
            "icb": lambda: fb.ICB(problem, **common), "swap": lambda: SwapBound(problem, **common)}[name]()


def environment(n: int, seed: int):
    import fullbandit as fb
    return fb.GaussianSum(np.random.default_rng(seed).uniform(0.0, 1.0, n), sigma=1.0, seed=seed + 1)


def first_pass(algorithm, env) -> float:
    """Tell the first pass as blocks; seconds of the tell that triggers the first check."""
    start = 0.0
    while algorithm.n_checks == 0:
        blocks = algorithm.ask_blocks()
        rewards = env.pull_blocks(blocks.arms, blocks.counts)
        start = time.perf_counter()
        algorithm.tell_blocks(blocks, rewards)
    return time.perf_counter() - start


def median_seconds(call, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def measure_check(name: str, n: int, seed: int, repeats: int) -> dict:
    from reference.checks import dense_matrix, phased_check, reference_check
    algorithm = make(name, n, seed, **({} if name == "phased" else {"support": "random"}))
    algorithm.setup(noise_scale=1.0)
    first = first_pass(algorithm, environment(n, seed))
    design = algorithm.design  # PhasedSwap's first check may have started a phase over fewer arms
    matrix = dense_matrix(design.n, design.support)  # the old design held it
    reference = phased_check if name == "phased" else reference_check
    new, old = algorithm.stopping_check(), reference(algorithm, matrix)
    after = median_seconds(algorithm.stopping_check, repeats)
    before = median_seconds(lambda: reference(algorithm, matrix), repeats if n < 1000 else max(1, repeats // 2))
    scale = max(abs(old.gap_bound), 1e-12)
    return {"algorithm": name, "n": n, "k": _k(n), "support_size": len(algorithm.design.support),
            "check_before_s": before, "check_after_s": after, "check_first_after_s": first,
            "check_speedup": before / after, "same_answer": new.answer == old.answer,
            "same_bound": abs(new.gap_bound - old.gap_bound) <= 1e-6 * scale}


def measure_build(name: str, n: int, seed: int, repeats: int) -> dict:
    from reference.checks import reference_build
    after = median_seconds(lambda: make(name, n, seed).setup(noise_scale=1.0), repeats)
    before = median_seconds(lambda: reference_build(n, _k(n), DEFAULT_SUPPORT[name], seed), repeats)
    return {"build_support": DEFAULT_SUPPORT[name], "build_before_s": before, "build_after_s": after,
            "build_speedup": before / after}


def pull_seconds(n: int, seed: int, pulls: int) -> float:
    """Mean seconds of one single-pull ask / pull / tell of ICB (no check among the timed pulls)."""
    import fullbandit as fb
    algorithm = fb.ICB(fb.TopK(n, _k(n)), support="random", check_growth=1e9, budget=10**12, seed=seed)
    algorithm.setup(noise_scale=1.0)
    env = environment(n, seed)
    while algorithm.n_checks == 0:
        pull = algorithm.ask()
        algorithm.tell(pull, env.pull(pull.arms, count=pull.count))
    start = time.perf_counter()
    for _ in range(pulls):
        pull = algorithm.ask()
        algorithm.tell(pull, env.pull(pull.arms, count=pull.count))
    seconds = (time.perf_counter() - start) / pulls
    assert algorithm.n_checks == 1, "a check happened among the timed pulls"
    return seconds


def _resident_mb(field: str = "VmRSS") -> float:
    """The process's resident set (``VmHWM``: its peak since the last :func:`_reset_peak`), in MB (Linux)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1]) / 1024.0
    return float("nan")


def _reset_peak() -> None:
    Path("/proc/self/clear_refs").write_text("5")  # Linux: the peak resident set starts again from the current one


def memory_probe(name: str, n: int, variant: str, seed: int) -> dict:
    """Peak memory of the build and a few checks (and 1,000 pulls), in this fresh process.

    ``variant``: "before" (traced: the old build and three old checks on the state of an
    algorithm made beforehand), "after" (traced: the build, the first check, three more and
    1,000 single pulls), "after-resident" (the same work untraced: the growth of the peak
    resident set over the one after a warm-up).
    """
    from reference.checks import dense_matrix, phased_check, reference_build, reference_check
    warm = make(name, 12, seed)  # load what is imported lazily (and BLAS's buffers): not what is measured
    warm.setup(noise_scale=1.0)
    first_pass(warm, environment(12, seed))
    warm.stopping_check()
    reference_build(12, 2, DEFAULT_SUPPORT[name], seed)
    import scipy.linalg
    square = np.ones((512, 512))
    square @ square, scipy.linalg.blas.dgemm(1.0, square, square)  # both BLAS libraries' thread buffers
    if variant == "before":
        algorithm = make(name, n, seed)
        algorithm.setup(noise_scale=1.0)
        first_pass(algorithm, environment(n, seed))
        design = algorithm.design
        reference = phased_check if name == "phased" else reference_check
        tracemalloc.start()
        support, matrix = reference_build(n, _k(n), DEFAULT_SUPPORT[name], seed)
        if list(design.support) != support:  # PhasedSwap may have started a phase over fewer arms
            matrix = dense_matrix(design.n, design.support)
        for _ in range(3):
            reference(algorithm, matrix)
        return {"peak_mb": tracemalloc.get_traced_memory()[1] / 2**20}
    baseline = _resident_mb()
    if variant == "after":
        tracemalloc.start()
    else:
        _reset_peak()
    algorithm = make(name, n, seed)
    algorithm.setup(noise_scale=1.0)
    env = environment(n, seed)
    first_pass(algorithm, env)
    for _ in range(3):
        algorithm.stopping_check()
    for _ in range(1000):
        if algorithm.done:
            break
        pull = algorithm.ask()
        algorithm.tell(pull, env.pull(pull.arms, count=pull.count))
    if variant == "after":
        return {"peak_mb": tracemalloc.get_traced_memory()[1] / 2**20}
    return {"rss_growth_mb": _resident_mb("VmHWM") - baseline}


def _subprocess_json(arguments: list[str], tree: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": f"{tree}{os.pathsep}{HERE}"}
    output = subprocess.run([sys.executable, str(Path(__file__).resolve()), *arguments], env=env, check=True,
                            capture_output=True, text=True, cwd=tree).stdout
    return json.loads(output.strip().splitlines()[-1])


def baseline_pulls(commit: str, sizes: list[int], seed: int, pulls: int) -> dict[int, float]:
    """Seconds per single pull of the package at ``commit`` (extracted into a temporary folder)."""
    from package_at import extract_package

    with tempfile.TemporaryDirectory() as folder:
        found = _subprocess_json(["--pull-probe", *map(str, sizes), "--seed", str(seed), "--pulls", str(pulls)],
                                 extract_package(commit, Path(folder)))
    return {int(n): seconds for n, seconds in found.items()}


def plot(frame, pulls, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fullbandit.experiments.plots import colours_for, legend_beside, save_figure

    figure, axes = plt.subplots(2, 2, figsize=(13, 9))
    colours = colours_for(ALGORITHMS)
    panels = [("check", axes[0, 0], "one stopping check (s)"), ("build", axes[0, 1], "build: setup() (s)"),
              ("peak", axes[1, 0], "peak traced memory (MB)")]
    for key, ax, title in panels:
        before, after = (f"{key}_before_s", f"{key}_after_s") if key != "peak" else ("peak_before_mb", "peak_after_mb")
        for name, group in frame.groupby("algorithm"):
            if after not in group or group[after].isna().all():
                continue
            group = group.dropna(subset=[after])
            ax.plot(group["n"], group[before], "--o", color=colours[name], alpha=0.5, markersize=3)
            ax.plot(group["n"], group[after], "-o", color=colours[name], label=LABELS[name])
        ax.set(xscale="log", yscale="log", xlabel="n (k = n / 10)", title=f"{title}: before dashed, after solid")
        ax.grid(True, which="both", alpha=0.3)
    axes[0, 0].axhline(1.0, color="grey", lw=0.8)
    axes[0, 0].axhline(0.01, color="grey", lw=0.8)
    axes[0, 1].axhline(1.0, color="grey", lw=0.8)
    axes[1, 0].axhline(100.0, color="grey", lw=0.8)
    legend_beside(axes[0, 1])
    ax = axes[1, 1]
    ax.plot(pulls["n"], pulls["pull_after_us"], "-o", label="after")
    if "pull_before_us" in pulls:
        ax.plot(pulls["n"], pulls["pull_before_us"], "--o", label="before")
    ax.set(xscale="log", xlabel="n (k = n / 10)", ylabel="microseconds", title="one single ask / pull / tell (ICB)")
    legend_beside(ax)
    ax.grid(True, which="both", alpha=0.3)
    figure.tight_layout()
    save_figure(figure, path, dpi=110)
    save_figure(figure, Path(path).with_suffix(".svg"))
    plt.close(figure)


def issue_table(frame, pulls) -> str:
    lines = ["| n | SAQM check | SA-FOA certified | SA-FOA heuristic | ICB check | SwapBound | PhasedSwap | "
             "ask+pull+tell |", "|---|---|---|---|---|---|---|---|"]
    for n, group in frame.groupby("n"):
        cells = []
        for name in ALGORITHMS:
            row = group[group["algorithm"] == name]
            cells.append("" if row.empty else
                         f"{_ms(row['check_before_s'].iloc[0])} -> {_ms(row['check_after_s'].iloc[0])}")
        pull = pulls[pulls["n"] == n]
        pull_cell = "" if pull.empty else (f"{pull['pull_before_us'].iloc[0]:.0f} -> " if "pull_before_us" in pull
                                           else "") + f"{pull['pull_after_us'].iloc[0]:.0f} us"
        lines.append(f"| {n} | " + " | ".join(cells) + f" | {pull_cell} |")
    return "\n".join(lines)


def _ms(seconds: float) -> str:
    return f"{seconds:.3g} s" if seconds >= 1.0 else f"{seconds * 1e3:.3g} ms"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[20, 50, 111, 200, 500, 1000])
    parser.add_argument("--memory-sizes", type=int, nargs="*", default=[111, 1000])
    parser.add_argument("--algorithms", nargs="+", default=list(ALGORITHMS), choices=ALGORITHMS)
    parser.add_argument("--repeats", type=int, default=5, help="timed checks per mode (medians)")
    parser.add_argument("--pulls", type=int, default=20_000, help="timed single pulls per size")
    parser.add_argument("--baseline", default="01111fa", help="git commit before issue 13 for the pull path ('')")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=HERE / "results" / "core_costs.csv")
    parser.add_argument("--memory-probe", nargs=3, metavar=("NAME", "N", "VARIANT"), help=argparse.SUPPRESS)
    parser.add_argument("--pull-probe", type=int, nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--replot", action="store_true", help="redraw the figure and table from the CSVs of --out")
    args = parser.parse_args(argv)
    if args.memory_probe:
        name, n, variant = args.memory_probe
        print(json.dumps(memory_probe(name, int(n), variant, args.seed)))
        return
    if args.pull_probe:
        print(json.dumps({n: pull_seconds(n, args.seed, args.pulls) for n in args.pull_probe}))
        return
    import pandas as pd
    pulls_path = args.out.with_name(args.out.stem + "_pulls.csv")
    if args.replot:
        frame, pulls = pd.read_csv(args.out), pd.read_csv(pulls_path)
        plot(frame, pulls, args.out.with_suffix(".png"))
        print(issue_table(frame, pulls))
        return
    rows = []
    for n in args.sizes:
        for name in args.algorithms:
            row = measure_check(name, n, args.seed, args.repeats)
            row.update(measure_build(name, n, args.seed, 3 if n < 500 else 1))
            if n in args.memory_sizes:
                probe = ["--memory-probe", name, str(n)]
                for variant in ("before", "after"):
                    found = _subprocess_json([*probe, variant, "--seed", str(args.seed)], ROOT)
                    row[f"peak_{variant}_mb"] = found["peak_mb"]
                row["rss_growth_after_mb"] = _subprocess_json([*probe, "after-resident", "--seed", str(args.seed)],
                                                              ROOT)["rss_growth_mb"]
            rows.append(row)
            print(f"n={n:>5} {name:<16} check {_ms(row['check_before_s']):>9} -> {_ms(row['check_after_s']):>9} "
                  f"(first {_ms(row['check_first_after_s'])}), build {_ms(row['build_before_s'])} -> "
                  f"{_ms(row['build_after_s'])}, same answer {row['same_answer']} bound {row['same_bound']}"
                  + (f", peak {row['peak_before_mb']:.1f} -> {row['peak_after_mb']:.1f} MB "
                     f"(rss +{row['rss_growth_after_mb']:.1f} MB)" if "peak_after_mb" in row else ""), flush=True)
    frame = pd.DataFrame(rows)
    pulls = pd.DataFrame({"n": args.sizes, "pull_after_us": [pull_seconds(n, args.seed, args.pulls) * 1e6
                                                             for n in args.sizes]})
    if args.baseline:
        before = baseline_pulls(args.baseline, args.sizes, args.seed, args.pulls)
        pulls["pull_before_us"] = [before[n] * 1e6 for n in args.sizes]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    frame.to_csv(args.out, index=False)
    pulls.to_csv(pulls_path, index=False)
    figure = args.out.with_suffix(".png")
    plot(frame, pulls, figure)
    print("\none stopping check, before -> after (medians; k = n / 10, random support of 4 n):")
    print(issue_table(frame, pulls))
    print(f"\nwritten to {args.out}, {pulls_path} and {figure}")


if __name__ == "__main__":
    main()
