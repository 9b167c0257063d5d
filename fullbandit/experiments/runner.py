"""Running a grid: one function per run, three interchangeable backends, resumable output."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from fullbandit._validation import InvalidParameterError, check_choice, check_int
from fullbandit.experiments.evaluations import METRICS_COLUMN
from fullbandit.experiments.grid import Cell, Factory, Grid
from fullbandit.experiments.store import ResultStore, expand_metrics

BACKENDS = ("sequential", "processes", "dask")
CELL_COLUMNS = ["key", "algorithm", "instance", "seed"]


def _columns(grid: Grid) -> list[str]:
    evaluation = grid.evaluation
    algorithm_params = {name for f in grid.algorithms.values() for name in f.sweep}
    instance_params = {name for f in grid.instances.values() for name in f.sweep}
    results = set(CELL_COLUMNS) | set(evaluation.columns)
    clash = ((algorithm_params & instance_params) | (algorithm_params & results)
             | (instance_params & (results - evaluation.sweepable)))
    if clash:
        raise InvalidParameterError(
            f"swept parameter names {sorted(clash)} are used twice (by an algorithm and an instance, "
            "or by a result column): rename one")
    return (CELL_COLUMNS + list(evaluation.columns) + sorted(instance_params - set(evaluation.columns))
            + sorted(algorithm_params) + [METRICS_COLUMN])


def run_cell(algorithm_factory: Factory, instance_factory: Factory, grid_metrics, evaluation, cell: Cell) -> dict:
    """Run one cell of a grid and return its row (a plain dict; picklable)."""
    instance_rng = np.random.default_rng(cell.instance_seed())
    instance = instance_factory.make(instance_rng, **dict(cell.instance_params))
    # Bandit instances hand the algorithm their decision class; other instances hand themselves.
    problem = getattr(instance, "problem", instance)
    algorithm = algorithm_factory.make(problem, cell.algorithm_seed(), **dict(cell.algorithm_params))
    values = evaluation.evaluate(algorithm, instance)
    result = values.pop("_result", None)
    metrics = dict(values.pop(METRICS_COLUMN, {}))
    if grid_metrics is not None:
        metrics.update(grid_metrics(result, instance))
    return {"key": cell.key, "algorithm": cell.algorithm, "instance": cell.instance, "seed": cell.seed,
            **values, **dict(cell.instance_params), **dict(cell.algorithm_params), METRICS_COLUMN: metrics}


def _execute(grid: Grid, cells: list[Cell], backend: str, jobs: int, scheduler) -> Iterator[dict]:
    """Rows of ``cells`` in completion order."""
    tasks = [(grid.algorithms[c.algorithm], grid.instances[c.instance], grid.metrics, grid.evaluation, c)
             for c in cells]
    if backend == "sequential":
        for task in tasks:
            yield run_cell(*task)
    elif backend == "processes":
        from joblib import Parallel, delayed
        parallel = Parallel(n_jobs=jobs, return_as="generator_unordered")
        yield from parallel(delayed(run_cell)(*task) for task in tasks)
    else:
        yield from _execute_dask(tasks, scheduler)


def _execute_dask(tasks, scheduler) -> Iterator[dict]:
    try:
        from dask.distributed import Client, as_completed
    except ImportError:
        raise InvalidParameterError(
            "backend='dask' needs dask.distributed: pip install 'fullbandit[dask]'") from None
    if scheduler is None:
        raise InvalidParameterError("backend='dask' needs scheduler= (an address such as 'tcp://host:8786' or a Client)")
    client = scheduler if isinstance(scheduler, Client) else Client(scheduler)
    try:
        futures = [client.submit(run_cell, *task, pure=False) for task in tasks]
        for future in as_completed(futures):
            yield future.result()
    finally:
        if client is not scheduler:
            client.close()


def run_grid(grid: Grid, *, backend: str = "sequential", jobs: int = 2, scheduler=None, out=None,
             progress: bool | None = None) -> pd.DataFrame:
    """Run every cell of ``grid`` and return one tidy row per run.

    Parameters
    ----------
    grid : Grid
    backend : {"sequential", "processes", "dask"}
        ``"processes"``: ``jobs`` local processes (joblib); ``"dask"``: the Dask cluster at
        ``scheduler``. The rows do not depend on the backend (only ``wall_time`` does).
    jobs : int
        Number of local processes.
    scheduler : str or dask.distributed.Client, optional
        Dask scheduler address, e.g. ``"tcp://10.0.0.5:8786"``, or a connected client.
    out : path, optional
        CSV file the rows are appended to as runs finish. If it already holds rows of
        this grid, their cells are skipped (resume); a killed run loses at most the runs
        in flight.
    progress : bool, optional
        Progress bar over the runs (default: shown when the grid takes over two seconds).

    Returns
    -------
    pandas.DataFrame
        One row per cell in grid order: parameters, answer, ``correct`` (the answer is an
        optimal team), ``epsilon_optimal``, ``gap``, ``precision`` (share of the answer in
        the best team found by ``TopK.best``; ties make it a lower bound), ``pulls``, ``stop_reason``,
        ``wall_time``, and every scalar constant of the result plus ``grid.metrics``.
    """
    check_choice("backend", backend, BACKENDS)
    jobs = check_int("jobs", jobs, low=1)
    columns = _columns(grid)
    cells = grid.cells()
    store = None if out is None else ResultStore(out, columns)
    finished = set() if store is None else store.finished_keys()
    pending = [cell for cell in cells if cell.key not in finished]
    rows = []
    bar = tqdm(total=len(cells), initial=len(cells) - len(pending), unit=" runs", delay=0.0 if progress else 2.0,
               disable=progress is False, leave=False, dynamic_ncols=True)
    try:
        for row in _execute(grid, pending, backend, jobs, scheduler):
            if store is not None:
                store.append(row)
            rows.append(row)
            bar.update(1)
    finally:
        bar.close()
    if store is not None:
        frame = store.read()
        order = {cell.key: position for position, cell in enumerate(cells)}
        frame = frame[frame["key"].isin(order)]
    else:
        frame = expand_metrics(pd.DataFrame(rows, columns=None))
        order = {cell.key: position for position, cell in enumerate(cells)}
    return frame.sort_values("key", key=lambda keys: keys.map(order)).reset_index(drop=True)
