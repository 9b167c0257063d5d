"""`fullbandit bench`: unusable output folders are refused up front; a killed bench leaves no workers behind."""

import contextlib
import importlib.util
import os
import signal
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from waiting import wait_until

import fullbandit
from fullbandit.cli.main import main
from fullbandit.experiments import run_grid
from fullbandit.experiments.store import ResultStore

# --- --out ---------------------------------------------------------------------------------


@pytest.fixture
def no_run_may_start(monkeypatch):
    """Fail the test if the runner is reached: a bad --out must be refused before any run."""
    from fullbandit import experiments

    def refuse(*args, **kwargs):
        raise AssertionError("run_grid was called")
    monkeypatch.setattr(experiments, "run_grid", refuse)


def _bench_error(out, capsys) -> str:
    assert main(["bench", "saqm-support", "--runs", "1", "--out", str(out), "--no-progress"]) == 2
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    return captured.err.strip()


def test_out_that_is_a_file_is_refused(tmp_path, capsys, no_run_may_start):
    out = tmp_path / "results.txt"
    out.write_text("not a folder")
    assert _bench_error(out, capsys) == (
        f"fullbandit: error: --out={str(out)!r} is a file, not a folder; give the folder for the results")


def test_out_below_a_file_is_refused(tmp_path, capsys, no_run_may_start):
    (tmp_path / "file").write_text("")
    out = tmp_path / "file" / "results"
    assert _bench_error(out, capsys) == (
        f"fullbandit: error: --out={str(out)!r}: cannot create this folder (Not a directory)")


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc, which not even root can write in")
def test_out_that_cannot_be_written_in_is_refused(capsys, no_run_may_start):
    assert _bench_error("/proc/self", capsys).startswith(
        "fullbandit: error: --out='/proc/self': cannot write in this folder (")


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root may write in read-only folders")
def test_out_that_is_read_only_is_refused(tmp_path, capsys, no_run_may_start):
    out = tmp_path / "read-only"
    out.mkdir()
    out.chmod(0o555)
    try:
        assert _bench_error(out, capsys) == (
            f"fullbandit: error: --out={str(out)!r}: cannot write in this folder (Permission denied)")
    finally:
        out.chmod(0o755)


def test_out_with_a_folder_in_place_of_the_csv_is_refused(tmp_path, capsys, no_run_may_start):
    (tmp_path / "saqm-support.csv").mkdir()
    message = _bench_error(tmp_path, capsys)
    assert message.startswith(f"fullbandit: error: --out={str(tmp_path)!r}: {tmp_path / 'saqm-support.csv'} exists")


def test_jobs_with_a_scheduler_is_refused_not_ignored(tmp_path, capsys, no_run_may_start):
    out = tmp_path / "results"
    assert main(["bench", "saqm-support", "--jobs", "2", "--scheduler", "tcp://127.0.0.1:8786", "--out", str(out),
                 "--no-progress"]) == 2
    assert capsys.readouterr().err.strip() == (
        "fullbandit: error: --jobs=2 runs the suite on local processes and --scheduler=tcp://127.0.0.1:8786 on a "
        "Dask cluster, whose workers set the parallelism: give one of them")
    assert not out.exists()  # refused before anything is made


# --- one writer per suite --------------------------------------------------------------------

HOLD_LOCK = """
import sys
from fullbandit.cli.suite_lock import suite_lock
with suite_lock(sys.argv[1], "saqm-support"):
    print("locked", flush=True)
    sys.stdin.read()  # held until the test closes our stdin, or kills us
"""


def _lock_holder(out: Path) -> subprocess.Popen:
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(out)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    assert holder.stdout.readline().strip() == "locked"  # synchronised on its word, not on a sleep
    return holder


@pytest.mark.skipif(sys.platform == "win32", reason="flock is POSIX")
def test_a_second_bench_of_one_suite_is_refused_while_the_first_writes(tmp_path, capsys, no_run_may_start):
    from fullbandit.cli.suite_lock import suite_lock

    out = tmp_path / "results"
    out.mkdir()
    (out / "saqm-support.csv").write_text("kept\n")
    (out / "saqm-support.code.json").write_text("{}\n")  # --attest reads it (it is refused before reading)
    holder = _lock_holder(out)
    try:
        for extra in ([], ["--attest"], ["--redraw"]):
            assert main(["bench", "saqm-support", "--out", str(out), "--no-progress", *extra]) == 2
            assert capsys.readouterr().err.strip() == (
                f"fullbandit: error: another `fullbandit bench saqm-support` (process {holder.pid}) is writing "
                f"{out / 'saqm-support.csv'}: wait for it to end, or give --out another folder")
        assert (out / "saqm-support.csv").read_text() == "kept\n"  # refused: nothing touched
        with suite_lock(out, "zhou-fig1"):  # another suite in the same folder is not held up
            pass
    finally:
        holder.kill()
        holder.wait()
    with suite_lock(out, "saqm-support"):  # killed, the holder left no stale lock behind
        pass


# --- a killed bench --------------------------------------------------------------------------

# A bench of a toy suite whose runs each take 0.2 s: long enough to be in flight when the
# signal comes; 2 x RUNS runs (argv[2]) are far more than the test waits for. It can send
# itself one Ctrl-C (to its whole process group, as a terminal does) at a chosen moment,
# BENCH_CTRL_C_AT (environment, which the workers inherit):
#   pool-start     just after the first worker process is started, the pool half built;
#   worker-import  from a worker still starting (Python's own start-up: WORKER_START below),
#                  before it has set any handler;
#   mid-run        from a worker in the middle of the first run.
SLOW_BENCH = '''
import os
import signal
import sys
import time

import numpy as np

import fullbandit as fb
from fullbandit.cli.main import main
from fullbandit.experiments import Factory, Grid, Instance, suites

MOMENT = os.environ.get("BENCH_CTRL_C_AT", "")


def ctrl_c_once(moment):
    if moment != MOMENT:
        return
    try:  # the first process to create the file sends it, no other
        os.close(os.open(os.environ["BENCH_CTRL_C_ONCE"], os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        return
    os.killpg(0, signal.SIGINT)


def slow_instance(rng, n):
    time.sleep(0.1)
    ctrl_c_once("mid-run")
    time.sleep(0.1)
    return Instance(fb.TopK(n, 1), fb.GaussianSum(np.linspace(0.0, 1.0, n), sigma=0.1, seed=rng))


def saqm(problem, seed):
    return fb.SAQM(problem, seed=seed)


def build(runs):
    return Grid({"saqm": Factory(saqm)}, {"slow": Factory(slow_instance, {"n": [3, 4]})}, seeds=runs)


if __name__ == "__main__":  # not when the test imports this file to resume the grid
    # A terminal's foreground job has the default Ctrl-C handler; a test suite started in the
    # background by a non-interactive shell runs with SIGINT ignored, which its children inherit.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    os.environ["BENCH_PID"] = str(os.getpid())  # for WORKER_START, in the workers
    if MOMENT == "pool-start":
        from multiprocessing.process import BaseProcess  # every pool's processes, loky's too
        start = BaseProcess.start

        def start_then_ctrl_c(process):
            start(process)
            ctrl_c_once("pool-start")
        BaseProcess.start = start_then_ctrl_c
    suites.get_suite("dks")  # registers the built-in suites
    suites.SUITES["slow"] = suites.Suite("slow", "toy runs of 0.2 s", build, lambda frame, path: None, 500)
    sys.exit(main(["bench", "slow", "--jobs", "2", "--runs", sys.argv[2], "--out", sys.argv[1],
                   "--no-progress"]))
'''
# Python imports sitecustomize first thing, before any code of the program: put on the bench's
# path, this one sends the Ctrl-C from the first worker (a child of the bench that is not a
# resource tracker) at the earliest moment a worker can.
WORKER_START = '''
import os
import signal
import sys

if (os.environ.get("BENCH_CTRL_C_AT") == "worker-import" and os.environ.get("BENCH_PID") == str(os.getppid())
        and not any("resource_tracker" in argument for argument in sys.orig_argv)):
    try:
        os.close(os.open(os.environ["BENCH_CTRL_C_ONCE"], os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        pass
    else:
        os.killpg(0, signal.SIGINT)
'''
# Runs per cell: a bench that missed its signal ends by itself within seconds (and fails the test).
RUNS = 40


def _process_table() -> dict[int, tuple[int, bool]]:
    """``pid: (parent pid, alive)`` of every process (zombies count as dead), from psutil or /proc."""
    try:
        import psutil
    except ImportError:
        table = {}
        for entry in Path("/proc").iterdir():
            try:
                stat = (entry / "stat").read_text() if entry.name.isdigit() else ""
            except OSError:  # ended while we looked
                continue
            if stat:
                state, parent = stat.rsplit(")", 1)[1].split()[:2]
                table[int(entry.name)] = (int(parent), state not in ("Z", "X"))
        return table
    table = {}
    for process in psutil.process_iter(["ppid", "status"]):
        table[process.pid] = (process.info["ppid"], process.info["status"] not in (psutil.STATUS_ZOMBIE,
                                                                                    psutil.STATUS_DEAD))
    return table


def _descendants(pid: int) -> set[int]:
    table = _process_table()
    found, frontier = set(), {pid}
    while frontier:
        frontier = {child for child, (parent, alive) in table.items() if parent in frontier and alive} - found
        found |= frontier
    return found


def _group(pgid: int) -> set[int]:
    """Live processes of process group ``pgid``: the bench and its workers, orphaned or not."""
    members = set()
    for pid, (_, alive) in _process_table().items():
        try:
            if alive and os.getpgid(pid) == pgid:
                members.add(pid)
        except OSError:  # ended while we looked
            pass
    return members


def _alive(pids: set[int]) -> set[int]:
    table = _process_table()
    return {pid for pid in pids if table.get(pid, (0, False))[1]}


def _data_rows(csv: Path) -> int:
    try:
        return max(0, csv.read_text().count("\n") - 1)
    except FileNotFoundError:
        return 0


def _interrupt_bench(tmp_path: Path, moment: str, how: str) -> tuple[int, str, Path]:
    """Run the slow bench, interrupt it at ``moment`` by ``how``; its exit status, stderr and CSV.

    Fails unless the whole process group (bench and workers) has ended soon after.
    """
    script = tmp_path / "slow_bench.py"
    script.write_text(SLOW_BENCH)
    csv = tmp_path / "out" / "slow.csv"
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(WORKER_START)
    # The bench imports the fullbandit this test imported (a checkout's, not an installed copy's): the resume
    # below runs here, and a results file refuses rows of other code (fullbandit.experiments.provenance).
    source = str(Path(fullbandit.__file__).resolve().parents[1])
    environment = {**os.environ, "BENCH_CTRL_C_AT": moment, "BENCH_CTRL_C_ONCE": str(tmp_path / "ctrl-c-sent"),
                   "PYTHONPATH": os.pathsep.join(filter(None, [str(site), source, os.environ.get("PYTHONPATH")]))}
    # A session of its own, so that "Ctrl-C" can signal the whole group as a terminal does.
    bench = subprocess.Popen([sys.executable, str(script), str(tmp_path / "out"), str(RUNS)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
                             env=environment)
    try:
        if moment == "after-rows":
            workers = wait_until(lambda: _data_rows(csv) >= 2 and _descendants(bench.pid), 60,
                                  "two finished runs")
            assert len(workers) >= 2  # the two workers (and the resource tracker)
            if how == "ctrl-c":
                os.killpg(bench.pid, signal.SIGINT)
            else:
                bench.send_signal(signal.SIGTERM)
        _, err = bench.communicate(timeout=120)  # generous: a loaded 2-core machine is slow to tear down
        # Shutting the workers down takes a moment; before the fix they ran on for good after SIGTERM.
        wait_until(lambda: not _group(bench.pid), 10, "the workers to end")
    finally:  # never leave processes behind, even when the test fails
        if bench.poll() is None:
            bench.kill()
            bench.wait()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(bench.pid, signal.SIGKILL)
    return bench.returncode, err, csv


def _assert_resumable(csv: Path, script: Path) -> set[str]:
    """Every stored row is whole, and a rerun makes only the missing runs; the keys stored before it."""
    header = csv.read_text().splitlines()[0].split(",")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # not even a cut last line
        stored = ResultStore(csv, header).finished_keys()
    spec = importlib.util.spec_from_file_location("slow_bench", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    grid = module.build(2)
    frame = run_grid(grid, out=csv, progress=False)
    assert len(frame) == 4 and frame["key"].is_unique
    expected = stored | {cell.key for cell in grid.cells()}
    assert ResultStore(csv, header).finished_keys() == expected
    assert _data_rows(csv) == len(expected)  # nothing written twice
    return stored


def _check_interrupted_bench(tmp_path: Path, moment: str, how: str) -> None:
    status, err, csv = _interrupt_bench(tmp_path, moment, how)
    if how == "ctrl-c":  # one line, as a shell reports a job ended by Ctrl-C, and nothing else
        assert (status, err.strip()) == (130, "fullbandit: interrupted"), err
    else:  # SIGTERM ends it silently, with the status a shell gives a job ended by SIGTERM
        assert (status, err.strip()) == (143, ""), err
    stored = _assert_resumable(csv, tmp_path / "slow_bench.py")
    if moment == "after-rows":
        assert len(stored) >= 2
    assert len(stored) < 2 * RUNS  # stopped early, not run to the end


POSIX_GROUPS = [
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals and process groups"),
    pytest.mark.skipif(not Path("/proc").is_dir() and importlib.util.find_spec("psutil") is None,
                       reason="needs psutil or /proc to see the worker processes"),
]
# Ctrl-C while the pool is half built (the main process used to ignore it and run on), and
# once runs are being stored; the slow test adds the other moments.
MOMENTS = [("pool-start", "ctrl-c"), ("after-rows", "ctrl-c"), ("after-rows", "sigterm")]


@pytest.mark.slow
@pytest.mark.parametrize("moment, how", MOMENTS, ids=["-".join(case) for case in MOMENTS])
@POSIX_GROUPS[0]
@POSIX_GROUPS[1]
def test_a_killed_bench_stops_its_workers_and_keeps_a_resumable_csv(tmp_path, moment, how):
    _check_interrupted_bench(tmp_path, moment, how)


@pytest.mark.slow
@POSIX_GROUPS[0]
@POSIX_GROUPS[1]
def test_a_killed_bench_is_clean_at_every_moment_under_load(tmp_path):
    """Every moment, mid-run too, five times each while two processes keep both cores of a small machine busy."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        for attempt in range(5):
            for moment, how in [*MOMENTS, ("worker-import", "ctrl-c"), ("mid-run", "ctrl-c")]:
                folder = tmp_path / f"{moment}-{how}-{attempt}"
                folder.mkdir()
                _check_interrupted_bench(folder, moment, how)
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
