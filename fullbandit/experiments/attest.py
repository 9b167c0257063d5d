"""Attest that committed results still hold for today's code, by rerunning part of them.

A code record (:mod:`fullbandit.experiments.code_record`) makes a suite's results stale as
soon as any module the suite depends on changes, although most changes (a new option of an
algorithm the suite never runs, a faster loop with the same arithmetic) leave every row as
it was. :func:`attest` reruns, with today's code, the *first replicate of every grid point*
(the first seed; for a suite that runs its seeds in batches, the first batch) and compares
the rows with the committed ones. If every compared row is equal, column for column except
:data:`VARYING_COLUMNS` (the run's wall time and its provenance), real numbers up to a relative
:data:`FLOAT_TOLERANCE` (the same numpy and OpenBLAS choose different kernels on different
processors, so a statistic may differ in its last bits; counts, answers and every other value
must be equal), the record is brought up
to today's modules and the attestation is appended to its ``"attestations"`` list. Any
difference refuses the attestation, naming the first rows and columns that differ: the
suite must then be rerun.

What it shows, and what not: equal rows for one replicate of every grid point are evidence
that the change does not touch what the suite computes (every algorithm, instance and
parameter of the suite was run through today's code), not a proof for the other seeds. A
suite whose rows hold timings (a ``seconds`` column) never attests, since its timings never
repeat: it must be rerun. The runs keep their own provenance (the code that made them);
the attestation records the code that reproduced their first replicate.

``fullbandit bench NAME --attest --out DIR`` runs it on ``DIR/NAME.csv``.
"""

from __future__ import annotations

import csv
import math
import shutil
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd

from fullbandit.experiments.code_record import code_record, stale_modules
from fullbandit.experiments.provenance import PROVENANCE_COLUMNS, current
from fullbandit.experiments.store import read_results
from fullbandit.experiments.suite import Suite
from fullbandit.util.validation import InvalidParameterError

__all__ = ["FLOAT_TOLERANCE", "REPLICATE_PARAMETERS", "VARYING_COLUMNS", "Attestation", "AttestationRefused", "attest"]

#: Columns that differ between two runs of the same code: not compared.
VARYING_COLUMNS = ("wall_time", *PROVENANCE_COLUMNS)
#: Instance parameters that number replicates of one grid point (a batch of runs), like seeds.
REPLICATE_PARAMETERS = ("split",)
#: Relative tolerance on real-valued cells (last-bit differences between processors), with an absolute floor
#: of ``FLOAT_TOLERANCE * 1e-3`` for values near zero.
FLOAT_TOLERANCE = 1e-9
#: How many differing rows a refusal names.
_SHOWN = 3


class AttestationRefused(InvalidParameterError):
    """The rerun replicates differ from the committed rows (or cannot be matched to them): rerun the suite."""


@dataclass(frozen=True)
class Attestation:
    """What :func:`attest` did: ``changed`` modules (empty: the record was current) and rows ``compared``."""

    suite: str
    changed: tuple[str, ...]
    compared: int
    runs: int

    def describe(self) -> str:
        """One line for the terminal."""
        if not self.changed:
            return f"{self.suite}: its code record is current; nothing to attest"
        return (f"{self.suite}: attested: the first replicate of each of its {self.compared} grid points, rerun "
                f"by today's code, equals the committed rows (changed since: {', '.join(self.changed)})")


def attest(suite: Suite, results, record_path, *, backend: str = "sequential", jobs: int | None = None,
           scheduler=None, progress: bool | None = False) -> Attestation:
    """Rerun the first replicate of every grid point of ``suite`` and, if the rows are equal, update its record.

    Parameters
    ----------
    suite : Suite
    results : path
        The suite's committed results (``NAME.csv``).
    record_path : path
        Their code record (``NAME.code.json``), rewritten when the attestation holds.
    backend, jobs, scheduler, progress
        As for :func:`fullbandit.experiments.run_grid`.

    Returns
    -------
    Attestation

    Raises
    ------
    AttestationRefused
        If a compared row differs, the suite's grid does not reproduce the committed cells,
        or the rows hold timings; the file and the record are left as they were.
    """
    from fullbandit.experiments.runner import run_grid
    from fullbandit.util.state import read_json_object, write_json_atomically

    results, record_path = Path(results), Path(record_path)
    record = read_json_object(record_path)
    changed = tuple(stale_modules(record, suite))
    committed = read_results(results)
    runs = _runs(suite, committed, record)
    if not changed:
        return Attestation(suite.name, (), 0, runs)
    if "seconds" in committed.columns or any(column.startswith("seconds_") for column in committed.columns):
        raise AttestationRefused(f"{suite.name}: its rows hold timings, which no rerun repeats; rerun the suite "
                                 f"(`fullbandit bench {suite.name} --fresh`)")
    chosen = set(_first_replicates(committed)["key"])
    with tempfile.TemporaryDirectory(prefix="fullbandit-attest-") as folder:
        partial = Path(folder) / results.name
        _copy_rows_except(results, partial, chosen)
        run_grid(suite.build(runs), backend=backend, jobs=jobs, scheduler=scheduler, out=partial, mix_versions=True,
                 progress=progress)
        rerun = read_results(partial)
    differences = _differences(committed, rerun, chosen)
    if differences:
        shown = "; ".join(differences[:_SHOWN])
        raise AttestationRefused(f"{suite.name}: {len(differences)} of the {len(chosen)} rerun rows differ from "
                                 f"the committed ones ({shown}); rerun the suite (`fullbandit bench {suite.name} "
                                 "--fresh`)")
    now = code_record(suite)
    entry = {"changed": list(changed), "compared": len(chosen), "rule": "first replicate of every grid point",
             "by": current().columns(), "at": datetime.now(UTC).isoformat(timespec="seconds")}
    write_json_atomically(record_path, {**record, "modules": now["modules"], "runs": runs,
                                        "attestations": [*record.get("attestations", []), entry]})
    return Attestation(suite.name, changed, len(chosen), runs)


def _runs(suite: Suite, committed: pd.DataFrame, record: dict) -> int:
    """The ``runs`` the committed rows were made with: the one whose grid has exactly their cells.

    A suite that runs its seeds in batches (a ``runs`` and a ``split`` column) names a batch
    by its index only, so a grid of fewer runs can have the same cells. The record's count
    comes first: it is what the rows were made with. Without one, the count is read from the
    rows (the runs of one grid point), before the others; that reading is only an average
    where the algorithms run different numbers of batches (zhou-fig1's LUCB runs 2 a point,
    the others 100), and there it picked 80 for 100 until the run keys named the batch sizes
    (a factory's fixed options, :meth:`fullbandit.experiments.grid.Factory.fixed_options`).
    """
    keys = set(committed["key"])
    candidates = [committed["seed"].nunique(), suite.default_runs]
    if "runs" in committed.columns and "split" in committed.columns:  # batches: the runs of one grid point
        points = len(committed) // committed["split"].nunique()
        candidates.insert(0, int(committed["runs"].sum()) // max(points, 1))
    candidates.insert(0, record.get("runs"))
    for runs in dict.fromkeys(int(c) for c in candidates if c):
        if {cell.key for cell in suite.build(runs).cells()} == keys:
            return runs
    raise AttestationRefused(f"{suite.name}: no run count tried ({', '.join(map(str, dict.fromkeys(candidates)))}) "
                             "builds a grid of exactly the committed cells; rerun the suite")


def _first_replicates(frame: pd.DataFrame) -> pd.DataFrame:
    """The rows of the first seed (and first batch) of every grid point."""
    chosen = frame["seed"] == frame["seed"].min()
    for column in REPLICATE_PARAMETERS:
        if column in frame.columns:
            chosen &= frame[column] == frame[column].min()
    return frame[chosen]


def _copy_rows_except(source: Path, target: Path, keys: set[str]) -> None:
    """``source`` (a results CSV) without the rows of ``keys``: the rerun makes them again."""
    with source.open(newline="") as read, target.open("w", newline="") as write:
        rows = csv.reader(read)
        header = next(rows)
        at = header.index("key")
        writer = csv.writer(write, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(row for row in rows if row and row[at] not in keys)
    shutil.copymode(source, target)


def _differences(committed: pd.DataFrame, rerun: pd.DataFrame, keys: set[str]) -> list[str]:
    """``"key: column committed -> rerun"`` for every compared row that differs."""
    compared = [column for column in committed.columns if column not in VARYING_COLUMNS]
    before = committed.set_index("key")
    after = rerun.set_index("key")
    found = []
    for key in sorted(keys):
        if key not in after.index:
            found.append(f"{key}: not rerun")
            continue
        for column in compared:
            if column == "key":
                continue
            old, new = before.at[key, column], after.at[key, column] if column in after.columns else "(missing)"
            if not _same(old, new):
                found.append(f"{key}: {column} {old!r} -> {new!r}")
                break
    return found


def _same(old, new) -> bool:
    """Equal values as read back from a results file (two missing values are equal; real numbers up to
    :data:`FLOAT_TOLERANCE`).

    >>> _same(0.0758556712996108, 0.0758556712996109), _same(0.07585, 0.07586), _same(1151, 1270)
    (True, False, False)
    """
    if isinstance(old, float) and isinstance(new, float):
        if old != old or new != new:  # nan: equal only to nan
            return old != old and new != new
        return math.isclose(old, new, rel_tol=FLOAT_TOLERANCE, abs_tol=FLOAT_TOLERANCE * 1e-3)
    try:
        return bool(old == new)
    except (TypeError, ValueError):  # containers that compare elementwise
        return repr(old) == repr(new)
