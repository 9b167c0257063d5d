"""Where a grid's runs execute: in this process, in local worker processes, or on a Dask cluster.

:func:`execute` yields the rows of a grid's cells in completion order; the three backends
give the same rows (seeds come from the cells). Both parallel backends send a run to
their workers with cloudpickle, so factories written in a notebook, a REPL, stdin or a
script without an ``if __name__ == "__main__":`` guard travel by value, with the modules
they use (``fb`` of ``import fullbandit as fb``) by reference:

* ``"processes"``: a :class:`loky.ProcessPoolExecutor`. Unlike :mod:`multiprocessing`'s
  spawned workers, loky's never import the caller's ``__main__`` (an unguarded script is not
  run again in each worker), a worker that dies breaks the pool instead of being replaced
  (the grid stops at once, naming the cells in flight, rather than looping), and stopping
  kills the workers. At most ``jobs`` runs are handed out at a time.
* ``"dask"``: the cluster of ``scheduler=``, else the active ``distributed.Client``, else
  the address in Dask's ``scheduler-address`` setting (``DASK_SCHEDULER_ADDRESS``). The
  workers' fullbandit and numpy versions are checked against this process's before any run,
  and each run's result is released as soon as its row is taken, so a lost worker costs
  only the runs it had in flight.

What the runs need (factories, metrics, evaluation) is pickled once before any run starts,
so something that cannot travel fails at once, with the name of the factory it belongs to;
each worker unpickles it once.
"""

from __future__ import annotations

import hashlib
import pickle
import threading
import time
from collections.abc import Callable, Generator
from concurrent.futures import Future

from tqdm.auto import tqdm

from fullbandit.experiments.grid import Cell, Grid
from fullbandit.experiments.interrupts import interrupts_deferred, worker_ignores_sigint
from fullbandit.util.validation import InvalidParameterError, check_choice, check_int

__all__ = ["BACKENDS", "DEFAULT_JOBS", "WorkerLostError", "check_backend", "execute", "run_packed",
           "runtime_versions", "version_mismatches"]

#: Where :func:`~fullbandit.experiments.runner.run_grid` runs the cells: in this process, in
#: local worker processes, on a Dask cluster.
BACKENDS = ("sequential", "processes", "dask")
#: Local worker processes when ``jobs`` is not given.
DEFAULT_JOBS = 2


class WorkerLostError(RuntimeError):
    """A local worker process ended in the middle of a run (killed, out of memory, crashed in C code)."""


def check_backend(backend: str, jobs: int | None, scheduler) -> int:
    """Check the backend arguments of ``run_grid`` before anything else; return the number of local processes.

    ``jobs`` sizes the local pool only: with ``backend="dask"`` the cluster's workers set the
    parallelism, so giving ``jobs`` there is refused rather than ignored; so is a ``scheduler``
    for a local backend. With ``backend="dask"``, there must be a cluster to run on (nothing
    is connected to yet).

    >>> check_backend("processes", None, None)
    2
    >>> check_backend("dask", 4, "tcp://10.0.0.5:8786")
    Traceback (most recent call last):
    ...
    fullbandit.util.validation.InvalidParameterError: jobs=4 sets the number of local processes; \
with backend='dask' the cluster's workers run the grid: leave jobs out (or use backend='processes')
    """
    check_choice("backend", backend, BACKENDS)
    if backend == "dask":
        if jobs is not None:
            raise InvalidParameterError(
                f"jobs={jobs!r} sets the number of local processes; with backend='dask' the cluster's workers "
                "run the grid: leave jobs out (or use backend='processes')")
        _dask_target(scheduler)  # a cluster to run on, or an error naming the ways to give one
        return 1
    if scheduler is not None:
        raise InvalidParameterError(
            f"scheduler= names a Dask cluster, but backend={backend!r}: use backend='dask', or leave scheduler out")
    return DEFAULT_JOBS if jobs is None else check_int("jobs", jobs, low=1)


def execute(grid: Grid, cells: list[Cell], run: Callable[..., dict], *, backend: str, jobs: int,
            scheduler=None) -> Generator[dict, None, None]:
    """The rows of ``cells``, ``run(algorithm_factory, instance_factory, metrics, evaluation, cell)`` each,
    in completion order.

    A run that raises stops the grid with its exception, noted with the cell's key. Closing
    the generator (or an exception in the caller, Ctrl-C, SIGTERM) stops the workers: local
    processes are killed, a cluster's pending runs are cancelled.
    """
    keys = [cell.key for cell in cells]
    if backend == "sequential":
        for cell in cells:
            try:
                row = run(grid.algorithms[cell.algorithm], grid.instances[cell.instance], grid.metrics,
                          grid.evaluation, cell)
            except Exception as error:
                _note_cell(error, cell.key)
                raise
            yield row
        return
    if not cells:
        return
    digest, payload = _pack(grid, "worker processes" if backend == "processes" else "the Dask workers")
    calls = [(run, digest, payload, cell) for cell in cells]
    if backend == "processes":
        yield from _execute_processes(calls, keys, jobs)
    else:
        yield from _execute_dask(calls, keys, scheduler)


def _note_cell(error: BaseException, key: str) -> None:
    error.add_note(f"(in the run of cell {key})")


def _pack(grid: Grid, where: str) -> tuple[str, bytes]:
    """What every run of ``grid`` needs, pickled once (with its digest) before any run starts.

    Pickling a notebook's function or class by value costs about a millisecond: done once
    here rather than for each run, and unpickled once per worker (:func:`run_packed`). A part
    that cannot be pickled is refused, by name.
    """
    import cloudpickle

    parts = (dict(grid.algorithms), dict(grid.instances), grid.metrics, grid.evaluation)
    try:
        payload = cloudpickle.dumps(parts)
    except Exception:
        named = {**{f"algorithms[{name!r}]": factory for name, factory in grid.algorithms.items()},
                 **{f"instances[{name!r}]": factory for name, factory in grid.instances.items()},
                 "metrics": grid.metrics, "evaluation": grid.evaluation}
        for name, part in named.items():
            try:
                cloudpickle.dumps(part)
            except Exception as error:
                raise InvalidParameterError(
                    f"the grid's {name} cannot be sent to {where} ({type(error).__name__}: {error}). Functions "
                    "from a notebook, a script or stdin travel by value, but everything they hold must pickle: "
                    "create objects such as open files, locks or connections inside the function, or run with "
                    "backend='sequential'") from error
        raise
    return hashlib.blake2b(payload, digest_size=16).hexdigest(), payload


#: In a worker: the parts of the latest grids it ran, unpickled, by digest.
_RECEIVED: dict[str, tuple] = {}
_GRIDS_KEPT = 4


def run_packed(run: Callable[..., dict], digest: str, payload: bytes, cell: Cell) -> dict:
    """In a worker: ``run`` the ``cell`` of the grid :func:`_pack` made ``payload`` of."""
    parts = _RECEIVED.get(digest)
    if parts is None:
        parts = _RECEIVED[digest] = pickle.loads(payload)
        while len(_RECEIVED) > _GRIDS_KEPT:
            _RECEIVED.pop(next(iter(_RECEIVED)))  # the oldest grid
    algorithms, instances, metrics, evaluation = parts
    return run(algorithms[cell.algorithm], instances[cell.instance], metrics, evaluation, cell)


# --- local processes ------------------------------------------------------------------------


def _start_worker() -> None:
    """Pool initializer: what a worker does before its first run."""
    worker_ignores_sigint()  # first: Ctrl-C is held blocked only until this point
    # tqdm's default lock is a named semaphore shared between processes, which a killed worker
    # never gets to release: the resource tracker then warns of leaked semaphores. A worker's
    # bars are never shown (progress=False), so a lock of its own is enough.
    tqdm.set_lock(threading.RLock())


def _execute_processes(calls: list[tuple], keys: list[str], jobs: int) -> Generator[dict, None, None]:
    """Rows from ``jobs`` loky worker processes, in completion order.

    A terminal's Ctrl-C reaches the whole process group; only this process acts on it, by
    killing the workers here, and the workers ignore it from their first instruction on (they
    are started with SIGINT blocked, see :mod:`fullbandit.experiments.interrupts`). Interrupted,
    failed or closed early, the pool is killed rather than left to finish abandoned runs.
    """
    from multiprocessing import resource_tracker

    from loky import FIRST_COMPLETED, BrokenProcessPool, ProcessPoolExecutor, wait

    # The pool's first lock would start the standard library's resource tracker, which unblocks
    # SIGINT in this thread as it does so (Python 3.11): started beforehand, it cannot undo the
    # blocked SIGINT the workers inherit.
    resource_tracker.ensure_running()
    executor = None
    in_flight: dict[Future, int] = {}
    upcoming = iter(range(len(calls)))
    finished = False

    def hand_out(executor) -> None:
        # Never more runs than workers: a worker that dies was running one of the cells in
        # flight, and an interrupted grid has no queue of runs to abandon.
        for index in upcoming:
            # Deferred: the first submit starts the workers (and loky's manager thread, whose own
            # later starts then inherit SIGINT blocked too).
            with interrupts_deferred():
                in_flight[executor.submit(run_packed, *calls[index])] = index
            if len(in_flight) >= jobs:
                return

    threads_before = set(threading.enumerate())
    try:
        with interrupts_deferred():
            executor = ProcessPoolExecutor(max_workers=jobs, initializer=_start_worker)
        hand_out(executor)
        while in_flight:
            done, _ = wait(in_flight, return_when=FIRST_COMPLETED)
            for future in done:
                index = in_flight.pop(future)
                try:
                    row = future.result()
                except BrokenProcessPool as error:
                    lost = "; ".join([keys[index], *(keys[other] for other in in_flight.values())])
                    detail = " ".join(str(error).split())  # loky's message, on one line
                    raise WorkerLostError(
                        f"a worker process ended during a run, so the grid stops (cells in flight: {lost}). Runs "
                        "finished before are kept (with out=, a rerun resumes). A run that uses too much memory or "
                        f"crashes in C code does this; backend='sequential' shows its error. ({detail})") from None
                except Exception as error:
                    _note_cell(error, keys[index])
                    raise
                hand_out(executor)  # before the row is stored: the worker is busy meanwhile
                yield row
        finished = True
    finally:
        if executor is not None:
            with interrupts_deferred():  # a second Ctrl-C must not leave the workers running
                executor.shutdown(wait=True, kill_workers=not finished)
                _join_threads(set(threading.enumerate()) - threads_before, SHUTDOWN_TIMEOUT)


#: Seconds the pool's own threads get to end once it is shut down.
SHUTDOWN_TIMEOUT = 10.0


def _join_threads(threads, timeout: float) -> None:
    """Wait, ``timeout`` seconds at most, for the threads the pool started to end.

    Killing its workers, loky does not wait for the thread that fed their queue: that thread
    still holds the queue's semaphore and deletes it on its way out. Left to run into the
    interpreter's exit, it is stopped half-way, and the resource tracker then warns of a
    leaked semaphore (in 3 of 70 grids interrupted on a 2-core machine kept busy by 3 other processes).
    """
    deadline = time.monotonic() + timeout
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))


# --- Dask -----------------------------------------------------------------------------------


def runtime_versions() -> dict[str, str]:
    """The versions of fullbandit and numpy this process runs (a worker's, on a cluster): a run's rows depend on both.

    >>> sorted(runtime_versions())
    ['fullbandit', 'numpy']
    """
    import numpy

    from fullbandit.util.version import __version__
    return {"fullbandit": __version__, "numpy": numpy.__version__}


def version_mismatches(here: dict[str, str], workers: dict[str, object]) -> list[str]:
    """What differs between this process's ``here`` versions and each worker's (its dict, or the error it raised).

    >>> version_mismatches({"fullbandit": "0.2.0", "numpy": "2.4.0"},
    ...                    {"tcp://a:1": {"fullbandit": "0.2.0", "numpy": "2.4.0"},
    ...                     "tcp://b:1": {"fullbandit": "0.1.0", "numpy": "2.4.0"}})
    ['worker tcp://b:1 has fullbandit 0.1.0, this process 0.2.0']
    """
    found = []
    for address, versions in sorted(workers.items()):
        if not isinstance(versions, dict):
            found.append(f"worker {address} cannot report its versions ({type(versions).__name__}: {versions}); "
                         "is fullbandit installed there?")
            continue
        found += [f"worker {address} has {package} {versions.get(package)}, this process {version}"
                  for package, version in here.items() if versions.get(package) != version]
    return found


def _check_versions(client) -> None:
    """Refuse a cluster whose workers run other versions of fullbandit or numpy than this process."""
    mismatches = version_mismatches(runtime_versions(), client.run(runtime_versions, on_error="return"))
    if mismatches:
        raise InvalidParameterError(
            "the Dask workers must run the versions of fullbandit and numpy this process runs (their rows would "
            f"differ): {'; '.join(mismatches)}. Install the same versions on the workers")


def _dask_target(scheduler):
    """What ``backend="dask"`` runs on: a ``Client`` (the caller's) or a scheduler address (to connect to)."""
    try:
        from dask import config
        from distributed import Client, get_client
    except ImportError:
        raise InvalidParameterError(
            "backend='dask' needs dask.distributed: pip install 'fullbandit[dask]'") from None
    if isinstance(scheduler, Client | str):
        return scheduler
    try:
        return get_client()
    except ValueError:  # no active client
        pass
    address = config.get("scheduler-address", None)
    if address:
        return address
    raise InvalidParameterError(
        "backend='dask' needs a cluster: give scheduler= (an address such as 'tcp://host:8786', or a Client), "
        "start a distributed.Client before run_grid, or set DASK_SCHEDULER_ADDRESS")


def _execute_dask(calls: list[tuple], keys: list[str], scheduler) -> Generator[dict, None, None]:
    from distributed import Client, as_completed

    target = _dask_target(scheduler)
    owned = not isinstance(target, Client)
    client = Client(target) if owned else target
    pending: dict = {}
    try:
        _check_versions(client)
        pending = {client.submit(run_packed, *call, pure=False): key for call, key in zip(calls, keys, strict=True)}
        for future in as_completed(list(pending)):
            key = pending.pop(future)
            try:
                row = future.result()
            except Exception as error:
                _note_cell(error, key)
                raise
            finally:
                # Released at once: a finished run the cluster still held would be computed again
                # when its worker is lost, though its row is already stored.
                future.release()
            yield row
    finally:
        if pending and not owned:
            client.cancel(list(pending))  # the caller's client lives on: its cluster must not
        if owned:
            client.close()
