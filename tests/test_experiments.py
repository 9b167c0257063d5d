"""The experiment runner: backend-independent results, resumable files, plots, registered algorithms."""

import math
import os
import signal
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from experiment_factories import comparable_rows, failing_instance, regret_metric, saqm, two_level_instance
from scipy import stats

from fullbandit.core import registry
from fullbandit.core.algorithm import Algorithm, StoppingCheck
from fullbandit.core.params import SEED, Interval
from fullbandit.experiments import Factory, Grid, run_grid
from fullbandit.experiments.evaluations import BANDIT, evaluate_bandit
from fullbandit.experiments.plots import mean_with_band, plot_error_rates, plot_metric, wilson_interval
from fullbandit.experiments.store import ResultStore
from fullbandit.util.validation import InvalidParameterError

SEEDS = 6


class OneTeam(Algorithm):
    """A tiny algorithm for the tests: pulls the first ``k`` arms ``budget`` times, answers the ``k`` from ``first``.

    Module-level, so worker processes can import it; registered only by the tests that use it.
    """

    name = "one-team-test"
    summary = "one team pulled, another answered (tests)"
    feedback = "full"
    setting = "fixed-budget"
    parameter_constraints = {"budget": [Interval(int, 1, None)], "first": [Interval(int, 0, None)], "seed": [SEED]}

    def __init__(self, problem, *, budget: int = 3, first: int = 0, seed=None):
        self.problem = problem
        self.budget = budget
        self.first = first
        self.seed = seed

    def _build(self, rng, noise_scale):
        pass  # nothing is estimated

    def _next_pull(self, max_count):
        return tuple(range(self.problem.k)), 1, None

    def _record(self, token, arms, count, reward):
        pass

    def _release(self, token, count):
        pass

    def _due_for_check(self):
        return False  # fixed budget: the base evaluates once, when the budget is spent

    def _evaluate(self):
        return StoppingCheck(self._told, math.inf, 0.0, tuple(range(self.first, self.first + self.problem.k)), False)


@pytest.fixture
def one_team():
    spec = registry.register(OneTeam)
    yield spec
    registry.unregister(spec.name)


def _grid(**instance_options):
    instance = partial(two_level_instance, **instance_options) if instance_options else two_level_instance
    return Grid(algorithms={"saqm": Factory(saqm, {"epsilon": [0.0, 0.1]})},
                instances={"two-level": Factory(instance, {"n": [4, 5], "separation": [0.3]})},
                seeds=SEEDS, metrics=regret_metric)


def test_rows_are_complete_and_tidy():
    frame = run_grid(_grid(), progress=False)
    assert len(frame) == 2 * 2 * SEEDS
    assert frame["key"].is_unique
    assert set(frame["epsilon"]) == {0.0, 0.1} and set(frame["n"]) == {4, 5}
    # metrics and instance descriptions become columns, and they are right
    assert (frame["double_pulls"] == 2 * frame["pulls"]).all()
    assert (frame["simple_regret"] == frame["gap"]).all()
    assert np.allclose(frame["top_mean"], 0.5)
    assert ((frame["gap"] == 0) == frame["correct"]).all()
    assert ((frame["precision"] == 1.0) == (frame["answer"] == frame["best"])).all()


@pytest.mark.slow
def test_same_grid_same_rows_sequential_processes_and_dask(tmp_path):
    distributed = pytest.importorskip("distributed", reason="dask.distributed is a test dependency")
    sequential = run_grid(_grid(), backend="sequential", out=tmp_path / "seq.csv", progress=False)
    processes = run_grid(_grid(), backend="processes", jobs=2, out=tmp_path / "proc.csv", progress=False)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        dask = run_grid(_grid(), backend="dask", scheduler=client, out=tmp_path / "dask.csv", progress=False)
    pd.testing.assert_frame_equal(comparable_rows(sequential), comparable_rows(processes))
    pd.testing.assert_frame_equal(comparable_rows(sequential), comparable_rows(dask))


@pytest.mark.slow
def test_in_memory_and_file_results_agree(tmp_path):
    in_memory = run_grid(_grid(), progress=False)
    on_file = run_grid(_grid(), out=tmp_path / "r.csv", progress=False)
    pd.testing.assert_frame_equal(comparable_rows(in_memory), comparable_rows(on_file), check_dtype=False)


def test_instances_and_noise_are_shared_across_algorithms():
    # Common random numbers: the same instance seed gives the same means for every algorithm.
    frame = run_grid(_grid(), progress=False)
    bests = frame.pivot_table(index=["n", "seed"], columns="epsilon", values="best", aggfunc="first")
    assert (bests[0.0] == bests[0.1]).all()


@pytest.mark.slow
def test_an_interrupted_grid_resumes_without_duplicates_or_losses(tmp_path):
    flag = tmp_path / "crash"
    flag.write_text("")
    out = tmp_path / "results.csv"
    grid = _grid(fail_flag=str(flag))
    grid = Grid(grid.algorithms, {"two-level": Factory(partial(failing_instance, fail_flag=str(flag)),
                                                       {"n": [4, 5], "separation": [0.3]})},
                seeds=SEEDS, metrics=regret_metric)
    with pytest.raises(RuntimeError, match="simulated crash"):
        run_grid(grid, out=out, progress=False)
    partial_rows = pd.read_csv(out)
    assert 0 < len(partial_rows) < 2 * 2 * SEEDS
    flag.unlink()
    resumed = run_grid(grid, out=out, progress=False)
    assert len(resumed) == 2 * 2 * SEEDS and resumed["key"].is_unique
    assert len(pd.read_csv(out)) == 2 * 2 * SEEDS  # nothing written twice
    # rows written before the crash are kept as they were, and equal a clean run's (matched by grid point and seed:
    # the crash flag is a fixed option of this grid's instances, so its keys name it and the clean grid's do not)
    run = ["epsilon", "n", "seed"]
    reference = run_grid(_grid(), progress=False).set_index(run)
    kept = resumed.set_index("key").loc[partial_rows["key"]].set_index(run)
    assert (kept["pulls"] == reference.loc[kept.index, "pulls"]).all()
    assert set(resumed["answer"]) and (resumed.set_index(run)["pulls"] == reference["pulls"]).all()


def test_a_cut_last_line_is_dropped_and_rerun(tmp_path):
    out = tmp_path / "results.csv"
    complete = run_grid(_grid(), out=out, progress=False)
    text = out.read_text()
    out.write_text(text[: text.rstrip("\n").rfind("\n") + 1] + text.rstrip("\n").splitlines()[-1][:25])
    with pytest.warns(UserWarning, match=rf"dropped 1 line cut off by a killed run \(line {len(complete) + 1}"):
        repaired = run_grid(_grid(), out=out, progress=False)
    assert len(repaired) == len(complete) and repaired["key"].is_unique
    pd.testing.assert_frame_equal(comparable_rows(repaired), comparable_rows(complete))


def test_a_file_of_another_grid_is_refused(tmp_path):
    out = tmp_path / "results.csv"
    ResultStore(out, ["key", "something", "else"])
    with pytest.raises(ValueError, match="holds results of a different grid"):
        run_grid(_grid(), out=out, progress=False)


@pytest.mark.parametrize("kwargs, match", [
    (dict(backend="threads"), "backend='threads' is not one of the allowed values"),
    (dict(jobs=0), "jobs=0 must satisfy 1 <= jobs"),
    (dict(backend="dask"), r"^backend='dask' needs a cluster: give scheduler= \(an address such as "
                           r"'tcp://host:8786', or a Client\), start a distributed.Client before run_grid, or set "
                           r"DASK_SCHEDULER_ADDRESS$"),
    (dict(backend="dask", jobs=2, scheduler="tcp://127.0.0.1:1"),
     "^jobs=2 sets the number of local processes; with backend='dask' the cluster's workers run the grid"),
    (dict(backend="processes", scheduler="tcp://127.0.0.1:1"),
     "^scheduler= names a Dask cluster, but backend='processes'"),
])
def test_bad_runner_arguments(kwargs, match, tmp_path):
    dask = pytest.importorskip("dask", reason="dask is a test dependency")
    with dask.config.set({"scheduler-address": None}), pytest.raises(InvalidParameterError, match=match):
        run_grid(_grid(), progress=False, out=tmp_path / "r.csv", **kwargs)
    assert not (tmp_path / "r.csv").exists()  # refused before the file is made


def test_a_grid_measures_identification_runs_unless_given_another_evaluation():
    assert _grid().evaluation is BANDIT
    with pytest.raises(TypeError, match="evaluation must be an Evaluation, got function"):
        Grid({"saqm": Factory(saqm)}, {"x": Factory(two_level_instance)}, evaluation=evaluate_bandit)


def test_parameter_names_may_not_clash():
    grid = Grid({"saqm": Factory(saqm, {"pulls": [1]})}, {"x": Factory(two_level_instance, {"n": [4]})})
    with pytest.raises(ValueError, match=r"\['pulls'\]"):
        run_grid(grid, progress=False)


def test_mean_band_and_wilson_interval_match_closed_forms():
    values = np.array([1.0, 2.0, 4.0, 7.0])
    mean, low, high = mean_with_band(values, 0.9)
    half = stats.norm.ppf(0.95) * values.std(ddof=1) / math.sqrt(4)
    assert (mean, low, high) == pytest.approx((3.5, 3.5 - half, 3.5 + half))
    for successes, trials in [(0, 20), (3, 50), (50, 50), (17, 40)]:
        expected = stats.binomtest(successes, trials).proportion_ci(0.95, method="wilson")
        assert wilson_interval(successes, trials) == pytest.approx((expected.low, expected.high))


@pytest.mark.slow
def test_plots_draw_one_line_per_algorithm_and_one_bar_per_algorithm(tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    frame = run_grid(_grid(), progress=False)
    frame["label"] = frame["epsilon"].map(lambda e: f"eps={e}")
    figure, (left, right) = plt.subplots(1, 2)
    plot_metric(frame, "n", "pulls", hue="label", ax=left)
    assert len(left.lines) == 2
    for line, (_, group) in zip(left.lines, frame.groupby("label"), strict=True):
        assert list(line.get_ydata()) == pytest.approx(list(group.groupby("n")["pulls"].mean()))
    frame.loc[frame.index[:3], "correct"] = False
    plot_error_rates(frame, success="correct", by="label", ax=right)
    heights = [patch.get_height() for patch in right.patches]
    expected = [1 - frame[frame["label"] == label]["correct"].mean() for label in sorted(frame["label"].unique())]
    assert heights == pytest.approx(expected)
    figure.savefig(tmp_path / "f.png")
    assert (tmp_path / "f.png").stat().st_size > 1000
    plt.close(figure)
    with pytest.raises(ValueError, match="not in the results"):
        plot_metric(frame, "n", "nonexistent")


def test_missing_values_survive_the_file(tmp_path):
    store = ResultStore(tmp_path / "r.csv", ["key", "value", "metrics"])
    store.append({"key": "a", "value": float("nan"), "metrics": {}})
    store.append({"key": "b", "value": 2.5, "metrics": {"x": 1}})
    frame = store.read()
    assert frame["value"].dtype.kind == "f" and np.isnan(frame["value"][0]) and frame["value"][1] == 2.5


def test_a_damaged_file_is_refused_before_any_run(tmp_path):
    out = tmp_path / "results.csv"
    run_grid(_grid(), out=out, progress=False)
    lines = out.read_text().splitlines(keepends=True)
    lines[3] = lines[3].replace('"{', '"[', 1)  # garbage in the metrics of line 4
    out.write_text("".join(lines))
    flag = tmp_path / "calls"
    flag.write_text("")  # failing_instance counts its calls here (and never reaches its 6th)
    grid = Grid(_grid().algorithms, {"two-level": Factory(partial(failing_instance, fail_flag=str(flag)),
                                                          {"n": [4, 5], "separation": [0.3]})},
                seeds=SEEDS, metrics=regret_metric)
    with pytest.raises(InvalidParameterError, match=r"results.csv has 1 damaged line: line 4: column 'metrics'"):
        run_grid(grid, out=out, progress=False)
    assert flag.read_text() == ""  # no instance was built
    assert out.read_text() == "".join(lines)


def test_a_sweep_mixing_numbers_and_words_is_refused_when_stored(tmp_path):
    grid = Grid({"saqm": Factory(saqm, {"epsilon": [0.0, "auto", None]})},
                {"two-level": Factory(two_level_instance, {"n": [4], "separation": [0.3]})}, seeds=1)
    with pytest.raises(InvalidParameterError, match=r"swept parameter 'epsilon' mixes number and text values"):
        run_grid(grid, out=tmp_path / "r.csv", progress=False)
    assert not (tmp_path / "r.csv").exists()


def test_sigterm_handler_is_installed_only_while_the_grid_runs():
    seen = []

    def saqm_noting_the_handler(problem, seed):
        seen.append(signal.getsignal(signal.SIGTERM))
        return saqm(problem, seed)

    grid = Grid({"saqm": Factory(saqm_noting_the_handler)},
                {"two-level": Factory(two_level_instance, {"n": [4], "separation": [0.3]})}, seeds=1)
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    run_grid(grid, progress=False)
    assert seen and seen[0] is not signal.SIG_DFL and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    # A handler installed by the caller is left alone.
    def own_handler(signum, frame):
        pass
    previous = signal.signal(signal.SIGTERM, own_handler)
    try:
        seen.clear()
        run_grid(grid, progress=False)
        assert seen == [own_handler] and signal.getsignal(signal.SIGTERM) is own_handler
    finally:
        signal.signal(signal.SIGTERM, previous)



@pytest.mark.slow
@pytest.mark.parametrize("backend", ["sequential", "processes"])
def test_a_newly_registered_algorithm_runs_in_a_grid_with_any_declared_parameter(one_team, backend):
    # The worker processes have their own registry, without this program's entry.
    grid = Grid({"defaults": "one-team-test",
                 "chosen": Factory.registered("one-team-test", {"first": [1, 2]}, budget=5)},
                {"two-level": Factory(two_level_instance, {"n": [4], "separation": [0.3]})}, seeds=1)
    frame = run_grid(grid, backend=backend, jobs=1, progress=False)
    rows = {(row.algorithm, None if math.isnan(row.first) else int(row.first)): (row.pulls, row.answer)
            for row in frame.itertuples()}
    assert OneTeam.parameter_defaults() == {"budget": 3, "first": 0, "seed": None}
    assert rows == {("defaults", None): (3, "0"), ("chosen", 1): (5, "1"), ("chosen", 2): (5, "2")}
    assert set(frame["stop_reason"]) == {"budget exhausted"}


def test_a_registered_algorithm_takes_its_declared_parameters_only_checked_before_any_run(one_team):
    with pytest.raises(InvalidParameterError, match="one-team-test takes no parameter 'epsilon'; its options are "
                                                    "budget, first, seed"):
        Factory.registered("one-team-test", epsilon=0.1)
    with pytest.raises(InvalidParameterError, match="one-team-test: first=-1 must be an int >= 0"):
        Factory.registered("one-team-test", {"first": [1, -1]})
    with pytest.raises(TypeError, match="one-team-test: budget='many' must be"):
        Factory.registered("one-team-test", budget="many")
    with pytest.raises(InvalidParameterError, match="seed is not a grid parameter"):
        Factory.registered("one-team-test", {"seed": [1, 2]})
    with pytest.raises(InvalidParameterError, match=r"\['first'\] are both fixed and swept"):
        Factory.registered("one-team-test", {"first": [1]}, first=2)
    with pytest.raises(InvalidParameterError, match="'no-such-algorithm' is not one of the registered"):
        Grid({"missing": "no-such-algorithm"}, {"two-level": Factory(two_level_instance)})


def test_a_rerun_with_another_fixed_option_runs_its_own_cells(tmp_path):
    # The fixed options are part of each run's key: a grid rerun into the same file with another epsilon must not
    # take the first grid's rows as its own (it once did: only swept options were in the key).
    out = tmp_path / "results.csv"

    def grid(epsilon):
        return Grid({"icb": Factory.registered("icb", epsilon=epsilon)},
                    {"two-level": Factory(two_level_instance, {"n": [4], "separation": [0.3]})}, seeds=2)

    first = run_grid(grid(0.0), out=out, progress=False)
    second = run_grid(grid(0.2), out=out, progress=False)
    assert set(first["key"]).isdisjoint(second["key"])
    assert len(pd.read_csv(out)) == 4  # both grids' rows kept
    clean = run_grid(grid(0.2), progress=False)  # in memory: the same runs, made afresh
    columns = ["key", "pulls", "answer", "best", "epsilon"]
    assert second[columns].to_dict("records") == clean[columns].to_dict("records")
    # the seeds depend on the swept parameters only: the same instances and noise meet both settings
    assert (first["best"].to_numpy() == second["best"].to_numpy()).all()


def test_run_keys_are_the_same_in_every_process(tmp_path):
    # A fixed option may be a function, a partial of one or a set: the key must not carry a memory address or a
    # hash order, or a resumed run in a new process would take no finished row as its own.
    import subprocess
    import sys
    import textwrap

    script = textwrap.dedent("""
        from functools import partial
        from experiment_factories import saqm, two_level_instance
        from fullbandit.experiments import Factory, Grid
        make = partial(saqm, epsilon=0.1)
        grid = Grid({"saqm": Factory(partial(make, epsilon=0.2))},
                    {"two-level": Factory(partial(two_level_instance, n=4),
                                          {"separation": [0.3]})}, seeds=1)
        grid.algorithms["saqm"].make.keywords.update(build=make, tags={"a", "b", "c"}, function=print)
        print(grid.cells()[0].key)
    """)
    tests = str(Path(__file__).resolve().parent)
    keys = {subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=tests,
                           env={**os.environ, "PYTHONHASHSEED": str(seed), "PYTHONPATH": tests}).stdout
            for seed in (1, 2, 3)}
    assert len(keys) == 1
    [key] = keys
    assert "0x" not in key and "experiment_factories.saqm" in key and '["a", "b", "c"]' in key
