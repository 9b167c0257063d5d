"""Running a grid: one function per run, three interchangeable backends, resumable output.

Interrupting a grid (Ctrl-C, or SIGTERM while :func:`run_grid` runs in the main thread)
stops it cleanly: local worker processes are shut down, every row already appended to
the results file stays valid, and running the grid again resumes where it stopped (with
the same code: see :mod:`fullbandit.experiments.resume`).
"""

from __future__ import annotations

import contextlib
import sys
from collections import defaultdict

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from fullbandit.experiments.backends import BACKENDS, check_backend, execute
from fullbandit.experiments.evaluations import METRICS_COLUMN, Evaluation
from fullbandit.experiments.grid import Cell, Factory, Grid
from fullbandit.experiments.interrupts import sigterm_unwinds
from fullbandit.experiments.provenance import PROVENANCE_COLUMNS, stamp
from fullbandit.experiments.resume import Resume
from fullbandit.experiments.store import ResultStore, expand_metrics, field_text, value_kind
from fullbandit.util.validation import InvalidParameterError

__all__ = ["BACKENDS", "run_cell", "run_grid"]

CELL_COLUMNS = ["key", "algorithm", "instance", "seed"]


def _columns(grid: Grid) -> list[str]:
    evaluation = grid.evaluation
    algorithm_params = {name for f in grid.algorithms.values() for name in f.sweep}
    instance_params = {name for f in grid.instances.values() for name in f.sweep}
    results = set(CELL_COLUMNS) | set(evaluation.columns) | set(PROVENANCE_COLUMNS)
    clash = ((algorithm_params & instance_params) | (algorithm_params & results)
             | (instance_params & (results - evaluation.sweepable)))
    if clash:
        raise InvalidParameterError(
            f"swept parameter names {sorted(clash)} are used twice (by an algorithm and an instance, "
            "or by a result column): rename one")
    return (CELL_COLUMNS + list(evaluation.columns) + sorted(instance_params - set(evaluation.columns))
            + sorted(algorithm_params) + [METRICS_COLUMN, *PROVENANCE_COLUMNS])


def _check_storable(cells: list[Cell]) -> None:
    """Refuse, before any run, a swept parameter whose values a results file cannot keep apart.

    A column of the file reads back as one kind (see :class:`ResultStore`), so a sweep
    such as ``["auto", 2]`` would come back as text, and the file would look damaged.
    """
    written: defaultdict[str, set[str]] = defaultdict(set)
    for cell in cells:
        for name, value in (*cell.instance_params, *cell.algorithm_params):
            written[name].add(field_text(value))
    for name, texts in written.items():
        kinds = {kind for text in texts if (kind := value_kind(text))}  # missing values fit any column
        if len(kinds) > 1:
            raise InvalidParameterError(
                f"swept parameter {name!r} mixes {' and '.join(sorted(kinds))} values "
                f"({', '.join(sorted(texts - {''}))}); a results file (out=) keeps one kind per column: give "
                "every value the same kind (e.g. 'size-2' rather than 2 beside 'auto')")


def _check_resume_options(out, fresh, mix_versions) -> None:
    for name, value in (("fresh", fresh), ("mix_versions", mix_versions)):
        if not isinstance(value, bool):
            raise InvalidParameterError(f"{name} must be True or False, got {value!r}")
        if value and out is None:
            raise InvalidParameterError(f"{name}=True needs out= (a results file to start anew or resume from)")
    if fresh and mix_versions:
        raise InvalidParameterError(
            "fresh=True deletes the rows in out=, mix_versions=True keeps them: pass one of them, not both")


def run_cell(algorithm_factory: Factory, instance_factory: Factory, grid_metrics, evaluation: Evaluation,
             cell: Cell) -> dict:
    """Run one cell of a grid and return its row (a plain dict; picklable).

    Parameters
    ----------
    algorithm_factory, instance_factory : Factory
        The cell's algorithm and instance factories.
    grid_metrics : callable or None
        ``grid_metrics(result, instance) -> dict`` of extra metrics (``Grid.metrics``).
    evaluation : Evaluation
        What the run measures (``Grid.evaluation``).
    cell : Cell
        The run: names, parameters and seed.

    Returns
    -------
    dict
        ``key``, ``algorithm``, ``instance``, ``seed``, the evaluation's columns, the swept
        parameters, ``metrics`` (a dict) and the code that ran it, as this process sees it
        (the provenance columns: :mod:`fullbandit.experiments.provenance`).

    Examples
    --------
    >>> import fullbandit as fb
    >>> from fullbandit.experiments import Factory, Grid, Instance
    >>> def instance(rng, n):
    ...     return Instance(fb.TopK(n, 1), fb.GaussianSum(np.linspace(0.0, 1.0, n), sigma=0.1, seed=rng))
    >>> grid = Grid({"saqm": Factory(lambda problem, seed: fb.SAQM(problem, seed=seed))},
    ...             {"line": Factory(instance, {"n": [3]})}, seeds=1)
    >>> cell = grid.cells()[0]
    >>> row = run_cell(grid.algorithms["saqm"], grid.instances["line"], None, grid.evaluation, cell)
    >>> row["answer"], row["correct"]
    ('2', True)
    """
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
            **values, **dict(cell.instance_params), **dict(cell.algorithm_params), METRICS_COLUMN: metrics,
            **stamp()}


def run_grid(grid: Grid, *, backend: str = "sequential", jobs: int | None = None, scheduler=None, out=None,
             fresh: bool = False, mix_versions: bool = False, progress: bool | None = None) -> pd.DataFrame:
    """Run every cell of ``grid`` and return one tidy row per run.

    Parameters
    ----------
    grid : Grid
    backend : {"sequential", "processes", "dask"}
        ``"processes"``: ``jobs`` local processes; ``"dask"``: a Dask cluster (``scheduler``,
        else the active ``distributed.Client``, else ``DASK_SCHEDULER_ADDRESS``). The rows do
        not depend on the backend (only ``wall_time`` does). Factories may be defined anywhere,
        a notebook, stdin or an unguarded script too (see :mod:`fullbandit.experiments.backends`).
    jobs : int, optional
        Number of local processes (default 2); only with ``backend="processes"`` or ``"sequential"``.
    scheduler : str or dask.distributed.Client, optional
        Dask scheduler address, e.g. ``"tcp://10.0.0.5:8786"``, or a connected client. Its
        workers must run this process's versions of fullbandit and numpy (checked before any run).
    out : path, optional
        CSV file the rows are appended to as runs finish (see
        :class:`~fullbandit.experiments.store.ResultStore`); each row records the code
        that produced it (:mod:`fullbandit.experiments.provenance`). If it already holds
        rows of this grid, written by this same code, their cells are skipped (resume),
        and one line on standard error says how many runs were taken from where; a killed
        run loses at most the runs in flight. The file is checked before any run starts:
        one holding rows of other code (another fullbandit version or commit, other
        uncommitted changes, other numpy, scipy or cvxpy versions, or a file written
        before rows recorded their code) is refused unless ``fresh`` or ``mix_versions``.
    fresh : bool
        Start ``out`` anew: the rows it holds are deleted and every run is made.
    mix_versions : bool
        Resume from ``out`` even if other code wrote (some of) its rows: they are taken
        as they are, and this code's rows are added beside them.
    progress : bool, optional
        Progress bar over the runs (default: shown when the grid takes over two seconds).

    Returns
    -------
    pandas.DataFrame
        One row per cell in grid order: parameters, answer, ``correct`` (the answer is an
        optimal team), ``epsilon_optimal``, ``gap``, ``precision`` (share of the answer in
        the best team found by ``TopK.best``; ties make it a lower bound), ``pulls``, ``stop_reason``,
        ``wall_time``, and every scalar constant of the result plus ``grid.metrics``.

    Raises
    ------
    InvalidParameterError
        If an argument is invalid, ``out`` cannot be written or is damaged (before any
        run starts), a swept parameter mixes kinds of values that ``out`` cannot keep, a
        factory cannot be sent to the workers, or the Dask workers run other versions.
    fullbandit.experiments.resume.ResumeRefused
        If ``out`` holds rows of other code and neither ``fresh`` nor ``mix_versions``
        is set (an :class:`InvalidParameterError`; raised before any run, with the file
        unchanged).
    WorkerLostError
        If a local worker process ends in the middle of a run (the message names the cells in flight).
    KeyboardInterrupt, SystemExit
        On Ctrl-C, or on SIGTERM (``SystemExit(143)``; only when called from the main
        thread and no other SIGTERM handler is installed): local workers are shut down
        first, and the rows already in ``out`` stay valid for a resumed run.

    Examples
    --------
    >>> import fullbandit as fb
    >>> from fullbandit.experiments import Factory, Grid, Instance
    >>> def instance(rng, n):
    ...     return Instance(fb.TopK(n, 1), fb.GaussianSum(np.linspace(0.0, 1.0, n), sigma=0.1, seed=rng))
    >>> grid = Grid({"saqm": Factory(lambda problem, seed: fb.SAQM(problem, seed=seed))},
    ...             {"line": Factory(instance, {"n": [3, 4]})}, seeds=2)
    >>> frame = run_grid(grid, progress=False)
    >>> frame[["algorithm", "n", "seed", "answer", "correct"]]
      algorithm  n  seed answer  correct
    0      saqm  3     0      2     True
    1      saqm  3     1      2     True
    2      saqm  4     0      3     True
    3      saqm  4     1      3     True
    """
    jobs = check_backend(backend, jobs, scheduler)
    _check_resume_options(out, fresh, mix_versions)
    columns = _columns(grid)
    cells = grid.cells()
    store = None
    if out is not None:
        _check_storable(cells)
        resume = Resume(out, [cell.key for cell in cells], mix_versions=mix_versions)
        store = ResultStore(out, columns, accept=resume.accept, fresh=fresh)
        if (taken := resume.line(len(cells))) is not None:
            print(taken, file=sys.stderr, flush=True)
    finished = set() if store is None else store.finished_keys()
    pending = [cell for cell in cells if cell.key not in finished]
    rows = []
    bar = tqdm(total=len(cells), initial=len(cells) - len(pending), unit=" runs", delay=0.0 if progress else 2.0,
               disable=progress is False, leave=False, dynamic_ncols=True)
    # closing(): when the loop ends early (Ctrl-C or a full disk between two rows), the
    # generator is closed at once, not when garbage-collected, and the backend stops its workers.
    with sigterm_unwinds(), contextlib.closing(
            execute(grid, pending, run_cell, backend=backend, jobs=jobs, scheduler=scheduler)) as results:
        try:
            for row in results:
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
