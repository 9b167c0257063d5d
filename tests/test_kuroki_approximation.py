"""The kuroki-ratio and kuroki-time suites (Kuroki et al. 2020, section 5, Figures 1-3) on tiny sizes."""

import itertools
import math
import pickle

import numpy as np
import pytest

from fullbandit.design.tracking import Tracker
from fullbandit.experiments import run_grid
from fullbandit.experiments.kuroki_approximation import (
    RATIO_ALGORITHMS,
    RATIO_SUITE,
    TIME_ALGORITHMS,
    TIME_MAX_REPETITIONS,
    TIME_MIN_SECONDS,
    TIME_SUITE,
    ZERO_TOLERANCE,
    algorithm_factory,
    build_ratio_grid,
    build_time_grid,
    ratio_curves,
    ratio_instance,
    summarize_ratio,
    summarize_time,
    trace_checks,
)
from fullbandit.full import SAQM

ROUNDS = 2000
TIME_NS = (6, 16)


@pytest.fixture(scope="module")
def ratio_run(tmp_path_factory):
    """The ratio grid at 2,000 rounds, one run, read back from its CSV (traces went through JSON)."""
    grid = build_ratio_grid(1, rounds=ROUNDS)
    frame = run_grid(grid, out=tmp_path_factory.mktemp("ratio") / "ratio.csv", progress=False)
    return grid, frame


@pytest.fixture(scope="module")
def time_frame():
    return run_grid(build_time_grid(1, ns=TIME_NS, repetitions=3), progress=False)


def _naive_maximum(kind, estimate, k, best=None, radius=None):
    """One super-arm at a time, no shared code with the library's enumerations."""
    Q, theta = estimate.gram_inverse, estimate.theta
    n = len(theta)
    top = -math.inf
    for subset in itertools.combinations(range(n), k):
        x = np.zeros(n)
        x[list(subset)] = 1.0
        if kind == "cem":
            value = float(x @ Q @ x)
        else:
            d = x.copy()
            d[list(best)] -= 1.0
            value = float(theta @ d) + radius * math.sqrt(max(float(d @ Q @ d), 0.0))
        top = max(top, value)
    return top


def _replay(grid, row):
    """The algorithm and instance of the grid cell of ``row``, rebuilt from the cell's seeds."""
    cell = next(c for c in grid.cells() if c.key == row["key"])
    instance = grid.instances[cell.instance].make(np.random.default_rng(cell.instance_seed()),
                                                  **dict(cell.instance_params))
    algorithm = grid.algorithms[cell.algorithm].make(instance.problem, cell.algorithm_seed(),
                                                     **dict(cell.algorithm_params))
    return algorithm, instance


@pytest.mark.slow
def test_ratio_rows_traces_and_bounds(ratio_run):
    _, frame = ratio_run
    assert len(frame) == len(RATIO_ALGORITHMS) * 2
    assert set(frame["min_gap"]) == {0.1, 0.5} and (frame["rounds"] == ROUNDS).all()
    for _, row in frame.iterrows():
        trace = row["trace"]
        assert len(trace) == row["checks"] > 10
        rounds = [t for t, _, _ in trace]
        assert all(b > a for a, b in itertools.pairwise(rounds)) and rounds[-1] == ROUNDS and rounds[0] >= row["n"]
        ratios = [r for _, r, _ in trace if r is not None]
        additive = [a for _, _, a in trace]
        # an approximation can never beat the exact optimum of the same problem
        assert max(ratios) <= 1 + 1e-9 and min(additive) >= -1e-9
        if row["algorithm"] == "SAQM":
            assert min(ratios) > 0 and len(ratios) == len(trace)  # x^T Q x > 0: always defined
            assert row["mean_cem_ratio"] == pytest.approx(np.mean(np.sqrt(ratios)))
        else:
            assert min(ratios) >= 0  # the search starts from M_hat, where (5) is 0
            assert math.isnan(row["mean_cem_ratio"])
        assert row["mean_ratio"] == pytest.approx(np.mean(ratios)) and row["min_ratio"] == pytest.approx(min(ratios))
        assert row["undefined_ratios"] == len(trace) - len(ratios)
        for (t, ratio, error), (t2, approximate, exact) in zip(trace, row["values"], strict=True):
            assert t == t2 and error == pytest.approx(exact - approximate, abs=1e-12)
            assert (ratio is None) == (exact <= ZERO_TOLERANCE)
            if ratio is not None:
                assert ratio == pytest.approx(approximate / exact)


@pytest.mark.slow
@pytest.mark.parametrize("label", list(RATIO_ALGORITHMS))
def test_exact_optimum_matches_an_independent_brute_force(ratio_run, label):
    grid, frame = ratio_run
    row = frame[(frame["algorithm"] == label) & (frame["min_gap"] == 0.1)].iloc[0]
    algorithm, instance = _replay(grid, row)
    records = list(trace_checks(algorithm, instance.environment, ROUNDS))
    # the replay is the grid's run: same checks, same values
    replayed = np.array([[r.t, r.approximate, r.exact] for r in records])
    np.testing.assert_allclose(replayed, np.array(row["values"], dtype=float), rtol=1e-12, atol=1e-15)
    for record in (records[0], records[len(records) // 2], records[-1]):
        if isinstance(algorithm, SAQM):
            naive = _naive_maximum("cem", record.estimate, algorithm.problem.k)
        else:
            naive = _naive_maximum("gap", record.estimate, algorithm.problem.k, record.check.answer,
                                   record.check.details["C_t"])
        assert record.exact == pytest.approx(naive, rel=1e-10, abs=1e-12)
        assert record.approximate <= naive + 1e-12


def test_a_run_that_stops_is_traced_to_the_end():
    # small noise and a large gap: SA-FOA's stopping rule fires long before 2,000 rounds
    instance = ratio_instance(np.random.default_rng(3), n=10, k=5, min_gap=0.5, sigma=0.05, rounds=ROUNDS)
    algorithm = algorithm_factory(instance.problem, 4, name="safoa-heuristic", stop_on_rule=False, budget=ROUNDS)
    records = trace_checks(algorithm, instance.environment, ROUNDS)
    stops = [r for r in records if r.by_algorithm and r.check.stop]
    assert len(stops) == 1 and stops[0].t < ROUNDS // 2
    assert algorithm.done and algorithm.n_pulls == ROUNDS and records[-1].t == ROUNDS
    after = [r for r in records if r.t > stops[0].t]
    assert after and not any(r.by_algorithm for r in after)
    assert all(r.additive >= -1e-9 for r in records)
    # past the stop the pulls follow the static allocation, as before it
    tracker = Tracker(algorithm._proportions)
    for _ in range(ROUNDS):
        tracker.advance()
    np.testing.assert_array_equal(algorithm._design.counts, tracker.counts)


@pytest.mark.slow
def test_ratio_plot_and_summary(ratio_run, tmp_path):
    _, frame = ratio_run
    summary = summarize_ratio(frame)
    assert len(summary) == len(RATIO_ALGORITHMS) * 2
    assert set(summary.index.get_level_values("algorithm")) == set(RATIO_ALGORITHMS)
    # one run per cell: the summary is that run's row
    for _, row in frame.iterrows():
        line = summary.loc[(row["algorithm"], row["min_gap"])]
        assert line["runs"] == 1 and line["checks"] == row["checks"]
        assert line["undefined_ratios"] == row["undefined_ratios"]
        for column in ("mean_ratio", "min_ratio", "max_additive"):
            assert line[column] == pytest.approx(row[column], nan_ok=True)
    curves = ratio_curves(frame)
    assert curves["round"].max() == ROUNDS and set(curves["series"].str.contains("gap"))
    path = tmp_path / "ratio.png"
    RATIO_SUITE.plot(frame, path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 20_000


@pytest.mark.slow
def test_time_suite_positive_times_and_exhaustive_explodes(time_frame):
    frame = time_frame
    assert len(frame) == len(TIME_ALGORITHMS) * len(TIME_NS)
    assert (frame["status"] == "ok").all()
    # timed until TIME_MIN_SECONDS were measured (at least 3 times, at most TIME_MAX_REPETITIONS)
    measured = frame["seconds_per_round"] * frame["repetitions"]
    assert ((measured >= TIME_MIN_SECONDS * (1 - 1e-9)) | (frame["repetitions"] == TIME_MAX_REPETITIONS)).all()
    assert (frame["repetitions"] >= 3).all() and (frame["k"] == frame["n"] // 2).all()
    times = frame.pivot_table(index="algorithm", columns="n", values="min_seconds")
    growth = times[TIME_NS[-1]] / times[TIME_NS[0]]
    # C(16, 8) / C(6, 3) = 643 times the super-arms: Exhaustive's enumeration grows with them,
    # SAQM's per-round work (an n x n eigen-decomposition and peeling) barely moves
    assert growth["Exhaustive"] > 10 and growth["Exhaustive"] > 4 * growth["SAQM"]


@pytest.mark.slow
def test_time_plot_summary_and_refusal(time_frame, tmp_path):
    summary = summarize_time(time_frame)
    assert sorted(summary.index) == sorted(TIME_ALGORITHMS) and list(summary.columns) == list(TIME_NS)
    path = tmp_path / "time.png"
    TIME_SUITE.plot(time_frame, path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 20_000
    # a size above Exhaustive's enumeration limit is a missing point, not a crash
    refused = run_grid(build_time_grid(1, ns=(6, 8), repetitions=1, exhaustive_limit=30), progress=False)
    exhaustive = refused[refused["algorithm"] == "Exhaustive"].set_index("n")
    assert exhaustive.loc[6, "status"] == "ok" and exhaustive.loc[8, "status"] == "refused"
    assert math.isnan(exhaustive.loc[8, "seconds_per_round"])
    assert math.isnan(summarize_time(refused).loc["Exhaustive", 8])
    TIME_SUITE.plot(refused, tmp_path / "refused.png")


def test_suites_are_picklable_and_described():
    for suite, runs in ((RATIO_SUITE, 10), (TIME_SUITE, 3)):
        assert suite.default_runs == runs and "Kuroki" in suite.description
        grid = suite.build(2)
        assert pickle.loads(pickle.dumps(grid)).cells() == grid.cells()
    assert {c.instance_params for c in RATIO_SUITE.build(1).cells()} == {
        (("min_gap", 0.1), ("rounds", 100_000)), (("min_gap", 0.5), ("rounds", 100_000))}
