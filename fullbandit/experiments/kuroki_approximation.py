"""Approximation quality and running time of the polynomial algorithms: Kuroki et al. (2020), section 5.

Two suites reproduce the synthetic experiments of section 5 of Kuroki, Xu, Miyauchi, Honda
and Sugiyama, "Polynomial-time algorithms for multiple-arm identification with full-bandit
feedback", Neural Computation 32(9), 2020:

``kuroki-ratio`` (:data:`RATIO_SUITE`, the paper's Figure 1)
    At every stopping check of a run, how close the polynomial maximisers come to the exact
    maxima: SAQM's Algorithm 1 value ``Z_t`` of the confidence-ellipsoid maximisation (CEM)
    against ``OPT_t = max_M ||x_M||^2_{A_t^-1}`` (brute force), and SA-FOA's best value of
    the gap objective (5) found by the first-order search against the exact maximum of (5)
    (enumeration). Ratio and additive error over the first ``rounds`` rounds (100,000 as in
    the paper), for a small and a large planted gap.

``kuroki-time`` (:data:`TIME_SUITE`, the running-time panel of Figures 2/3)
    Seconds per round of the stopping-rule evaluation (least squares, ``C_t`` and the rule)
    against ``n`` with ``k = n / 2``, for SAQM, SA-FOA (heuristic and certified), ICB and
    Exhaustive.

Choices the paper left open (its values were lost in the text conversion) are made here and
stated where they are used: ``n = 10, k = 5`` for the ratio experiment (``C(10, 5) = 252``
super-arms, so both exact maxima are cheap at every check), gaps ``0.1`` (small) and ``0.5``
(large), ``delta = 0.05``, ``epsilon = 0``, noise ``N(0, 1)`` on the observed sum, and the
G-allocation over a random support of ``4 n`` distinct ``k``-subsets (the paper says
"G-allocation" without its candidate set; over *all* ``k``-subsets the G-optimal design is
uniform by symmetry, ``A_t^-1`` is then a combination of ``I`` and ``J`` and every
super-arm has the same width, which would make the CEM trivial).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from fullbandit.core.algorithm import Algorithm, StoppingCheck
from fullbandit.core.loop import run
from fullbandit.experiments.evaluations import METRICS_COLUMN, Evaluation, Instance
from fullbandit.experiments.grid import Factory, Grid, build_registered
from fullbandit.experiments.planted_gap import half_planted_gap_instance, planted_gap_instance
from fullbandit.experiments.plots import plot_metric
from fullbandit.experiments.suite import Suite
from fullbandit.full import SAFOA, SAQM, StaticFullBandit
from fullbandit.full.gap_objective import exact_maximum
from fullbandit.full.qp import brute_force_qp
from fullbandit.linalg.least_squares import LeastSquaresEstimate
from fullbandit.util.validation import InvalidParameterError, check_int

# --- choices for the paper's lost values -------------------------------------------------------
RATIO_N = 10                 # n of Figure 1 (lost): C(10, 5) = 252 super-arms, exact maxima are cheap
RATIO_K = 5
RATIO_GAPS = (0.1, 0.5)      # "small gap" and "large gap" of Figure 1 (values lost)
RATIO_ROUNDS = 100_000       # "the first 100,000 rounds" (kept from the paper)
SIGMA = 1.0                  # N(0, 1) noise on the observed sum (section 5)
DELTA = 0.05                 # lost; the usual value
TIME_NS = (6, 8, 10, 12, 14, 16, 18, 20, 22)  # k = n/2; C(22, 11) = 705,432 super-arms for Exhaustive
TIME_GAP = 0.1
TIME_EXHAUSTIVE_LIMIT = 1_000_000  # above the default limit on purpose: this suite times the blow-up
TIME_REPETITIONS = 3         # timed evaluations per cell (more for fast ones, see evaluate_time)
TIME_MIN_SECONDS = 0.05      # ... until at least this much time was measured (stable small timings)
TIME_MAX_REPETITIONS = 1000
#: The maximum of (5) counts as zero (no super-arm beats M_hat: ratio undefined) below this. The
#: enumeration computes f(M_hat) = 0 through a matrix product whose summation order differs from
#: the one of theta_hat(M_hat), which leaves rounding residues of about 1e-16.
ZERO_TOLERANCE = 1e-9

#: Display names and registry names of the algorithms.
RATIO_ALGORITHMS = {"SAQM": "saqm", "SA-FOA (heuristic)": "safoa-heuristic"}
TIME_ALGORITHMS = {"SAQM": "saqm", "SA-FOA (heuristic)": "safoa-heuristic", "SA-FOA (certified)": "safoa",
                   "ICB": "icb", "Exhaustive": "exhaustive"}


def algorithm_factory(problem, seed, *, name: str, **options) -> Algorithm:
    """A registered full-bandit algorithm (:mod:`fullbandit.core.registry`) with the section 5 settings:
    ``epsilon = 0``, ``delta = 0.05``, G-allocation over a random support (``options`` override)."""
    settings = {"epsilon": 0.0, "delta": DELTA, "allocation": "g-optimal", "support": "random"}
    settings.update(options)
    return build_registered(problem, seed, name=name, **settings)


# === kuroki-ratio: Figure 1 =====================================================================

def ratio_instance(rng, n: int, k: int, min_gap: float, sigma: float, rounds: int) -> Instance:
    """A planted-gap instance (:func:`fullbandit.experiments.planted_gap.planted_gap_instance`) that
    also carries the number of rounds to trace (so ``rounds`` is part of every cell's key)."""
    base = planted_gap_instance(rng, n=n, k=k, min_gap=min_gap, sigma=sigma)
    return Instance(base.problem, base.environment, {"rounds": check_int("rounds", rounds, low=1)})


@dataclass(frozen=True)
class CheckRecord:
    """One stopping check of a traced run and how its maximiser compares with the exact maximum.

    ``approximate``: SAQM's ``Z_t`` or SA-FOA's best value of (5) found; ``exact``: the true
    maximum of the same problem on the same estimate; ``ratio = approximate / exact``
    (``None`` when ``exact <= ZERO_TOLERANCE``, which only SA-FOA meets: ``f(M_hat) = 0`` so
    the maximum of (5) is never negative, and it is zero, up to rounding, once no super-arm
    can beat ``M_hat``, i.e. once the exact rule of Exhaustive would stop);
    ``additive = exact - approximate``. ``by_algorithm``: the check was the algorithm's own
    (before it stopped) rather than one evaluated here after it stopped.
    """

    t: int
    estimate: LeastSquaresEstimate
    check: StoppingCheck
    approximate: float
    exact: float
    ratio: float | None
    additive: float
    by_algorithm: bool


def exact_comparison(algorithm: Algorithm, check: StoppingCheck) -> tuple[float, float]:
    """``(approximate, exact)`` for one check of SAQM (CEM, squared scale) or SA-FOA (objective (5))."""
    estimate: LeastSquaresEstimate = check.estimate
    Q = estimate.gram_inverse
    if isinstance(algorithm, SAQM):
        return float(check.details["Z_t"]), brute_force_qp(Q, algorithm.problem.k)[1]
    if isinstance(algorithm, SAFOA):
        _, value = exact_maximum(algorithm.problem, estimate.theta, Q, check.answer, check.details["C_t"])
        return float(check.details["found_value"]), value
    raise TypeError(f"only SAQM and SA-FOA approximate a maximum, got {type(algorithm).__name__}")


def trace_checks(algorithm: StaticFullBandit, environment, rounds: int) -> list[CheckRecord]:
    """Run ``algorithm`` for exactly ``rounds`` pulls and return a :class:`CheckRecord` per check.

    The run is an ordinary :func:`fullbandit.run` with ``stop_on_rule=False`` and
    ``budget=rounds`` (the algorithm must be built with those), observed through its
    ``on_check`` hook: the records are the algorithm's own checks on its geometric schedule
    (``check_growth``), the last one at ``rounds``. Checks after the rule first fired are
    marked ``by_algorithm=False`` (the paper traces the first 100,000 rounds whether or not
    a rule would have stopped).
    """
    rounds = check_int("rounds", rounds, low=1)
    if algorithm.stop_on_rule or algorithm.budget != rounds:
        raise InvalidParameterError(f"trace_checks needs stop_on_rule=False and budget=rounds={rounds}")
    records: list[CheckRecord] = []
    fired = False

    def record(check: StoppingCheck) -> None:
        nonlocal fired
        approximate, exact = exact_comparison(algorithm, check)
        ratio = approximate / exact if exact > ZERO_TOLERANCE else None
        records.append(CheckRecord(check.pulls, check.estimate, check, approximate, exact, ratio,
                                   exact - approximate, by_algorithm=not fired))
        fired = fired or check.stop

    run(algorithm, environment, progress=False, on_check=record)
    return records


def evaluate_ratio(algorithm: StaticFullBandit, instance: Instance) -> dict:
    """One traced run: summary columns, and the traces in the metrics.

    Metrics ``trace``: ``[t, ratio, additive]`` per check (``ratio`` null where undefined);
    ``values``: ``[t, approximate, exact]`` per check.
    """
    rounds = instance.description["rounds"]
    start = time.perf_counter()
    records = trace_checks(algorithm, instance.environment, rounds)
    wall_time = time.perf_counter() - start
    ratios = np.array([np.nan if r.ratio is None else r.ratio for r in records])
    additive = np.array([r.additive for r in records])
    defined = ratios[~np.isnan(ratios)]
    stops = [r.t for r in records if r.by_algorithm and r.check.stop]
    cem = np.sqrt(defined) if isinstance(algorithm, SAQM) else np.array([])
    return {
        "n": algorithm.problem.n, "k": algorithm.problem.k, "checks": len(records),
        "mean_ratio": float(defined.mean()) if defined.size else math.nan,
        "min_ratio": float(defined.min()) if defined.size else math.nan,
        "final_ratio": float(ratios[-1]),
        "mean_cem_ratio": float(cem.mean()) if cem.size else math.nan,
        "mean_additive": float(additive.mean()), "max_additive": float(additive.max()),
        "undefined_ratios": int(np.isnan(ratios).sum()),
        "stop_round": float(stops[0]) if stops else math.nan,
        "wall_time": wall_time,
        METRICS_COLUMN: {
            "trace": [[r.t, r.ratio, r.additive] for r in records],
            "values": [[r.t, r.approximate, r.exact] for r in records],
        },
    }


RATIO_EVALUATION = Evaluation(
    columns=("n", "k", "checks", "mean_ratio", "min_ratio", "final_ratio", "mean_cem_ratio", "mean_additive",
             "max_additive", "undefined_ratios", "stop_round", "wall_time"),
    evaluate=evaluate_ratio)


def build_ratio_grid(runs, rounds: int = RATIO_ROUNDS, n: int = RATIO_N, k: int = RATIO_K,
                     gaps=RATIO_GAPS, sigma: float = SIGMA) -> Grid:
    """The grid of Figure 1: SAQM and SA-FOA (heuristic) x gaps x ``runs`` seeds.

    Kuroki et al. (2020), section 5, Figure 1. Open choices: see the module docstring
    (``n = 10``, ``k = 5``, gaps 0.1 and 0.5, ``delta = 0.05``, random support of ``4 n``
    with G-allocation); the check schedule is the algorithms' default geometric one
    (``check_growth = 0.05``: about 170 checks over 100,000 rounds; the paper checks every
    round).

    SAQM's ratio does not depend on the rewards: ``Z_t`` and ``OPT_t`` are functions of
    ``A_t^-1`` alone, and a static allocation tracked deterministically makes ``A_t`` a
    function of ``t`` and the support (``A_t ~ t A(p)``). Its curves for the two gaps differ
    only through the random supports (drawn from the cell's seed), and each run's ratio
    settles on a constant once the tracking has converged.
    """
    algorithms = {label: Factory(partial(algorithm_factory, name=name, stop_on_rule=False, budget=rounds))
                  for label, name in RATIO_ALGORITHMS.items()}
    instances = {"planted gap": Factory(partial(ratio_instance, n=n, k=k, sigma=sigma),
                                        {"min_gap": list(gaps), "rounds": [rounds]})}
    return Grid(algorithms, instances, seeds=runs, evaluation=RATIO_EVALUATION)


def _trace_list(value) -> list:
    if isinstance(value, str):
        import json
        return json.loads(value)
    return list(value)


def ratio_curves(frame: pd.DataFrame, points: int = 40) -> pd.DataFrame:
    """Traces put on a common geometric grid of rounds: one row per (run, grid round).

    Runs check at slightly different rounds (their supports differ), so each run's value at
    a grid round is the one of its last check at or before it (what the run knew then).
    Columns: ``algorithm``, ``min_gap``, ``seed``, ``series``, ``round``, ``ratio``, ``additive``.
    """
    traces = [np.array([[row[0], np.nan if row[1] is None else row[1], row[2]] for row in _trace_list(trace)],
                       dtype=float) for trace in frame["trace"]]
    first = max(trace[0, 0] for trace in traces)
    last = min(trace[-1, 0] for trace in traces)
    grid = np.unique(np.round(np.geomspace(first, last, points)))
    rows = []
    for (_, row), trace in zip(frame.iterrows(), traces, strict=True):
        index = np.searchsorted(trace[:, 0], grid, side="right") - 1
        for g, i in zip(grid, index, strict=True):
            rows.append({"algorithm": row["algorithm"], "min_gap": row["min_gap"], "seed": row["seed"],
                         "series": f"{row['algorithm']}, gap {row['min_gap']:g}", "round": g,
                         "ratio": trace[i, 1], "additive": trace[i, 2]})
    return pd.DataFrame(rows)


def plot_ratio(frame: pd.DataFrame, path: Path) -> None:
    """Figure 1: approximation ratio against rounds (log x), and additive errors, mean and 95% band over runs.

    SAQM's additive error ``OPT_t - Z_t`` is on the squared-width scale of ``A_t^-1``
    (it shrinks like ``1/t``) and SA-FOA's on the reward scale of (5), so each has its panel.
    """
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    curves = ratio_curves(frame)
    figure, axes = plt.subplots(1, 3, figsize=(18, 4.8))
    plot_metric(curves.dropna(subset=["ratio"]), "round", "ratio", hue="series", ax=axes[0],
                title="ratio: SAQM Z_t / OPT_t; SA-FOA found / max (5) (runs where max (5) > 0)")
    for ax, (label, name) in zip(axes[1:], RATIO_ALGORITHMS.items(), strict=True):
        subset = curves[curves["algorithm"] == label]
        if subset.empty:
            ax.set_visible(False)
            continue
        unit = "max ||x_M||^2 - Z_t (squared width)" if name == "saqm" else "max f - found (reward scale)"
        plot_metric(subset, "round", "additive", hue="series", ax=ax, title=f"{label}: additive error {unit}")
    axes[0].set_ylim(top=1.02)
    for ax in axes:
        ax.set_xscale("log")
        ax.set_xlabel("round t")
    figure.suptitle(f"Kuroki et al. (2020) Figure 1: n={int(frame['n'].iloc[0])}, k={int(frame['k'].iloc[0])}, "
                    "N(0,1) noise, G-allocation, epsilon=0", y=1.0)
    figure.tight_layout()
    figure.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(figure)


def summarize_ratio(frame: pd.DataFrame) -> pd.DataFrame:
    """Per algorithm and gap: runs, mean and worst ratio, CEM ratio (SAQM), additive errors, stops."""
    return frame.groupby(["algorithm", "min_gap"]).agg(
        runs=("seed", "size"), mean_ratio=("mean_ratio", "mean"), min_ratio=("min_ratio", "min"),
        final_ratio=("final_ratio", "mean"), mean_cem_ratio=("mean_cem_ratio", "mean"),
        mean_additive=("mean_additive", "mean"), max_additive=("max_additive", "max"),
        undefined_ratios=("undefined_ratios", "sum"), checks=("checks", "sum"),
        stopped_runs=("stop_round", lambda s: int(s.notna().sum())), median_stop_round=("stop_round", "median"))


RATIO_SUITE = Suite(
    "kuroki-ratio",
    "Kuroki et al. (2020), section 5, Figure 1: approximation ratio and additive error of SAQM's CEM value Z_t "
    "(vs brute force) and SA-FOA's best value of objective (5) (vs enumeration) at every stopping check over "
    "the first 100,000 rounds; n=10, k=5, planted gaps 0.1 and 0.5, N(0,1) noise, G-allocation, epsilon=0 "
    "(runs continue past a stop).",
    build_ratio_grid, plot_ratio, default_runs=10, summarize=summarize_ratio)


# === kuroki-time: running time per round against n ==============================================

def timed_factory(problem, seed, *, name: str, **options) -> Algorithm:
    """:func:`algorithm_factory` (a size Exhaustive refuses is reported by :func:`evaluate_time`)."""
    return algorithm_factory(problem, seed, name=name, **options)


def evaluate_time(algorithm, instance: Instance, repetitions: int = TIME_REPETITIONS,
                  min_seconds: float = TIME_MIN_SECONDS, max_repetitions: int = TIME_MAX_REPETITIONS) -> dict:
    """Seconds per round of the stopping-rule evaluation after one full pass over the support.

    Pulls every support member once with ``ask``/``tell`` (the algorithm's own first check
    happens then and is not timed), then times :meth:`fullbandit.core.algorithm.Algorithm.stopping_check`
    (least squares, ``C_t`` and the rule together), at least ``repetitions`` times and until ``min_seconds``
    were measured (at most ``max_repetitions``). The paper's algorithms evaluate the rule every
    round, so this is their time per round; ours check on a geometric schedule, which divides
    the amortised cost further. ``pull_seconds``: mean time of one ``ask``/``pull``/``tell``.

    Times depend on the backend: on two cores, ``jobs=2`` measured the fast algorithms about
    twice as slow as a sequential run (the workers share the cores), and Exhaustive faster
    (single-threaded BLAS in the workers); compare algorithms within one run.
    """
    problem = instance.problem
    row = {"n": problem.n, "k": problem.k, "super_arms": problem.size}
    environment = instance.environment
    try:
        algorithm.setup(noise_scale=environment.noise_scale(problem.k))
    except InvalidParameterError as error:
        if algorithm.name != "exhaustive":
            raise
        return {**row, "support_size": math.nan, "seconds_per_round": math.nan, "min_seconds": math.nan,
                "repetitions": 0, "pull_seconds": math.nan, "status": "refused",
                METRICS_COLUMN: {"reason": str(error)}}
    members = len(algorithm.support_arms)
    start = time.perf_counter()
    for _ in range(members - 1):
        pull = algorithm.ask()
        algorithm.tell(pull, environment.pull(pull.arms))
    pull_seconds = (time.perf_counter() - start) / max(members - 1, 1)
    pull = algorithm.ask()
    algorithm.tell(pull, environment.pull(pull.arms))
    times: list[float] = []
    while len(times) < max_repetitions and (len(times) < repetitions or sum(times) < min_seconds):
        begin = time.perf_counter()
        algorithm.stopping_check()
        times.append(time.perf_counter() - begin)
    return {**row, "support_size": members, "seconds_per_round": float(np.mean(times)),
            "min_seconds": float(np.min(times)), "repetitions": len(times), "pull_seconds": pull_seconds,
            "status": "ok", METRICS_COLUMN: {}}


TIME_COLUMNS = ("n", "k", "super_arms", "support_size", "seconds_per_round", "min_seconds", "repetitions",
                "pull_seconds", "status")


def build_time_grid(runs, ns=TIME_NS, repetitions: int = TIME_REPETITIONS, min_gap: float = TIME_GAP,
                    sigma: float = SIGMA, exhaustive_limit: int | None = TIME_EXHAUSTIVE_LIMIT) -> Grid:
    """The running-time grid: five algorithms x ``n`` in ``ns`` (``k = n / 2``) x ``runs`` seeds.

    Kuroki et al. (2020), section 5, running time against ``n`` (Figures 2/3; the sizes were
    lost). Our choices: ``k = n / 2`` and ``n = 6, 8, ..., 22`` (``C(22, 11) = 705,432``
    super-arms: Exhaustive takes about two seconds per round there, within its default
    ``exhaustive_limit`` of 1,000,000 set here above the default enumeration limit, to time the
    exponential growth; a size above ``exhaustive_limit`` is recorded as
    ``status = "refused"`` with no time), planted gap 0.1 (the time does not depend on it),
    ``delta = 0.05``, G-allocation over a random support of ``4 n`` members.
    """
    exhaustive_options = {} if exhaustive_limit is None else {"limit": exhaustive_limit}
    algorithms = {label: Factory(partial(timed_factory, name=name, **(exhaustive_options if name == "exhaustive"
                                                                       else {})))
                  for label, name in TIME_ALGORITHMS.items()}
    instances = {"planted gap": Factory(partial(half_planted_gap_instance, min_gap=min_gap, sigma=sigma),
                                        {"n": list(ns)})}
    evaluation = Evaluation(columns=TIME_COLUMNS, evaluate=partial(evaluate_time, repetitions=repetitions),
                            sweepable=frozenset({"n"}))
    return Grid(algorithms, instances, seeds=runs, evaluation=evaluation)


def plot_time(frame: pd.DataFrame, path: Path) -> None:
    """Seconds per round against ``n`` (log y), mean and 95% band over seeds; refused cells are missing."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    figure, ax = plt.subplots(figsize=(7.5, 5))
    plot_metric(frame.dropna(subset=["seconds_per_round"]), "n", "seconds_per_round", ax=ax, logy=True,
                title="Kuroki et al. (2020): stopping-rule time per round, k = n/2, G-allocation")
    top = ax.twiny()
    ns = sorted(frame["n"].unique())
    top.set_xlim(ax.get_xlim())
    top.set_xticks(ns, [f"{math.comb(int(n), int(n) // 2):,}" for n in ns], rotation=45, fontsize=7)
    top.set_xlabel("super-arms C(n, n/2)")
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)


def summarize_time(frame: pd.DataFrame) -> pd.DataFrame:
    """Mean seconds per round: one row per algorithm, one column per ``n`` (NaN where refused)."""
    return frame.pivot_table(index="algorithm", columns="n", values="seconds_per_round", aggfunc="mean",
                             dropna=False)


TIME_SUITE = Suite(
    "kuroki-time",
    "Kuroki et al. (2020), section 5, running time (Figures 2/3): seconds per round of the stopping-rule "
    "evaluation against n (k = n/2, n = 6..22) for SAQM, SA-FOA (heuristic, certified), ICB and Exhaustive, "
    "planted gap, G-allocation.",
    build_time_grid, plot_time, default_runs=3, summarize=summarize_time)

#: The suites this module declares (gathered by :mod:`fullbandit.experiments.suites`).
SUITES = (RATIO_SUITE, TIME_SUITE)
