"""Cost of the per-arm (semi-bandit) round machinery: per sample and per round, against n.

Usage (pin BLAS to one thread; every figure of one run is measured side by side):

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 python benchmarks/bench_semi.py

Writes benchmarks/results/semi_costs.csv and semi_costs.png. For n in {100, 1000, 10000}
and a budget of Q = 100 n samples:

* Uniform: one round of Q samples, handed out as one batch (blocks) or one sample at a time
  (``blocks=False``, as a live campaign tells them; only up to 10^5 samples, timed and
  scaled per sample);
* SAR: n - 1 rounds (phases), each one batch of the active arms.

It also writes semi_suite_times.csv: for each per-arm reproduction suite whose results are
committed in benchmarks/results, the seconds its runs took (the sum of the runs' wall
times: the suite's time on one core), per algorithm.

And semi_policy_costs.csv / semi_policy_costs.png: the cost per sample of each algorithm of
the thresholding and fixed-budget top-m papers (issue 11), measured side by side: one run
driven by ask/tell, one sample per pull (a live campaign), against ``POLICY_RUNS`` runs
advanced together by the batched simulations (:func:`fullbandit.semi.sequential.simulate`
for the one-sample-per-step policies, :func:`fullbandit.semi.rounds.simulate_rounds` for
the round-based ones), in microseconds per sample of one run.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd

import fullbandit as fb
from fullbandit.core import registry
from fullbandit.datasets.synthetic import nsar_setup2, tao_setup2
from fullbandit.semi import SAR, Uniform
from fullbandit.semi.batch import BernoulliBatch
from fullbandit.semi.rounds import simulate_rounds
from fullbandit.semi.sequential import SequentialPerArm, simulate

RESULTS = Path(__file__).parent / "results"
NS = (100, 1000, 10_000)
SUITES = ("zhou-fig1", "zhou-rte", "chen-fig1-4", "feedback-cost", "tao-fig1", "shahrampour-fig2",
          "shahrampour-fig3")
SINGLE_SAMPLE_LIMIT = 100_000
#: Issue 11's algorithms: registry name -> options; thresholding ones run on Tao et al.'s
#: setup 2 (K = 20), the top-m ones on Shahrampour and Tarokh's setup 2 (K = 50, M = 2).
THRESHOLDING = {"lsa": {}, "apt": {"epsilon": 0.05}, "ucbe": {"b": 0.0}, "opt-kg": {}, "threshold-uniform": {}}
TOP_M = {"at-lucb": {}, "nsar": {"p": 1.2}, "sar": {}, "uniform": {}}
POLICY_SAMPLES = 20_000
POLICY_RUNS = 1000


def _timed(algorithm, n: int, blocks: bool = True) -> tuple[float, fb.Result]:
    environment = fb.GaussianArms(np.linspace(0.0, 1.0, n), sigma=0.5, feedback="semi", seed=1)
    start = time.perf_counter()
    result = fb.run(algorithm, environment, progress=False, blocks=blocks)
    return time.perf_counter() - start, result


def measure() -> pd.DataFrame:
    rows = []
    for n in NS:
        budget = 100 * n
        seconds, result = _timed(Uniform(fb.TopK(n, n // 10), budget=budget, seed=0), n)
        rows.append({"algorithm": "uniform (one batch)", "n": n, "samples": result.pulls, "rounds": 1,
                     "seconds": seconds, "us_per_sample": 1e6 * seconds / result.pulls, "ms_per_round": 1e3 * seconds})
        single = min(budget, SINGLE_SAMPLE_LIMIT)
        seconds, result = _timed(Uniform(fb.TopK(n, n // 10), budget=single, seed=0), n, blocks=False)
        rows.append({"algorithm": "uniform (one sample per pull)", "n": n, "samples": result.pulls, "rounds": 1,
                     "seconds": seconds, "us_per_sample": 1e6 * seconds / result.pulls, "ms_per_round": np.nan})
        seconds, result = _timed(SAR(fb.TopK(n, n // 10), budget=budget), n)
        rounds = result.constants["rounds"]
        rows.append({"algorithm": "sar (one batch per phase)", "n": n, "samples": result.pulls, "rounds": rounds,
                     "seconds": seconds, "us_per_sample": 1e6 * seconds / result.pulls,
                     "ms_per_round": 1e3 * seconds / rounds})
        print(pd.DataFrame(rows[-3:]).to_string(index=False), flush=True)
    return pd.DataFrame(rows)


def _policy_instance(name: str):
    if name in THRESHOLDING:
        means = tao_setup2().means
        options = dict(THRESHOLDING[name])
        if "hardness" in registry.get(name).options:
            options["hardness"] = float(np.sum((means - 0.5) ** -2.0))
        return fb.Thresholding(means.size, 0.5), means, options
    instance = nsar_setup2(2)
    return fb.TopK(instance.n, 2), instance.means, dict(TOP_M[name])


def policy_costs() -> pd.DataFrame:
    """Microseconds per sample: one ask/tell run with single pulls, against POLICY_RUNS batched runs."""
    rows = []
    for name in [*THRESHOLDING, *TOP_M]:
        if name not in registry.names():
            continue
        problem, means, options = _policy_instance(name)
        algorithm = registry.build(name, problem, budget=POLICY_SAMPLES, seed=0, **options)
        environment = fb.BernoulliTeam(means, feedback="semi", seed=1)
        start = time.perf_counter()
        fb.run(algorithm, environment, progress=False, blocks=False)
        single = time.perf_counter() - start
        batched_algorithm = registry.build(name, problem, budget=POLICY_SAMPLES, seed=0, **options)
        start = time.perf_counter()
        if isinstance(batched_algorithm, SequentialPerArm):
            simulate(batched_algorithm, BernoulliBatch(means), runs=POLICY_RUNS, seed=0, progress=False)
        else:
            simulate_rounds(batched_algorithm, BernoulliBatch(means), runs=POLICY_RUNS, seed=0)
        batched = time.perf_counter() - start
        rows.append({"algorithm": name, "n": problem.n, "samples_per_run": POLICY_SAMPLES,
                     "us_per_sample_single": 1e6 * single / POLICY_SAMPLES,
                     "us_per_sample_batched": 1e6 * batched / (POLICY_SAMPLES * POLICY_RUNS),
                     "speedup": single * POLICY_RUNS / batched})
        print(pd.DataFrame(rows[-1:]).to_string(index=False, header=len(rows) == 1), flush=True)
    return pd.DataFrame(rows)


def plot_policies(frame: pd.DataFrame, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, ax = plt.subplots(figsize=(9, 4))
    positions = np.arange(len(frame))
    ax.bar(positions - 0.2, frame["us_per_sample_single"], width=0.4, label="one run, ask/tell, one sample per pull")
    ax.bar(positions + 0.2, frame["us_per_sample_batched"], width=0.4,
           label=f"{POLICY_RUNS} runs advanced together (per sample of one run)")
    ax.set_xticks(positions, [f"{a}\n(n={n})" for a, n in zip(frame["algorithm"], frame["n"], strict=True)])
    ax.set(yscale="log", ylabel="microseconds per sample", title=f"cost per sample, {POLICY_SAMPLES:,} samples per run")
    ax.legend(fontsize=8)
    ax.grid(True, axis="y", which="both", alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def plot(frame: pd.DataFrame, path: Path) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, axes = plt.subplots(1, 2, figsize=(11, 4))
    for name, group in frame.groupby("algorithm"):
        axes[0].loglog(group["n"], group["us_per_sample"], marker="o", label=name)
        if group["ms_per_round"].notna().any():
            axes[1].loglog(group["n"], group["ms_per_round"], marker="o", label=name)
    axes[0].set(xlabel="n (arms)", ylabel="microseconds per sample", title="cost per sample, Q = 100 n")
    axes[1].set(xlabel="n (arms)", ylabel="milliseconds per round", title="cost per round")
    for ax in axes:
        ax.legend()
        ax.grid(True, which="both", alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def suite_times() -> pd.DataFrame:
    """Seconds of runs per suite and algorithm, from the committed suite CSVs."""
    rows = []
    for suite in SUITES:
        path = RESULTS / f"{suite}.csv"
        if path.exists():
            runs = pd.read_csv(path, usecols=["algorithm", "wall_time"])
            for algorithm, group in runs.groupby("algorithm"):
                rows.append({"suite": suite, "algorithm": algorithm, "runs": len(group),
                             "seconds": float(group["wall_time"].sum())})
    return pd.DataFrame(rows)


def main() -> None:
    RESULTS.mkdir(exist_ok=True)
    times = suite_times()
    if len(times):
        times.to_csv(RESULTS / "semi_suite_times.csv", index=False)
        print(times.groupby("suite")["seconds"].sum().to_string())
    policies = policy_costs()
    policies.to_csv(RESULTS / "semi_policy_costs.csv", index=False)
    plot_policies(policies, RESULTS / "semi_policy_costs.png")
    frame = measure()
    frame.to_csv(RESULTS / "semi_costs.csv", index=False)
    plot(frame, RESULTS / "semi_costs.png")
    print(f"wrote {RESULTS / 'semi_costs.csv'} and {RESULTS / 'semi_costs.png'}")


if __name__ == "__main__":
    main()
