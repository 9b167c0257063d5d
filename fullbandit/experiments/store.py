"""An append-only CSV of finished runs that survives being killed, and says where it is damaged.

Each finished run is one line written with a single ``write`` call on a file opened in
append mode, so a killed process leaves every earlier line whole; at most the line being
written can be cut. Rows are never rewritten, so a run that finished is never lost (the one
exception, a file written before results recorded their provenance, is replaced whole and
atomically). :class:`ResultStore` documents what happens when an existing file is damaged.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import shutil
import warnings
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from fullbandit.experiments.evaluations import METRICS_COLUMN
from fullbandit.experiments.provenance import PROVENANCE_COLUMNS
from fullbandit.util.validation import InvalidParameterError

__all__ = ["ResultStore", "expand_metrics", "field_text", "read_results", "value_kind"]

KEY_COLUMN = "key"
# Names, and teams such as "3" or "0-4-7": never let a one-member team or a name like "1" become a number;
# nor a version such as "1.5", or a commit of digits only.
TEXT_COLUMNS = (KEY_COLUMN, "algorithm", "instance", "answer", "best", *PROVENANCE_COLUMNS)
# What csv.writer makes of Python numbers (str of an int, repr of a float); NaN is written empty.
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|[-+]?inf")
_BOOLEANS = ("True", "False")
_MAX_REPORTED = 5  # damaged lines named in one message; the rest are counted
Span = tuple[int, int]  # first and last line of a row in the file (the same unless a quoted field spans lines)


def field_text(value) -> str:
    """The text :meth:`ResultStore.append` writes for ``value`` (not for ``"metrics"``).

    Parameters
    ----------
    value : object
        A value of a row; ``None`` and NaN are written as an empty field (missing).

    Returns
    -------
    str

    Examples
    --------
    >>> [field_text(value) for value in [3, 0.25, True, None, float("nan"), "cyclic"]]
    ['3', '0.25', 'True', '', '', 'cyclic']
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""  # read back as NaN (the reader treats only empty fields as missing)
    return str(value)


def value_kind(text: str) -> str | None:
    """How a CSV field reads back: ``"number"``, ``"boolean"``, ``"text"`` or ``None`` (empty: missing).

    Parameters
    ----------
    text : str
        A field as written by :meth:`ResultStore.append` (see :func:`field_text`).

    Returns
    -------
    str or None

    Examples
    --------
    >>> [value_kind(text) for text in ["12", "-1.5e-3", "inf", "True", "0-4-7", "nan", ""]]
    ['number', 'number', 'number', 'boolean', 'text', 'text', None]
    """
    if text == "":
        return None
    if text in _BOOLEANS:
        return "boolean"
    return "number" if _NUMBER.fullmatch(text) else "text"


class ResultStore:
    """The rows of a grid in the CSV file ``path``: a fixed header, one line per finished run.

    Parameters
    ----------
    path : str or os.PathLike
        The CSV file; created (with its folder) when missing, checked when it exists.
    columns : list of str
        The header. A column named ``"metrics"`` holds a JSON object of
        algorithm-specific metrics; ``"key"`` identifies the run; the provenance columns
        (:data:`~fullbandit.experiments.provenance.PROVENANCE_COLUMNS`) say which code
        produced it.
    accept : callable, optional
        ``accept(rows)`` is called with the rows of an existing file (dicts of text by
        column, ``""`` for a column the file lacks) once the file is checked, before
        anything in it changes; to refuse the file, it raises, and the file stays as it
        was, byte for byte.
    fresh : bool
        Start the file anew: whatever ``path`` holds is replaced by the header alone,
        unread.

    Raises
    ------
    InvalidParameterError
        If the file cannot be created or appended to, holds another grid's results (a
        different header), or has a damaged line (see Notes); the message names the file
        and, for a damaged line, its number and what is wrong.

    Warns
    -----
    UserWarning
        When a last line cut off by a killed run is dropped.

    Notes
    -----
    Opening an existing file checks it whole, before any run starts:

    * The header must equal ``columns``; otherwise the file belongs to another grid (or
      is not a results file) and is refused. Only an empty file, or one holding just the
      beginning of the header, is (re)written from the start. A file written before
      results recorded their provenance has the header ``columns`` without the
      provenance columns: it is read with those columns empty, and the first
      :meth:`append` replaces it (atomically: a kill leaves the old file or the new one)
      by the same rows under the whole header.
    * A last line without its line end is what a run killed while appending leaves: it is
      dropped (the file is truncated to its last complete line) with a warning giving the
      number of lines dropped and the line's text, and that run is redone.
    * Any other malformed line is an error naming the file and the line: a wrong number of
      fields, an empty or repeated ``key``, a ``metrics`` field that is not a JSON object,
      text that is not UTF-8, or a value of the wrong kind -- a column at least half of
      whose values are numbers (or ``True``/``False``) is a column of numbers (or
      booleans), and its other non-empty values are damaged (``key``, ``algorithm``,
      ``instance``, ``answer`` and ``best`` hold text and are exempt;
      :func:`fullbandit.experiments.run_grid` refuses to store a swept parameter whose
      values are of different kinds). Nothing is changed in the file: delete the lines
      named (their runs are redone on the next start) or repair them, and run again.
    * Blank lines are ignored.

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "runs.csv"
    >>> store = ResultStore(path, ["key", "pulls", "metrics"])
    >>> store.append({"key": "a", "pulls": 12, "metrics": {"rounds": 3}})
    >>> store.read()
      key  pulls  rounds
    0   a     12       3
    >>> with open(path, "a") as handle:  # a row damaged by hand
    ...     _ = handle.write("b,twelve,{}\\n")
    >>> ResultStore(path, ["key", "pulls", "metrics"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    fullbandit.util.validation.InvalidParameterError: .../runs.csv has 1 damaged line: line 3: column 'pulls' ...
    """

    def __init__(self, path, columns: list[str], *, accept: Callable[[list[dict[str, str]]], None] | None = None,
                 fresh: bool = False):
        self.path = Path(path)
        self.columns = list(columns)
        self._header = self.columns  # the file's: without the provenance columns in a file written before them
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            rows = self._check_existing(accept) if self.path.exists() and not fresh else None
            if rows is None:
                self._write_line(self.columns, mode="w")
                rows = []
            # Fail now rather than after the first run if lines cannot be appended.
            os.close(os.open(self.path, os.O_WRONLY | os.O_APPEND))
        except OSError as error:
            raise InvalidParameterError(
                f"out={str(self.path)!r} cannot hold the results: {error.strerror or error}") from None
        key = self._header.index(KEY_COLUMN) if KEY_COLUMN in self._header else None
        self._finished = set() if key is None else {row[key] for _, row in rows}

    def _check_existing(self, accept) -> list[tuple[Span, list[str]]] | None:
        """The data rows (with their lines) of the existing file, or ``None`` if it holds no header yet.

        The file is changed only once it is known to be good and ``accept`` took it: then a
        cut last line is dropped.
        """
        data = self.path.read_bytes()
        complete = data[:data.rfind(b"\n") + 1]  # without a cut last line
        rows, problems = self._parse(complete)
        if not rows and not problems and _line(self.columns).startswith(data[len(complete):]):
            return None  # empty, blank lines, or a header cut off while being written
        without_provenance = [column for column in self.columns if column not in PROVENANCE_COLUMNS]
        if not rows or rows[0][1] not in (self.columns, without_provenance):
            found = (f"columns {rows[0][1]}" if rows
                     else f"no header but {data[:80].decode('utf-8', errors='replace')!r}")
            raise InvalidParameterError(
                f"out={str(self.path)!r} holds results of a different grid ({found}); use another file, "
                "remove it, or start it anew: fresh=True (fullbandit bench --fresh)")
        self._header = rows[0][1]
        rows = rows[1:]
        problems += self._row_problems(rows)
        if problems:
            raise self._damaged(problems)
        if accept is not None:
            accept([{column: stored.get(column, "") for column in self.columns}
                    for stored in (dict(zip(self._header, row, strict=True)) for _, row in rows)])
        if len(complete) < len(data):
            self._drop_cut_last_line(data, len(complete))
        return rows

    def _parse(self, data: bytes) -> tuple[list[tuple[Span, list[str]]], list[tuple[Span, str]]]:
        """Non-blank rows of ``data`` with the lines they span, and the lines that are not CSV text."""
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            line = data.count(b"\n", 0, error.start) + 1
            raise self._damaged([((line, line), "not UTF-8 text")]) from None
        reader = csv.reader(io.StringIO(text, newline=""))
        rows: list[tuple[Span, list[str]]] = []
        problems: list[tuple[Span, str]] = []
        while True:
            # A quoted field may span lines (an unclosed quote swallows the lines after it).
            first = reader.line_num + 1
            try:
                row = next(reader)
            except StopIteration:
                return rows, problems
            except csv.Error as error:  # e.g. a field over csv.field_size_limit()
                problems.append(((first, reader.line_num), str(error)))
                continue
            if any(row):
                rows.append(((first, reader.line_num), row))

    def _drop_cut_last_line(self, data: bytes, keep: int) -> None:
        with open(self.path, "rb+") as handle:
            handle.truncate(keep)
        line = data.count(b"\n", 0, keep) + 1
        cut = data[keep:].decode("utf-8", errors="replace")
        warnings.warn(
            f"{self.path}: dropped 1 line cut off by a killed run (line {line}, no line end: {cut[:120]!r}); "
            "its run will be redone", stacklevel=4)

    def _row_problems(self, rows: list[tuple[Span, list[str]]]) -> list[tuple[Span, str]]:
        """``(lines, what is wrong)`` for every damaged data row."""
        problems = []
        header = self._header
        width = len(header)
        complete = []
        key = header.index(KEY_COLUMN) if KEY_COLUMN in header else None
        metrics = header.index(METRICS_COLUMN) if METRICS_COLUMN in header else None
        first_line_of_key: dict[str, Span] = {}
        for line, row in rows:
            if len(row) != width:
                problems.append((line, f"{len(row)} fields where the header has {width}"))
                continue
            complete.append((line, row))
            if key is not None:
                if not row[key]:
                    problems.append((line, "empty key"))
                elif row[key] in first_line_of_key:
                    problems.append((line, f"key {row[key]!r} already on {_lines(first_line_of_key[row[key]])}"))
                else:
                    first_line_of_key[row[key]] = line
            if metrics is not None:
                try:
                    _metrics_record(row[metrics])
                except ValueError:
                    problems.append((line, f"column {METRICS_COLUMN!r} is not a JSON object: {row[metrics][:80]!r}"))
        for index, column in enumerate(header):
            if index != metrics and column not in TEXT_COLUMNS:
                problems += _kind_problems(column, [(line, row[index]) for line, row in complete])
        return sorted(problems)

    def _damaged(self, problems: list[tuple[Span, str]]) -> InvalidParameterError:
        lines = {line for line, _ in problems}
        shown = "; ".join(f"{_lines(line)}: {what}" for line, what in problems[:_MAX_REPORTED])
        more = f"; and {len(problems) - _MAX_REPORTED} more" if len(problems) > _MAX_REPORTED else ""
        return InvalidParameterError(
            f"{self.path} has {len(lines)} damaged line{'s' if len(lines) > 1 else ''}: {shown}{more}. "
            "Delete those lines (their runs are redone on the next start) or repair them, and run again")

    def _write_line(self, values, mode: str = "a") -> None:
        data = _line(values)
        flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if mode == "a" else os.O_TRUNC)
        descriptor = os.open(self.path, flags, 0o644)
        try:
            written = os.write(descriptor, data)
        finally:
            os.close(descriptor)
        if written != len(data):
            # The cut line has no line end, so the next start drops it and redoes the run.
            raise OSError(f"{self.path}: wrote {written} of {len(data)} bytes (disk full?)")

    def append(self, row: dict) -> None:
        """Write one finished run as one line.

        Parameters
        ----------
        row : dict
            Values by column name (missing columns are left empty, NaN is written empty,
            ``"metrics"`` is a dict written as JSON).

        Examples
        --------
        >>> import tempfile
        >>> store = ResultStore(Path(tempfile.mkdtemp()) / "runs.csv", ["key", "gap", "metrics"])
        >>> store.append({"key": "a", "gap": float("nan"), "metrics": {}})
        >>> store.path.read_text()
        'key,gap,metrics\\na,,{}\\n'
        """
        if self._header != self.columns:
            self._add_provenance_columns()
        values = []
        for column in self.columns:
            value = row.get(column)
            if column == METRICS_COLUMN:
                values.append(json.dumps({} if value is None else value, sort_keys=True, default=str))
            else:
                values.append(field_text(value))
        self._write_line(values)
        if KEY_COLUMN in row:
            self._finished.add(str(row[KEY_COLUMN]))

    def _add_provenance_columns(self) -> None:
        """Replace a file written before results recorded their provenance by its rows under the whole header.

        The new file is written beside the old one and renamed over it, so a kill leaves one or the other.
        """
        rows, _ = self._parse(self.path.read_bytes())  # checked when opened, and appended to by no one since
        lines = [_line(self.columns)]
        for _, row in rows[1:]:
            stored = dict(zip(self._header, row, strict=True))
            lines.append(_line([stored.get(column, "") for column in self.columns]))
        upgraded = self.path.with_name(f".{self.path.name}.upgrading")
        try:
            with open(upgraded, "wb") as handle:
                handle.write(b"".join(lines))
                handle.flush()
                os.fsync(handle.fileno())  # on disk before it takes the old file's place
            shutil.copymode(self.path, upgraded)
            os.replace(upgraded, self.path)
        except OSError:
            upgraded.unlink(missing_ok=True)
            raise
        self._header = self.columns

    def read(self) -> pd.DataFrame:
        """All stored rows, metrics expanded into columns (see :func:`read_results`).

        Returns
        -------
        pandas.DataFrame
            One row per line, in file order; see :func:`expand_metrics`. The provenance
            columns of a file written before results recorded them are there, empty.

        Examples
        --------
        >>> import tempfile
        >>> store = ResultStore(Path(tempfile.mkdtemp()) / "runs.csv", ["key", "answer", "metrics"])
        >>> store.append({"key": "a", "answer": "3", "metrics": {"x": 1.5}})
        >>> store.read().dtypes.astype(str).tolist()  # a one-member team stays text
        ['str', 'str', 'float64']
        """
        frame = read_results(self.path)
        for column in PROVENANCE_COLUMNS:
            if column in self.columns and column not in frame.columns:  # a file written before them
                frame[column] = pd.Series(index=frame.index, dtype=str)  # missing, as an empty text field reads
        return frame

    def finished_keys(self) -> set[str]:
        """Keys of the runs stored so far (those a resumed grid skips).

        Examples
        --------
        >>> import tempfile
        >>> store = ResultStore(Path(tempfile.mkdtemp()) / "runs.csv", ["key", "metrics"])
        >>> store.append({"key": "a", "metrics": {}})
        >>> store.finished_keys()
        {'a'}
        """
        return set(self._finished)


def read_results(path) -> pd.DataFrame:
    """The rows of a results file (written by :class:`ResultStore`), metrics expanded into columns.

    Parameters
    ----------
    path : str or os.PathLike
        The CSV file.

    Returns
    -------
    pandas.DataFrame
        One row per line, in file order. Names, teams, versions and commits stay text
        (``TEXT_COLUMNS``); empty fields are missing values; metrics are expanded by
        :func:`expand_metrics`.

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "runs.csv"
    >>> _ = path.write_text('key,answer,metrics,cvxpy_version\\na,3,"{""x"": 1.5}",1.5\\n')
    >>> read_results(path)
      key answer cvxpy_version    x
    0   a      3           1.5  1.5
    >>> read_results(path).dtypes.astype(str).tolist()
    ['str', 'str', 'str', 'float64']
    """
    frame = pd.read_csv(path, keep_default_na=False, na_values=[""], dtype={column: str for column in TEXT_COLUMNS})
    return expand_metrics(frame)


def _line(values) -> bytes:
    """One CSV line, as the file holds it."""
    buffer = io.StringIO()
    csv.writer(buffer, lineterminator="\n").writerow(values)
    return buffer.getvalue().encode()


def _lines(span: Span) -> str:
    first, last = span
    return f"line {first}" if first == last else f"lines {first}-{last}"


def _kind_problems(column: str, cells: list[tuple[Span, str]]) -> list[tuple[Span, str]]:
    """Values of another kind in a column at least half of whose values are numbers (or booleans)."""
    kinds = [(line, text, value_kind(text)) for line, text in cells]
    counts = Counter(kind for _, _, kind in kinds if kind is not None)
    present = sum(counts.values())
    for expected, plural in (("number", "numbers"), ("boolean", "True/False")):
        if present and 2 * counts[expected] >= present:
            return [(line, f"column {column!r} holds {text[:40]!r} where the column holds {plural}")
                    for line, text, kind in kinds if kind not in (expected, None)]
    return []


def _metrics_record(value) -> dict:
    """The metrics of one row from a dict or its JSON text (empty or NaN: none); ValueError otherwise."""
    if isinstance(value, dict):
        return value
    if value is None or value == "" or (isinstance(value, float) and math.isnan(value)):
        return {}
    record = json.loads(value) if isinstance(value, str) else None  # JSONDecodeError is a ValueError
    if not isinstance(record, dict):
        raise ValueError(f"metrics must be a dict or the JSON text of one, got {value!r}")
    return record


def expand_metrics(frame: pd.DataFrame) -> pd.DataFrame:
    """Turn the JSON metrics column into one column per metric (prefixed on a name clash).

    Parameters
    ----------
    frame : pandas.DataFrame
        Rows whose ``"metrics"`` column holds dicts or their JSON text (empty: none).
        A frame without that column is returned as is.

    Returns
    -------
    pandas.DataFrame
        ``frame`` without ``"metrics"`` and with one column per metric, sorted by name;
        a metric named like an existing column becomes ``"metric.<name>"``.

    Raises
    ------
    InvalidParameterError
        If a metrics value is neither a dict nor the JSON text of one.

    Examples
    --------
    >>> frame = pd.DataFrame({"pulls": [3, 4], "metrics": ['{"pulls": 1, "rounds": 2}', {"rounds": 5}]})
    >>> expand_metrics(frame)
       pulls  metric.pulls  rounds
    0      3           1.0       2
    1      4           NaN       5
    """
    if METRICS_COLUMN not in frame.columns:
        return frame
    records = []
    for index, value in frame[METRICS_COLUMN].items():
        try:
            records.append(_metrics_record(value))
        except ValueError as error:
            raise InvalidParameterError(f"row {index!r}: {error}") from None
    metrics = pd.DataFrame.from_records(records, index=frame.index)
    metrics = metrics[sorted(metrics.columns)]  # same order whether rows came from memory or a file
    metrics.columns = [f"metric.{name}" if name in frame.columns else name for name in metrics.columns]
    return pd.concat([frame.drop(columns=[METRICS_COLUMN]), metrics], axis=1)
