"""Grids run from anywhere: factories of a notebook, stdin or a script without a ``__main__`` guard
run on local processes and on Dask with the sequential backend's rows; a lost worker stops the
grid at once (local processes) or costs only its runs in flight (Dask); the experiments page's
snippet runs as a script."""

import collections
import contextlib
import csv
import importlib
import os
import re
import signal
import subprocess
import sys
import threading
from functools import partial
from pathlib import Path

import pandas as pd
import pytest
from experiment_factories import comparable_rows, logged_instance, saqm, two_level_instance
from waiting import wait_until

from fullbandit.experiments import Factory, Grid, run_grid
from fullbandit.util.validation import InvalidParameterError

EXPERIMENTS_PAGE = Path(__file__).resolve().parents[1] / "docs" / "experiments.md"
TESTS = Path(__file__).resolve().parent
# A bound on a subprocess's grid (seconds): a respawn loop or a hang fails the test instead of
# stalling it; generous, as a loaded 2-core machine is slow to start workers.
SUBPROCESS_TIMEOUT = 180


def _run_python(arguments, *, stdin=None, env=None, cwd=None) -> subprocess.CompletedProcess:
    """Run ``python ARGUMENTS`` in a session of its own; on timeout kill it with all its processes and fail."""
    environment = {**os.environ, **(env or {})}
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))
    process = subprocess.Popen([sys.executable, *arguments], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, env=environment, cwd=cwd, start_new_session=True)
    try:
        out, err = process.communicate(stdin, timeout=SUBPROCESS_TIMEOUT)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        pytest.fail(f"python {' '.join(arguments)} still ran after {SUBPROCESS_TIMEOUT} s:\n{err[-3000:]}")
    finally:
        with contextlib.suppress(ProcessLookupError):  # nothing left behind, even on failure
            os.killpg(process.pid, signal.SIGKILL)
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


# --- a notebook's, stdin's or an unguarded script's factories -----------------------------------

# Everything at top level, no ``if __name__ == "__main__":`` guard, as a notebook cell or a quick
# script is written: the instance is a ``def`` of ``__main__``, the algorithm a lambda using ``fb.``.
# GRID_BACKEND picks the backend; GRID_CLIENT, if set, is a scheduler to start a Client on first
# (an active client, as in a notebook).
UNGUARDED = '''
import os
import sys

import numpy as np

import fullbandit as fb
from fullbandit.experiments import Factory, Grid, Instance, run_grid


def line(rng, n, spread):
    means = np.linspace(0.0, 1.0 - spread, n)
    means[-1] = 1.0
    return Instance(fb.TopK(n, 1), fb.GaussianSum(rng.permutation(means), sigma=0.1, seed=rng))


grid = Grid({"saqm": Factory(lambda problem, seed: fb.SAQM(problem, seed=seed))},
            {"line": Factory(line, {"n": [3, 4], "spread": [0.5]})}, seeds=3)
backend = os.environ["GRID_BACKEND"]
if os.environ.get("GRID_CLIENT"):
    from distributed import Client
    client = Client(os.environ["GRID_CLIENT"])
frame = run_grid(grid, backend=backend, jobs=2 if backend == "processes" else None, progress=False)
# What is compared is what the rows computed: not when, nor which copy of fullbandit ran them (this
# script may import an installed copy, a test's cluster the checkout's, whose commit is known).
from fullbandit.experiments.provenance import PROVENANCE_COLUMNS
sys.stdout.write(frame.drop(columns=["wall_time", *PROVENANCE_COLUMNS]).to_csv(index=False))
'''


@pytest.mark.slow
def test_a_notebook_lambda_runs_on_local_processes_with_the_sequential_rows():
    # A notebook's functions belong to __main__, which worker processes cannot import: they travel by value.
    notebook = {"__name__": "__main__"}
    exec(compile(UNGUARDED.split("backend = ")[0], "<notebook cell>", "exec"), notebook)
    grid = notebook["grid"]
    assert grid.algorithms["saqm"].make.__module__ == "__main__" == grid.instances["line"].make.__module__
    processes = run_grid(grid, backend="processes", jobs=2, progress=False)
    sequential = run_grid(grid, progress=False)
    assert len(sequential) == 6
    pd.testing.assert_frame_equal(comparable_rows(processes), comparable_rows(sequential))


@pytest.fixture(scope="module")
def sequential_rows(tmp_path_factory):
    script = tmp_path_factory.mktemp("sequential") / "grid.py"
    script.write_text(UNGUARDED)
    done = _run_python([str(script)], env={"GRID_BACKEND": "sequential"})
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def cluster():
    """A Dask cluster whose workers are processes of their own."""
    distributed = pytest.importorskip("distributed", reason="dask.distributed is a test dependency")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as local:
        yield local


# How the grid reaches its backend: (backend, how the code is run, how Dask finds the cluster).
WAYS = [("processes", "script", None), ("processes", "stdin", None),
        ("dask", "script", "DASK_SCHEDULER_ADDRESS"), ("dask", "stdin", "active Client")]


@pytest.mark.slow
@pytest.mark.parametrize("backend, how, finding", WAYS, ids=["-".join(filter(None, way)) for way in WAYS])
def test_an_unguarded_script_or_stdin_runs_in_parallel_with_the_sequential_rows(
        request, tmp_path, sequential_rows, backend, how, finding):
    env = {"GRID_BACKEND": backend}
    if backend == "dask":
        address = request.getfixturevalue("cluster").scheduler_address
        env.update({"DASK_SCHEDULER_ADDRESS": address} if finding == "DASK_SCHEDULER_ADDRESS"
                   else {"GRID_CLIENT": address})
    script = tmp_path / "grid.py"
    script.write_text(UNGUARDED)
    if how == "script":
        done = _run_python([str(script)], env=env, cwd=tmp_path)
    else:
        done = _run_python(["-"], stdin=UNGUARDED, env=env, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout == sequential_rows
    assert "Traceback" not in done.stderr  # no worker ran the script again and failed


def test_a_factory_that_cannot_be_sent_is_refused_before_any_run(tmp_path):
    lock = threading.Lock()
    log = tmp_path / "executions"

    def instance(rng, n):
        with lock:  # a lock cannot be pickled, so neither can this function
            return logged_instance(rng, n, 0, str(log))

    grid = Grid({"saqm": Factory(saqm)}, {"locked": Factory(instance, {"n": [4]})}, seeds=2)
    with pytest.raises(InvalidParameterError, match=re.escape(
            "the grid's instances['locked'] cannot be sent to worker processes (TypeError: cannot pickle "
            "'_thread.lock' object)") + r".*create objects such as open files, locks or connections inside the "
            r"function, or run with backend='sequential'$"):
        run_grid(grid, backend="processes", jobs=2, progress=False)
    assert not log.exists()  # no run started
    assert len(run_grid(grid, progress=False)) == 2  # it runs where it was made


# --- a worker that dies -------------------------------------------------------------------------

# Cell n=5 ends its worker process abruptly, as the kernel's out-of-memory killer would.
DYING = '''
import os
import sys

from experiment_factories import saqm, two_level_instance

from fullbandit.experiments import Factory, Grid, run_grid


def instance(rng, n):
    if n == 5:
        os._exit(9)
    return two_level_instance(rng, n, 0.3)


grid = Grid({"saqm": Factory(saqm)}, {"line": Factory(instance, {"n": [3, 4, 5, 6]})}, seeds=1)
run_grid(grid, backend="processes", jobs=1, out=sys.argv[1], progress=False)
'''


@pytest.mark.slow
def test_a_worker_that_dies_stops_the_grid_at_once_naming_its_cell(tmp_path):
    out = tmp_path / "rows.csv"
    done = _run_python(["-", str(out)], stdin=DYING)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]  # the error, on one line
    assert last.startswith('fullbandit.experiments.backends.WorkerLostError: a worker process ended during a run, '
                           'so the grid stops (cells in flight: saqm|{}|line|{"n": 5}|0|0). Runs finished before '
                           'are kept (with out=, a rerun resumes).'), last
    assert list(pd.read_csv(out)["n"]) == [3, 4]  # one worker: the cells before it, in order


# --- Dask ---------------------------------------------------------------------------------------


def _small_grid():
    return Grid({"saqm": Factory(saqm)}, {"two-level": Factory(two_level_instance, {"n": [4, 5], "separation": [0.3]})},
                seeds=2)


def test_dask_runs_on_the_active_client_or_the_configured_scheduler_address():
    dask = pytest.importorskip("dask", reason="dask is a test dependency")
    distributed = pytest.importorskip("distributed", reason="dask.distributed is a test dependency")
    sequential = run_grid(_small_grid(), progress=False)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False, dashboard_address=None) as local:
        with dask.config.set({"scheduler-address": local.scheduler_address}):  # what DASK_SCHEDULER_ADDRESS sets
            by_address = run_grid(_small_grid(), backend="dask", progress=False)
        with pytest.raises(ValueError):
            distributed.default_client()  # the client run_grid opened for the address is closed
        with distributed.Client(local) as client:
            by_client = run_grid(_small_grid(), backend="dask", progress=False)
            assert client.status == "running"  # the caller's client is left open
    pd.testing.assert_frame_equal(comparable_rows(by_address), comparable_rows(sequential))
    pd.testing.assert_frame_equal(comparable_rows(by_client), comparable_rows(sequential))


@pytest.mark.slow
def test_dask_workers_of_another_version_are_refused_before_any_run(cluster, tmp_path):
    distributed = pytest.importorskip("distributed")
    import fullbandit

    log = tmp_path / "executions"
    grid = Grid({"saqm": Factory(saqm)}, {"logged": Factory(partial(logged_instance, log=str(log)),
                                                            {"n": [4], "run": [0, 1]})}, seeds=1)

    def set_version(version):
        importlib.import_module("fullbandit.util.version").__version__ = version

    with distributed.Client(cluster) as client:
        client.run(set_version, "0.0.1-worker")
        try:
            with pytest.raises(InvalidParameterError, match=re.escape(
                    "the Dask workers must run the versions of fullbandit and numpy this process runs (their rows "
                    f"would differ): worker {sorted(client.scheduler_info()['workers'])[0]} has fullbandit "
                    f"0.0.1-worker, this process {fullbandit.__version__}; worker ")):
                run_grid(grid, backend="dask", scheduler=client, progress=False)
        finally:
            client.run(set_version, fullbandit.__version__)
        assert not log.exists()  # no run started
        assert len(run_grid(grid, backend="dask", scheduler=client, progress=False)) == 2  # same versions: runs


def _stored_runs(out: Path) -> list[int]:
    """The ``run`` column of the whole lines of ``out`` (a line being written is not yet a row)."""
    try:
        text = out.read_text()
    except FileNotFoundError:
        return []
    lines = text[: text.rfind("\n") + 1].splitlines()
    return [int(row["run"]) for row in csv.DictReader(lines)]


def _held_results(dask_scheduler) -> list:
    return [str(task.key) for task in dask_scheduler.tasks.values() if task.state == "memory"]


@pytest.mark.slow
def test_a_lost_dask_worker_costs_only_its_runs_in_flight(tmp_path):
    """Kill a worker once some rows are stored: none of the finished runs is computed again."""
    distributed = pytest.importorskip("distributed", reason="dask.distributed is a test dependency")
    free, gated = 8, 4  # runs 0-7 run at once; runs 8-11 wait for the gate, so some are in flight at the kill
    log, gate, out = tmp_path / "executions", tmp_path / "gate", tmp_path / "rows.csv"
    grid = Grid({"saqm": Factory(saqm)},
                {"logged": Factory(partial(logged_instance, log=str(log), gate=str(gate), gated_from=free),
                                   {"n": [4], "run": list(range(free + gated))})}, seeds=1)
    killed, stored_before, failures = [], [], []

    def kill_a_worker_after_rows(client):
        try:
            stored_before.extend(wait_until(lambda: len(_stored_runs(out)) >= free and _stored_runs(out), 120,
                                             "the free runs to be stored"))
            # The scheduler drops a result once the runner releases it: then a lost worker cannot make it rerun.
            wait_until(lambda: not client.run_on_scheduler(_held_results), 60,
                        "the scheduler to release the stored runs")
            executions = [line.split() for line in log.read_text().splitlines()]
            ran_by = collections.Counter(pid for run, pid in executions if int(run) in stored_before)
            pid = int(ran_by.most_common(1)[0][0])  # the worker holding the most finished runs
            os.kill(pid, signal.SIGKILL)
            killed.append(pid)
        except BaseException as error:  # reported by the test, after the grid ends
            failures.append(error)
        finally:
            gate.touch()  # the gated runs go on, on the surviving and the restarted worker

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                                  dashboard_address=None) as local, distributed.Client(local) as client:
        killer = threading.Thread(target=kill_a_worker_after_rows, args=(client,))
        killer.start()
        try:
            frame = run_grid(grid, backend="dask", scheduler=client, out=out, progress=False)
        finally:
            gate.touch()
            killer.join()
    assert not failures, failures
    executions = collections.Counter(int(line.split()[0]) for line in log.read_text().splitlines())
    assert sorted(stored_before) == list(range(free))
    pids = {int(line.split()[1]) for line in log.read_text().splitlines() if int(line.split()[0]) < free}
    assert killed and killed[0] in pids  # the killed worker had finished runs
    recomputed = [run for run in stored_before if executions[run] > 1]
    assert recomputed == []
    assert set(executions) == set(range(free + gated))
    # Every run stored once, with the rows of a sequential run.
    reference = run_grid(Grid(grid.algorithms, {"logged": Factory(
        partial(logged_instance, log=str(tmp_path / "reference-executions")),
        {"n": [4], "run": list(range(free + gated))})}, seeds=1), progress=False)
    # (The keys differ: this grid's instances have the log and gate files as fixed options, the reference others.)
    pd.testing.assert_frame_equal(comparable_rows(frame).drop(columns="key"),
                                  comparable_rows(reference).drop(columns="key"))
    assert len(pd.read_csv(out)) == free + gated


# --- the experiments page of the documentation ----------------------------------------------------------


def _experiments_page_code() -> str:
    """The first Python code block of the experiments page of the documentation."""
    match = re.search(r"```python\n(.*?)```", EXPERIMENTS_PAGE.read_text(), re.DOTALL)
    assert match, f"no python block in {EXPERIMENTS_PAGE}"
    return match.group(1)


@pytest.mark.slow
def test_the_experiments_page_snippet_runs_as_a_script_and_resumes(tmp_path):
    code = _experiments_page_code()
    assert 'backend="processes"' in code and "__main__" not in code  # the case that used to respawn for ever
    script = tmp_path / "snippet.py"
    script.write_text(code)
    first = _run_python([str(script)], cwd=tmp_path)
    assert first.returncode == 0, first.stderr[-3000:]
    rows = pd.read_csv(tmp_path / "runs.csv")
    assert len(rows) == 18 and rows["key"].is_unique  # 3 algorithm settings x 2 instances x 3 seeds
    assert "SAQM random 4n" in first.stdout and "SAQM tighter" in first.stdout
    again = _run_python([str(script)], cwd=tmp_path)  # "rerun: finished runs are skipped"
    assert again.returncode == 0 and again.stdout == first.stdout
    assert len(pd.read_csv(tmp_path / "runs.csv")) == 18
